//go:build gc && !purego && !noasm

#include "textflag.h"
#include "go_asm.h"

// func classifyAVX2(dst *blockMasks, src *byte, nblocks int, lut *nibbleLUT)
// Requires: AVX2
//
// Two-nibble lookup (see nibbleLUT in classify_tables.go), 32 bytes per
// register, two registers per 64-byte block; each mask is one compare (or
// saturating add) per register and one VPMOVMSKB (newline usually none),
// and its two 32-bit halves are stored as they are:
//	x          = lut.lo[c & 15] & lut.hi[c >> 4]
//	invalid    = x == 0
//	structural = bit 7 of x +sat 0x70 (set iff x & 0xF0 != 0)
//	newline    = c == '\n' (taken from invalid when the block has no
//	             other invalid byte)
//	x2         = lut.lo2[c & 15] & lut.hi2[c >> 4] (at most one bit set)
//	tail       = x2 > 0 as signed bytes (x2 & 0x0F != 0)
//	delim      = bit 7 of x2 +sat 0x7C (x2 >= 0x04: x2 & 0x8C != 0)
//
// Register map:
//	DI  dst (advances by blockMasks__size)
//	SI  src (advances by 64)
//	CX  blocks left
//	AX  lut; then with R8 the two halves of a mask
//	R9, R10  the halves of invalid, kept for newline
//	Y15 lut.lo in both lanes    Y14 lut.hi in both lanes
//	Y13 0x0F bytes              Y12 0x70 bytes
//	Y11 '\n' bytes              Y10 0x7C bytes
//	Y9  lut.lo2                 Y8  lut.hi2
//	Y7  zero
//	Y0-Y1 input, Y2-Y6 scratch
TEXT ·classifyAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ nblocks+16(FP), CX
	MOVQ lut+24(FP), AX

	VBROADCASTI128 nibbleLUT_lo(AX), Y15
	VBROADCASTI128 nibbleLUT_hi(AX), Y14
	VBROADCASTI128 nibbleLUT_lo2(AX), Y9
	VBROADCASTI128 nibbleLUT_hi2(AX), Y8
	VPBROADCASTB   nibbleLUT_nib(AX), Y13
	VPBROADCASTB   nibbleLUT_bias(AX), Y12
	VPBROADCASTB   nibbleLUT_nl(AX), Y11
	VPBROADCASTB   nibbleLUT_delimBias(AX), Y10
	VPXOR          Y7, Y7, Y7

loop:
	VMOVDQU (SI), Y0
	VMOVDQU 32(SI), Y1

	// High nibbles: the shift moves bits across bytes, the mask drops
	// them. The low-nibble lookups index with the bytes themselves:
	// VPSHUFB reads the low 4 bits of an index below 0x80 and writes 0
	// for one >= 0x80, so such a byte gets x = 0 (invalid) and x2 = 0.
	VPSRLW $4, Y0, Y2
	VPSRLW $4, Y1, Y3
	VPAND  Y13, Y2, Y2
	VPAND  Y13, Y3, Y3

	// x2 = lo2[low nibble] & hi2[high nibble], in Y4 and Y5
	VPSHUFB Y0, Y9, Y4
	VPSHUFB Y1, Y9, Y5
	VPSHUFB Y2, Y8, Y6
	VPAND   Y6, Y4, Y4
	VPSHUFB Y3, Y8, Y6
	VPAND   Y6, Y5, Y5

	// tail: x2 > 0, signed
	VPCMPGTB  Y7, Y4, Y6
	VPMOVMSKB Y6, AX
	VPCMPGTB  Y7, Y5, Y6
	VPMOVMSKB Y6, R8
	MOVL      AX, blockMasks_tail(DI)
	MOVL      R8, blockMasks_tail+4(DI)

	// delim: x2 >= 0x04, bit 7 of x2 + 0x7C (saturating)
	VPADDUSB  Y10, Y4, Y4
	VPMOVMSKB Y4, AX
	VPADDUSB  Y10, Y5, Y5
	VPMOVMSKB Y5, R8
	MOVL      AX, blockMasks_delim(DI)
	MOVL      R8, blockMasks_delim+4(DI)

	// x = lo[low nibble] & hi[high nibble], in Y4 and Y5 (the input
	// stays in Y0 and Y1 for the newline compare)
	VPSHUFB Y0, Y15, Y4
	VPSHUFB Y1, Y15, Y5
	VPSHUFB Y2, Y14, Y2
	VPSHUFB Y3, Y14, Y3
	VPAND   Y2, Y4, Y4
	VPAND   Y3, Y5, Y5

	// invalid: x == 0, in Y2 and Y3 and, as bits, R9 and R10
	VPCMPEQB  Y7, Y4, Y2
	VPCMPEQB  Y7, Y5, Y3
	VPMOVMSKB Y2, R9
	VPMOVMSKB Y3, R10
	MOVL      R9, blockMasks_invalid(DI)
	MOVL      R10, blockMasks_invalid+4(DI)

	// structural: x & 0xF0 != 0, read from bit 7 of x + 0x70 (saturating)
	VPADDUSB  Y12, Y4, Y4
	VPADDUSB  Y12, Y5, Y5
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, R8
	MOVL      AX, blockMasks_structural(DI)
	MOVL      R8, blockMasks_structural+4(DI)

	// newline: c == '\n'. '\n' is invalid, so where the block has no
	// other invalid byte (invalid XOR newline is zero in both halves),
	// newline is invalid and its bits are already in R9 and R10: one
	// VPTEST instead of two VPMOVMSKB, the instruction this kernel is
	// bound by. A block with another invalid byte extracts its own.
	VPCMPEQB Y11, Y0, Y0
	VPCMPEQB Y11, Y1, Y1
	VPTEST   Y2, Y0
	JCC      newlineOwn0

newlineHigh:
	VPTEST Y3, Y1
	JCC    newlineOwn1

newlineStore:
	MOVL R9, blockMasks_newline(DI)
	MOVL R10, blockMasks_newline+4(DI)

	ADDQ $64, SI
	ADDQ $blockMasks__size, DI
	DECQ CX
	JNZ  loop

	VZEROUPPER
	RET

newlineOwn0:
	VPMOVMSKB Y0, R9
	JMP       newlineHigh

newlineOwn1:
	VPMOVMSKB Y1, R10
	JMP       newlineStore
