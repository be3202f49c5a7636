//go:build gc && !purego && !noasm

#include "textflag.h"
#include "go_asm.h"

// func classifyAVX512(dst *blockMasks, src *byte, n int, t *avx512Tables)
// Requires: AVX512F, AVX512BW, AVX512VBMI, GFNI
//
// One 64-byte register per block, five vector instructions and one store:
//
//  1. VPMINUB with 0x7F maps every byte >= 0x80 to DEL, which has their
//     class (invalid only), since VPERMI2B reads 7 bits of each index.
//  2. VPERMI2B looks every byte up in the 128-entry class table
//     (avx512Tables.class: bit 0 invalid, 1 structural, 2 newline, 3 tail,
//     4 delim), held in two registers.
//  3. VGF2P8AFFINEQB with the classes as its matrix and the bytes 1<<j as
//     its vector transposes each qword as an 8x8 bit matrix: byte j of
//     qword q gets bit j of the class of lanes 8q+7 .. 8q (bit i from lane
//     8q+7-i).
//  4. VGF2P8AFFINEQB with the matrix whose byte k is 1<<k reverses the bits
//     of every byte, so that bit i comes from lane 8q+i.
//  5. VPERMB (avx512Tables.gather) moves byte j of every qword q to byte q
//     of qword j: qword j is then bit plane j of all 64 lanes, the mask of
//     class bit j, and qwords 0-4 are blockMasks' fields in order.
//  6. One store of qwords 0-4 (40 bytes, a masked store of 64-bit
//     elements).
//
// The last partial block is read with a zeroing masked load, which
// neither reads nor faults past src[n-1], and its lookup zeroes the
// classes of the lanes past n, so their bits are clear in every mask.
//
// Register map:
//	DI  dst (advances by blockMasks__size)
//	SI  src (advances by 64)
//	CX  bytes left
//	Z30 class[0:64]   Z31 class[64:128]
//	Z29 0x7F bytes    Z28 0x8040201008040201 qwords    Z27 gather
//	Z0  input, then classes, then masks
//	K4  the five qwords of a blockMasks (0x1F)
//	K5  the tail's lanes
TEXT ·classifyAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ t+24(FP), AX

	VMOVDQU64    avx512Tables_class(AX), Z30
	VMOVDQU64    avx512Tables_class+64(AX), Z31
	VMOVDQU64    avx512Tables_gather(AX), Z27
	MOVL         $0x7f7f7f7f, AX
	VPBROADCASTD AX, Z29
	MOVQ         $0x8040201008040201, AX
	VPBROADCASTQ AX, Z28
	MOVL         $((1<<(blockMasks__size/8))-1), AX
	KMOVW        AX, K4

	CMPQ CX, $64
	JB   tail

loop:
	VPMINUB        (SI), Z29, Z0
	VPERMI2B       Z31, Z30, Z0
	VGF2P8AFFINEQB $0, Z0, Z28, Z0
	VGF2P8AFFINEQB $0, Z28, Z0, Z0
	VPERMB         Z0, Z27, Z0
	VMOVDQU64      Z0, K4, (DI)

	ADDQ $64, SI
	ADDQ $blockMasks__size, DI
	SUBQ $64, CX
	CMPQ CX, $64
	JAE  loop

tail:
	TESTQ CX, CX
	JZ    done

	// K5 = (1 << CX) - 1, CX in 1..63
	MOVQ  $-1, AX
	SHLQ  CX, AX
	NOTQ  AX
	KMOVQ AX, K5

	VMOVDQU8.Z     (SI), K5, Z0
	VPMINUB        Z29, Z0, Z0
	VPERMI2B.Z     Z31, Z30, K5, Z0
	VGF2P8AFFINEQB $0, Z0, Z28, Z0
	VGF2P8AFFINEQB $0, Z28, Z0, Z0
	VPERMB         Z0, Z27, Z0
	VMOVDQU64      Z0, K4, (DI)

done:
	VZEROUPPER
	RET
