//go:build gc && !purego

#include "textflag.h"
#include "go_asm.h"

// func classifyAVX2(dst *blockMasks, src *byte, nblocks int, lut *nibbleLUT)
// Requires: AVX2
//
// Two-nibble lookup (see nibbleLUT in kernel_tables.go), 32 bytes per
// register, two registers per 64-byte block:
//	x          = lut.lo[c & 15] & lut.hi[c >> 4]
//	invalid    = x == 0
//	structural = bit 7 of x +sat 0x70 (set iff x & 0xF0 != 0)
//	newline    = c == '\n'
//
// Register map:
//	DI  dst (advances by blockMasks__size)
//	SI  src (advances by 64)
//	CX  blocks left
//	AX  lut; then scratch for masks with R8-R11
//	Y15 lut.lo in both lanes    Y14 lut.hi in both lanes
//	Y13 0x0F bytes              Y12 0x70 bytes
//	Y11 '\n' bytes              Y10 zero
//	Y0-Y1 input, Y2-Y9 scratch
TEXT ·classifyAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nblocks+16(FP), CX
	MOVQ lut+24(FP), AX

	VBROADCASTI128 nibbleLUT_lo(AX), Y15
	VBROADCASTI128 nibbleLUT_hi(AX), Y14
	MOVQ $0x0f0f0f0f0f0f0f0f, AX
	VMOVQ AX, X13
	VPBROADCASTQ X13, Y13
	MOVQ $0x7070707070707070, AX
	VMOVQ AX, X12
	VPBROADCASTQ X12, Y12
	MOVQ $0x0a0a0a0a0a0a0a0a, AX
	VMOVQ AX, X11
	VPBROADCASTQ X11, Y11
	VPXOR Y10, Y10, Y10

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	// Nibbles: the shift moves bits across bytes, the mask drops them.
	VPSRLW $4, Y0, Y2
	VPSRLW $4, Y1, Y3
	VPAND  Y13, Y0, Y4
	VPAND  Y13, Y1, Y5
	VPAND  Y13, Y2, Y2
	VPAND  Y13, Y3, Y3

	// x = lo[low nibble] & hi[high nibble]
	VPSHUFB Y4, Y15, Y4
	VPSHUFB Y5, Y15, Y5
	VPSHUFB Y2, Y14, Y2
	VPSHUFB Y3, Y14, Y3
	VPAND   Y2, Y4, Y4
	VPAND   Y3, Y5, Y5

	// invalid: x == 0
	VPCMPEQB  Y10, Y4, Y6
	VPCMPEQB  Y10, Y5, Y7
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, R8
	SHLQ      $32, R8
	ORQ       R8, AX
	MOVQ      AX, blockMasks_invalid(DI)

	// structural: x & 0xF0 != 0, read from bit 7 of x + 0x70 (saturating)
	VPADDUSB  Y12, Y4, Y8
	VPADDUSB  Y12, Y5, Y9
	VPMOVMSKB Y8, R9
	VPMOVMSKB Y9, R10
	SHLQ      $32, R10
	ORQ       R10, R9
	MOVQ      R9, blockMasks_structural(DI)

	// newline: c == '\n'
	VPCMPEQB  Y11, Y0, Y6
	VPCMPEQB  Y11, Y1, Y7
	VPMOVMSKB Y6, R10
	VPMOVMSKB Y7, R11
	SHLQ      $32, R11
	ORQ       R11, R10
	MOVQ      R10, blockMasks_newline(DI)

	ADDQ $64, SI
	ADDQ $blockMasks__size, DI
	DECQ CX
	JNZ  loop

	VZEROUPPER
	RET
