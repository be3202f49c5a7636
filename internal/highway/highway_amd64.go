//go:build gc && !purego && !noasm

package highway

import (
	"github.com/uriscan/uriscan/internal/cpufeat"
	"github.com/uriscan/uriscan/internal/pathstats"
)

var useAVX2 = cpufeat.HighwayAVX2 // internal/cpufeat decides

// Path reports "avx2" when Sum128 runs the assembly, else "go".
func Path() string {
	if useAVX2 {
		return "avx2"
	}
	return "go"
}

// sum128AVX2 hashes msg into out: whole packets, the last partial one and
// the six finalisation rounds in one call. It reads no byte outside msg's
// pages that msg does not cover (see lastPacket<> in the assembly).
//
//go:noescape
func sum128AVX2(state *[16]uint64, msg []byte, out *[Size]byte)

// Sum128 returns the HighwayHash-128 of msg under k, equal to
// highwayhash.Sum128(msg, key).
func (k *Key) Sum128(msg []byte) (out [Size]byte) {
	if !useAVX2 {
		pathstats.Add(pathstats.HashRef, 1)
		return sumRef(k, msg)
	}
	pathstats.Add(pathstats.HashAVX2, 1)
	sum128AVX2(&k.state, msg, &out)
	return out
}
