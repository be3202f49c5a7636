//go:build gc && !purego && !noasm

#include "textflag.h"
#include "go_asm.h"

// func classifyNEON(dst *blockMasks, src *byte, nblocks int, lut *nibbleLUT)
// Requires: NEON (ASIMD)
//
// Two-nibble lookup (see nibbleLUT in classify_tables.go), 16 bytes per
// register, four registers per 64-byte block:
//	x          = lut.lo[c & 15] & lut.hi[c >> 4]     (VTBL, VTBL, VAND)
//	invalid    = x == 0                   (VCMTST x, x; the mask is inverted)
//	structural = x & 0xF0 != 0                       (VCMTST with 0xF0)
//	newline    = c == '\n'                           (VCMEQ with 0x0A)
//	x2         = lut.lo2[c & 15] & lut.hi2[c >> 4]   (VTBL, VTBL, VAND)
//	tail       = x2 & 0x0F != 0                      (VCMTST with 0x0F)
//	delim      = x2 & 0x8C != 0                      (VCMTST with 0x8C)
//
// NEON has no movemask. Each compare result (0x00 or 0xFF per byte) is
// ANDed with the bit weights 1, 2, 4, ..., 128 (byte i keeps bit i%8),
// and three rounds of pairwise adds (VADDP) sum each run of 8 bytes into
// one byte, in order: 64 bytes -> 32 -> 16 -> 8, so byte k of the result
// is bits 8k..8k+7 of the mask, as in internal/bytealg/indexbyte_arm64.s.
// The last round pairs the masks: invalid and structural in V20, newline
// and tail in V22, delim in V21. The delim mask is reduced as soon as it
// is computed, to free its registers.
//
// Register map:
//	R0  dst (advances by blockMasks__size)
//	R1  src (advances by 64, post-increment load)
//	R2  blocks left
//	R3  lut; then R3-R7 the five masks of a block
//	V31 lut.lo              V30 lut.hi
//	V29 0x0F bytes          V28 0xF0 bytes
//	V27 '\n' bytes          V26 bit weights 0x01..0x80 repeated
//	V25 0x8C bytes (set each block), then the delim sums
//	V24 lut.lo2             V23 lut.hi2
//	V0-V3   input
//	V4-V7   high nibbles, then hi[...], then x, then structural compares
//	V8-V11  low nibbles, then lo[...], then valid compares
//	V12-V15 x2, then tail compares
//	V16-V19 newline compares
//	V20-V22 scratch, then pairwise sums (V9 too)
TEXT ·classifyNEON(SB), NOSPLIT, $0-32
	MOVD dst+0(FP), R0
	MOVD src+8(FP), R1
	MOVD nblocks+16(FP), R2
	MOVD lut+24(FP), R3

	FMOVQ nibbleLUT_lo(R3), F31
	FMOVQ nibbleLUT_hi(R3), F30
	FMOVQ nibbleLUT_lo2(R3), F24
	FMOVQ nibbleLUT_hi2(R3), F23
	VMOVI $0x0f, V29.B16
	VMOVI $0xf0, V28.B16
	VMOVI $0x0a, V27.B16
	MOVD  $0x8040201008040201, R4
	VMOV  R4, V26.D2

loop:
	VLD1.P 64(R1), [V0.B16, V1.B16, V2.B16, V3.B16]
	VMOVI  $0x8c, V25.B16

	// Nibbles: a byte-lane shift needs no mask for the high nibble.
	VUSHR $4, V0.B16, V4.B16
	VUSHR $4, V1.B16, V5.B16
	VUSHR $4, V2.B16, V6.B16
	VUSHR $4, V3.B16, V7.B16
	VAND  V29.B16, V0.B16, V8.B16
	VAND  V29.B16, V1.B16, V9.B16
	VAND  V29.B16, V2.B16, V10.B16
	VAND  V29.B16, V3.B16, V11.B16

	// x2 = lo2[low nibble] & hi2[high nibble]
	VTBL V8.B16, [V24.B16], V12.B16
	VTBL V4.B16, [V23.B16], V20.B16
	VAND V20.B16, V12.B16, V12.B16
	VTBL V9.B16, [V24.B16], V13.B16
	VTBL V5.B16, [V23.B16], V21.B16
	VAND V21.B16, V13.B16, V13.B16
	VTBL V10.B16, [V24.B16], V14.B16
	VTBL V6.B16, [V23.B16], V22.B16
	VAND V22.B16, V14.B16, V14.B16
	VTBL V11.B16, [V24.B16], V15.B16
	VTBL V7.B16, [V23.B16], V20.B16
	VAND V20.B16, V15.B16, V15.B16

	// delim: x2 & 0x8C != 0, weighted and summed 64 -> 16 bytes into V25
	VCMTST V25.B16, V12.B16, V20.B16
	VCMTST V25.B16, V13.B16, V21.B16
	VAND   V26.B16, V20.B16, V20.B16
	VAND   V26.B16, V21.B16, V21.B16
	VADDP  V21.B16, V20.B16, V20.B16
	VCMTST V25.B16, V14.B16, V21.B16
	VCMTST V25.B16, V15.B16, V22.B16
	VAND   V26.B16, V21.B16, V21.B16
	VAND   V26.B16, V22.B16, V22.B16
	VADDP  V22.B16, V21.B16, V21.B16
	VADDP  V21.B16, V20.B16, V25.B16

	// tail: x2 & 0x0F != 0
	VCMTST V29.B16, V12.B16, V12.B16
	VCMTST V29.B16, V13.B16, V13.B16
	VCMTST V29.B16, V14.B16, V14.B16
	VCMTST V29.B16, V15.B16, V15.B16

	// newline: c == '\n'
	VCMEQ V27.B16, V0.B16, V16.B16
	VCMEQ V27.B16, V1.B16, V17.B16
	VCMEQ V27.B16, V2.B16, V18.B16
	VCMEQ V27.B16, V3.B16, V19.B16

	// x = lo[low nibble] & hi[high nibble]
	VTBL V4.B16, [V30.B16], V4.B16
	VTBL V5.B16, [V30.B16], V5.B16
	VTBL V6.B16, [V30.B16], V6.B16
	VTBL V7.B16, [V30.B16], V7.B16
	VTBL V8.B16, [V31.B16], V8.B16
	VTBL V9.B16, [V31.B16], V9.B16
	VTBL V10.B16, [V31.B16], V10.B16
	VTBL V11.B16, [V31.B16], V11.B16
	VAND V8.B16, V4.B16, V4.B16
	VAND V9.B16, V5.B16, V5.B16
	VAND V10.B16, V6.B16, V6.B16
	VAND V11.B16, V7.B16, V7.B16

	// valid: x != 0 (inverted to invalid after the reduction)
	VCMTST V4.B16, V4.B16, V8.B16
	VCMTST V5.B16, V5.B16, V9.B16
	VCMTST V6.B16, V6.B16, V10.B16
	VCMTST V7.B16, V7.B16, V11.B16

	// structural: x & 0xF0 != 0 (in place: x is not needed any more)
	VCMTST V28.B16, V4.B16, V4.B16
	VCMTST V28.B16, V5.B16, V5.B16
	VCMTST V28.B16, V6.B16, V6.B16
	VCMTST V28.B16, V7.B16, V7.B16

	// Keep bit i%8 of each byte i.
	VAND V26.B16, V4.B16, V4.B16
	VAND V26.B16, V5.B16, V5.B16
	VAND V26.B16, V6.B16, V6.B16
	VAND V26.B16, V7.B16, V7.B16
	VAND V26.B16, V8.B16, V8.B16
	VAND V26.B16, V9.B16, V9.B16
	VAND V26.B16, V10.B16, V10.B16
	VAND V26.B16, V11.B16, V11.B16
	VAND V26.B16, V12.B16, V12.B16
	VAND V26.B16, V13.B16, V13.B16
	VAND V26.B16, V14.B16, V14.B16
	VAND V26.B16, V15.B16, V15.B16
	VAND V26.B16, V16.B16, V16.B16
	VAND V26.B16, V17.B16, V17.B16
	VAND V26.B16, V18.B16, V18.B16
	VAND V26.B16, V19.B16, V19.B16

	// 64 -> 32 bytes per mask (VADDP Vm, Vn, Vd: Vn's sums go low).
	VADDP V9.B16, V8.B16, V8.B16
	VADDP V11.B16, V10.B16, V10.B16
	VADDP V5.B16, V4.B16, V4.B16
	VADDP V7.B16, V6.B16, V6.B16
	VADDP V13.B16, V12.B16, V12.B16
	VADDP V15.B16, V14.B16, V14.B16
	VADDP V17.B16, V16.B16, V16.B16
	VADDP V19.B16, V18.B16, V18.B16

	// 32 -> 16 bytes per mask
	VADDP V10.B16, V8.B16, V20.B16  // invalid
	VADDP V6.B16, V4.B16, V21.B16   // structural
	VADDP V18.B16, V16.B16, V22.B16 // newline
	VADDP V14.B16, V12.B16, V9.B16  // tail

	// 16 -> 8 bytes: V20 = valid | structural<<64,
	// V22 = newline | tail<<64, V21 = delim
	VADDP V21.B16, V20.B16, V20.B16
	VADDP V9.B16, V22.B16, V22.B16
	VADDP V25.B16, V25.B16, V21.B16

	VMOV V20.D[0], R3
	VMOV V20.D[1], R4
	VMOV V22.D[0], R5
	VMOV V22.D[1], R6
	VMOV V21.D[0], R7
	MVN  R3, R3
	MOVD R3, blockMasks_invalid(R0)
	MOVD R4, blockMasks_structural(R0)
	MOVD R5, blockMasks_newline(R0)
	MOVD R6, blockMasks_tail(R0)
	MOVD R7, blockMasks_delim(R0)

	ADD  $blockMasks__size, R0
	SUBS $1, R2
	BNE  loop

	RET
