//go:build !amd64 || !gc || purego || noasm

package highway

// Sum128 returns the HighwayHash-128 of msg under k, equal to
// highwayhash.Sum128(msg, key).
func (k *Key) Sum128(msg []byte) [Size]byte { return sumRef(k, msg) }

// SumPair returns the HighwayHash-128 digests of a and b under k, equal to
// highwayhash.Sum128 of each.
func (k *Key) SumPair(a, b []byte) (x, y [Size]byte) { return sumRef(k, a), sumRef(k, b) }
