// Package highway computes keyed HighwayHash-128 digests of short inputs
// such as URIs, bit-for-bit equal to github.com/minio/highwayhash.Sum128.
//
// highwayhash.Sum128 re-derives the keyed state on every call and makes
// four calls (key set-up, whole packets, the padded last packet in Go, and
// finalisation), which for a 60-byte URI costs more than the hashing. Here
// the keyed state is computed once per Key and, on amd64 with AVX2, one
// assembly call hashes the packets, the last partial packet and the six
// finalisation rounds without leaving vector registers.
//
// Elsewhere (other architectures, the purego or noasm tags, no AVX2) the
// functions call highwayhash.Sum128, which is the reference every test
// compares against.
package highway

import (
	"encoding/binary"

	"github.com/minio/highwayhash"
)

// KeySize is the size of a HighwayHash key.
const KeySize = highwayhash.Size

// Size is the size of a digest.
const Size = highwayhash.Size128

// initConst are HighwayHash's init0 and init1 constants (the state's mul0
// and mul1 before keying).
var initConst = [8]uint64{
	0xdbe6d5d5fe4cce2f, 0xa4093822299f31d0, 0x13198a2e03707344, 0x243f6a8885a308d3,
	0x3bd39e10cb0ef593, 0xc0acf169b5f18a8c, 0xbe5466cf34e90c6c, 0x452821e638d01377,
}

// A Key is a 32-byte HighwayHash key with its keyed initial state. The zero
// Key is not usable; make one with NewKey.
type Key struct {
	raw [KeySize]byte
	// state is v0, v1, mul0, mul1 (four 64-bit lanes each) after keying,
	// the layout minio's assembly uses.
	state [16]uint64
}

// NewKey expands a 32-byte key.
func NewKey(key *[KeySize]byte) *Key {
	k := &Key{raw: *key}
	for i := 0; i < 4; i++ {
		w := binary.LittleEndian.Uint64(key[8*i:])
		k.state[i] = initConst[i] ^ w                   // v0 = init0 ^ key
		k.state[4+i] = initConst[4+i] ^ (w>>32 | w<<32) // v1 = init1 ^ rot32(key)
		k.state[8+i] = initConst[i]                     // mul0 = init0
		k.state[12+i] = initConst[4+i]                  // mul1 = init1
	}
	return k
}

// Raw returns the key's 32 bytes.
func (k *Key) Raw() [KeySize]byte { return k.raw }

// lastPacket builds HighwayHash's final packet from the 1..31 bytes after
// the last whole 32-byte packet, as the reference's hashBuffer does: whole
// 4-byte groups first, then either the last four bytes at offset 28 (16 or
// more bytes) or three bytes chosen from the 1..3 left over at offset 16.
func lastPacket(p *[32]byte, tail []byte) {
	r := len(tail)
	mod4 := r & 3
	remain := r - mod4
	copy(p[:remain], tail)
	if r >= 16 {
		copy(p[28:], tail[r-4:])
	} else if mod4 != 0 {
		p[16] = tail[remain]
		p[17] = tail[remain+mod4>>1]
		p[18] = tail[r-1]
	}
}
