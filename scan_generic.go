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
}

// kernelBits packs, per byte value, the three mask bits the kernels
// produce: bit 0 invalid, bit 1 structural, bit 2 newline. It is derived
// from classify.Table so the scalar kernel cannot drift from it.
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
	}
	return t
}()

// classifyGeneric is the scalar reference kernel: it writes the masks of
// src into dst, one blockMasks per 64 bytes (the last block may be short).
// len(dst) must be at least (len(src)+63)/64. Every SIMD kernel must write
// exactly what this writes, for every input.
func classifyGeneric(dst []blockMasks, src []byte) {
	for i := 0; len(src) > 0; i++ {
		blk := src[:min(len(src), blockSize)]
		src = src[len(blk):]
		var inv, st, nl uint64
		for j, c := range blk {
			x := uint64(kernelBits[c])
			inv |= (x & 1) << j
			st |= (x >> 1 & 1) << j
			nl |= (x >> 2) << j
		}
		dst[i] = blockMasks{invalid: inv, structural: st, newline: nl}
	}
}
