//go:build gc && !purego && !noasm

package highway

import (
	"unsafe"

	"golang.org/x/sys/cpu"
)

var useAVX2 = cpu.X86.HasAVX2

// minPage is the smallest page size of any amd64 system: a 32-byte load
// that starts at least 32 bytes before a multiple of it cannot fault.
const minPage = 4096

// sum128AVX2 hashes the whole packets in full (len a multiple of 32),
// then, when r > 0, the last r bytes, read as a 32-byte load from tail
// (the caller guarantees the load cannot fault; the bytes past r are
// masked off), then finalises into out.
//
//go:noescape
func sum128AVX2(state *[16]uint64, full []byte, tail *byte, r int, out *[Size]byte)

// Sum128 returns the HighwayHash-128 of msg under k, equal to
// highwayhash.Sum128(msg, key).
func (k *Key) Sum128(msg []byte) (out [Size]byte) {
	if !useAVX2 {
		return sumRef(k, msg)
	}
	n := len(msg) &^ 31
	var pad [32]byte
	sum128AVX2(&k.state, msg[:n], tailPtr(msg, &pad), len(msg)-n, &out)
	return out
}

//go:noescape
func sum128x2AVX2(state *[16]uint64, a []byte, ta *byte, b []byte, tb *byte, out *[2 * Size]byte)

// tailPtr returns where the assembly may load msg's last partial packet
// as 32 bytes: in place when that cannot cross into the next page, else
// from a zero-padded copy in pad.
func tailPtr(msg []byte, pad *[32]byte) *byte {
	n := len(msg) &^ 31
	if n == len(msg) {
		return &pad[0]
	}
	p := &msg[n]
	if uintptr(unsafe.Pointer(p))&(minPage-1) > minPage-32 {
		copy(pad[:], msg[n:])
		return &pad[0]
	}
	return p
}

// SumPair returns the HighwayHash-128 digests of a and b under k, equal to
// highwayhash.Sum128 of each, hashing both at once.
func (k *Key) SumPair(a, b []byte) (x, y [Size]byte) {
	if !useAVX2 {
		return sumRef(k, a), sumRef(k, b)
	}
	var padA, padB [32]byte
	var out [2 * Size]byte
	sum128x2AVX2(&k.state, a, tailPtr(a, &padA), b, tailPtr(b, &padB), &out)
	return [Size]byte(out[:Size]), [Size]byte(out[Size:])
}
