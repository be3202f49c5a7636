package uriscan

import "github.com/uriscan/uriscan/classify"

// blockSize is the number of input bytes one blockMasks describes.
const blockSize = 64

// blockMasks is the stage-1 output for one 64-byte block: bit i describes
// byte i of the block. Bits past the end of the input are zero.
type blockMasks struct {
	invalid    uint64 // classify.Invalid: never valid in a URI (includes '\n')
	structural uint64 // classify.Structural: gen-delims and '%'
	newline    uint64 // classify.Newline: '\n'
	tail       uint64 // the structural bytes that matter after the authority: ? # % [ ]
	delim      uint64 // the bytes that end an authority or a path: / ? #
}

// kernelBits packs, per byte value, the mask bits the kernels produce:
// bit 0 invalid, bit 1 structural, bit 2 newline, bit 3 tail, bit 4
// delim. It is derived from classify.Table so the scalar kernel cannot
// drift from it.
//
// The tail mask exists for speed: in a path, query or fragment the
// gen-delims '/', ':' and '@' are ordinary bytes, and paths are mostly
// '/'. Walking the tail over tail|invalid instead of structural|invalid
// skips them all without a branch each. The delim mask lets the batch
// scanner find where an authority ends with one bit scan.
var kernelBits = func() (t [256]uint8) {
	for c := range t {
		k := classify.Table[c]
		if k&classify.Invalid != 0 {
			t[c] |= 1
		}
		if k&classify.Structural != 0 {
			t[c] |= 2
		}
		if k&classify.Newline != 0 {
			t[c] |= 4
		}
		if k&classify.Structural != 0 && c != '/' && c != ':' && c != '@' {
			t[c] |= 8
		}
		if c == '/' || c == '?' || c == '#' {
			t[c] |= 16
		}
	}
	return t
}()

// classifyGeneric is the scalar reference kernel: it writes the masks of
// src into dst, one blockMasks per 64 bytes (the last block may be short).
// len(dst) must be at least (len(src)+63)/64. Every SIMD kernel must write
// exactly what this writes, for every input.
//
// Eight bytes at a time, it packs their kernelBits into the byte lanes of a
// uint64 and gathers bit b of every lane into eight mask bits with one
// multiply (see gather8).
func classifyGeneric(dst []blockMasks, src []byte) {
	const lsb = 0x0101010101010101
	for i := 0; len(src) > 0; i++ {
		blk := src[:min(len(src), blockSize)]
		src = src[len(blk):]
		var inv, st, nl, tl, dl uint64
		j := 0
		for ; j+8 <= len(blk); j += 8 {
			b := blk[j : j+8 : j+8]
			v := uint64(kernelBits[b[0]]) | uint64(kernelBits[b[1]])<<8 |
				uint64(kernelBits[b[2]])<<16 | uint64(kernelBits[b[3]])<<24 |
				uint64(kernelBits[b[4]])<<32 | uint64(kernelBits[b[5]])<<40 |
				uint64(kernelBits[b[6]])<<48 | uint64(kernelBits[b[7]])<<56
			inv |= gather8(v&lsb) << j
			st |= gather8(v>>1&lsb) << j
			nl |= gather8(v>>2&lsb) << j
			tl |= gather8(v>>3&lsb) << j
			dl |= gather8(v>>4&lsb) << j
		}
		for ; j < len(blk); j++ {
			x := uint64(kernelBits[blk[j]])
			inv |= (x & 1) << j
			st |= (x >> 1 & 1) << j
			nl |= (x >> 2 & 1) << j
			tl |= (x >> 3 & 1) << j
			dl |= (x >> 4) << j
		}
		dst[i] = blockMasks{invalid: inv, structural: st, newline: nl, tail: tl, delim: dl}
	}
}

// gather8 moves bit 8k of x to bit k, for x with no other bits set: the
// product puts lane k at bit 56+k, and no two partial products overlap, so
// nothing carries into the top byte.
func gather8(x uint64) uint64 { return x * 0x0102040810204080 >> 56 }
