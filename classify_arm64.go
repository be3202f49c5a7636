//go:build gc && !purego && !noasm

package uriscan

import (
	"unsafe"

	"github.com/uriscan/uriscan/internal/cpufeat"
)

// NEON (ASIMD) is part of the arm64 baseline (internal/cpufeat still asks,
// for GODEBUG=cpu.asimd=off); like every SIMD kernel it must pass
// kernelAgrees at start-up.
var hasNEON = cpufeat.ClassifyNEON && kernelAgrees(classifyNEONBlocks)

func bestKernel() kernelID {
	if hasNEON {
		return kernelNEON
	}
	return kernelGeneric
}

// availableKernels lists the kernels this build and CPU can run, best first.
func availableKernels() []kernelID {
	if hasNEON {
		return []kernelID{kernelNEON, kernelGeneric}
	}
	return []kernelID{kernelGeneric}
}

// classifyBlocks runs kernel k; it has the contract of classifyGeneric.
// The calls are direct (not through a func value) so that dst and src do
// not escape, and k comes last so that dst and src are in the registers
// the kernels take them in.
func classifyBlocks(dst []blockMasks, src []byte, k kernelID) {
	if len(src) == 0 {
		return
	}
	switch k {
	case kernelNEON:
		classifyNEONBlocks(dst, src)
	default:
		classifyGeneric(dst, src)
	}
}

func classifyNEONBlocks(dst []blockMasks, src []byte) {
	whole := len(src) / blockSize
	if whole > 0 {
		classifyNEON(&dst[0], unsafe.SliceData(src), whole, &kernelNibbles)
	}
	if tail := src[whole*blockSize:]; len(tail) > 0 {
		classifyTailNEON(&dst[whole], tail)
	}
}

// classifyTailNEON classifies a short last block (0 < len(tail) < 64)
// with the NEON kernel, in place when the 64 bytes from its start lie in
// one page (see blockInPage), else from a zeroed copy; then it clears the
// bits past the tail.
func classifyTailNEON(dst *blockMasks, tail []byte) {
	if p := unsafe.SliceData(tail); blockInPage(p) {
		classifyNEON(dst, p, 1, &kernelNibbles) // in place: see blockInPage
	} else {
		var buf [blockSize]byte
		copy(buf[:], tail)
		classifyNEON(dst, &buf[0], 1, &kernelNibbles)
	}
	dst.keep(len(tail))
}

// classifyNEON writes the masks of nblocks whole 64-byte blocks at src to
// dst[0:nblocks], exactly as classifyGeneric would. It reads exactly
// 64*nblocks bytes; nblocks must be at least 1. lut is the two-nibble
// table (kernelNibbles).
//
// Requires NEON (ASIMD), baseline on arm64. Implemented in classify_neon_arm64.s.
//
//go:noescape
func classifyNEON(dst *blockMasks, src *byte, nblocks int, lut *nibbleLUT)
