//go:build gc && !purego && !noasm

package uriscan

import (
	"unsafe"

	"github.com/uriscan/uriscan/internal/cpufeat"
)

// internal/cpufeat decides which kernels the CPU may run (AVX-512 F, BW
// and VBMI, with AVX2, so that GODEBUG=cpu.avx2=off turns off all SIMD);
// each must also pass kernelAgrees against the scalar reference before it
// is offered.
var (
	hasAVX2   = cpufeat.ClassifyAVX2 && kernelAgrees(classifyAVX2Blocks)
	hasAVX512 = cpufeat.ClassifyAVX512 && kernelAgrees(classifyAVX512Blocks)
)

func bestKernel() kernelID {
	switch {
	case hasAVX512:
		return kernelAVX512
	case hasAVX2:
		return kernelAVX2
	}
	return kernelGeneric
}

// availableKernels lists the kernels this build and CPU can run, best first.
func availableKernels() []kernelID {
	var ks []kernelID
	if hasAVX512 {
		ks = append(ks, kernelAVX512)
	}
	if hasAVX2 {
		ks = append(ks, kernelAVX2)
	}
	return append(ks, kernelGeneric)
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
	case kernelAVX512:
		classifyAVX512(&dst[0], unsafe.SliceData(src), len(src), &kernelAVX512Tables)
	case kernelAVX2:
		classifyAVX2Blocks(dst, src)
	default:
		classifyGeneric(dst, src)
	}
}

func classifyAVX512Blocks(dst []blockMasks, src []byte) {
	if len(src) > 0 {
		classifyAVX512(&dst[0], unsafe.SliceData(src), len(src), &kernelAVX512Tables)
	}
}

func classifyAVX2Blocks(dst []blockMasks, src []byte) {
	whole := len(src) / blockSize
	if whole > 0 {
		classifyAVX2(&dst[0], unsafe.SliceData(src), whole, &kernelNibbles)
	}
	if tail := src[whole*blockSize:]; len(tail) > 0 {
		classifyTail(&dst[whole], tail)
	}
}

// classifyTail classifies a short last block (0 < len(tail) < 64) with the
// AVX2 kernel, then clears the bits past the tail. When the 64 bytes from
// the tail's start lie in one page, the kernel reads them in place (as
// internal/bytealg does: the bytes past the tail are readable and their
// bits are dropped); otherwise it copies the tail into a zeroed buffer,
// so nothing past the input is ever read across a page boundary.
func classifyTail(dst *blockMasks, tail []byte) {
	if p := unsafe.SliceData(tail); blockInPage(p) {
		classifyAVX2(dst, p, 1, &kernelNibbles)
	} else {
		var buf [blockSize]byte
		copy(buf[:], tail)
		classifyAVX2(dst, &buf[0], 1, &kernelNibbles)
	}
	dst.keep(len(tail))
}

// classifyAVX2 writes the masks of nblocks whole 64-byte blocks at src to
// dst[0:nblocks], exactly as classifyGeneric would. It reads exactly
// 64*nblocks bytes; nblocks must be at least 1.
//
// Requires AVX2. Implemented in classify_avx2_amd64.s.
//
//go:noescape
func classifyAVX2(dst *blockMasks, src *byte, nblocks int, lut *nibbleLUT)

// classifyAVX512 writes the masks of the n bytes at src to
// dst[0:(n+63)/64], exactly as classifyGeneric would. It reads no byte
// past src[n-1]: the last block is read with a masked load. n must be at
// least 1.
//
// Requires AVX512F, AVX512BW, AVX512VBMI and GFNI. Implemented in
// classify_avx512_amd64.s.
//
//go:noescape
func classifyAVX512(dst *blockMasks, src *byte, n int, t *avx512Tables)
