//go:build !amd64 || !gc || purego || noasm

package highway

import "github.com/uriscan/uriscan/internal/pathstats"

// Sum128 returns the HighwayHash-128 of msg under k, equal to
// highwayhash.Sum128(msg, key).
func (k *Key) Sum128(msg []byte) [Size]byte {
	pathstats.Add(pathstats.HashRef, 1)
	return sumRef(k, msg)
}

// Path reports "go": Sum128 calls highwayhash.Sum128 here.
func Path() string { return "go" }
