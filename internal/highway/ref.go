package highway

import "github.com/minio/highwayhash"

// sumRef is the reference: minio's Sum128 with the raw key.
func sumRef(k *Key, msg []byte) [Size]byte { return highwayhash.Sum128(msg, k.raw[:]) }
