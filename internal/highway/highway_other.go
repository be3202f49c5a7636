//go:build !amd64 || !gc || purego || noasm

package highway

// Sum128 returns the HighwayHash-128 of msg under k, equal to
// highwayhash.Sum128(msg, key).
func (k *Key) Sum128(msg []byte) [Size]byte { return sumRef(k, msg) }
