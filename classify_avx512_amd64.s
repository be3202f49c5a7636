//go:build gc && !purego && !noasm

#include "textflag.h"
#include "go_asm.h"

// func classifyAVX512(dst *blockMasks, src *byte, n int, class *[128]uint8)
// Requires: AVX512F, AVX512BW, AVX512VBMI
//
// One 64-byte register per block. VPERMI2B looks every byte up in the
// 128-entry class table (kernelClass128: 1 invalid, 2 structural,
// 4 newline, 8 tail, 16 delim) held in two registers. It ignores bit 7 of the index, so a
// byte >= 0x80 gets the class of byte&0x7f: its sign bit (VPMOVB2M) makes
// it invalid and masks it out of the structural and newline tests. The last
// partial block is read with a zeroing masked load, which neither reads
// nor faults past src[n-1], and its masks are cut to its length.
//
// Register map:
//	DI  dst (advances by blockMasks__size)
//	SI  src (advances by 64)
//	CX  bytes left
//	Z30 class[0:64]   Z31 class[64:128]
//	Z29 0x01 bytes    Z28 0x02 bytes    Z27 0x04 bytes    Z26 0x08 bytes
//	Z25 0x10 bytes
//	Z0  input, then classes
//	K1  sign bits  K2 invalid  K3 structural  K4 newline, then delim  K7 tail
//	K5  tail lanes K6 lanes below 0x80 (in the tail: and inside the input)
TEXT ·classifyAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ class+24(FP), AX

	VMOVDQU64    (AX), Z30
	VMOVDQU64    64(AX), Z31
	MOVL         $0x01010101, AX
	VPBROADCASTD AX, Z29
	MOVL         $0x02020202, AX
	VPBROADCASTD AX, Z28
	MOVL         $0x04040404, AX
	VPBROADCASTD AX, Z27
	MOVL         $0x08080808, AX
	VPBROADCASTD AX, Z26
	MOVL         $0x10101010, AX
	VPBROADCASTD AX, Z25

	CMPQ CX, $64
	JB   tail

loop:
	VMOVDQU8 (SI), Z0
	VPMOVB2M Z0, K1
	KNOTQ    K1, K6
	VPERMI2B Z31, Z30, Z0
	VPTESTMB Z29, Z0, K2
	KORQ     K1, K2, K2
	VPTESTMB Z28, Z0, K6, K3
	VPTESTMB Z27, Z0, K6, K4
	VPTESTMB Z26, Z0, K6, K7
	VPTESTMB Z25, Z0, K6, K5
	KMOVQ    K2, blockMasks_invalid(DI)
	KMOVQ    K3, blockMasks_structural(DI)
	KMOVQ    K4, blockMasks_newline(DI)
	KMOVQ    K7, blockMasks_tail(DI)
	KMOVQ    K5, blockMasks_delim(DI)

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

	VMOVDQU8.Z (SI), K5, Z0
	VPMOVB2M   Z0, K1
	KANDNQ     K5, K1, K6
	VPERMI2B   Z31, Z30, Z0
	VPTESTMB   Z29, Z0, K5, K2
	KORQ       K1, K2, K2
	VPTESTMB   Z28, Z0, K6, K3
	VPTESTMB   Z27, Z0, K6, K4
	VPTESTMB   Z26, Z0, K6, K7
	KMOVQ      K2, AX
	KMOVQ      K3, R8
	KMOVQ      K4, R9
	KMOVQ      K7, R10
	MOVQ       AX, blockMasks_invalid(DI)
	MOVQ       R8, blockMasks_structural(DI)
	MOVQ       R9, blockMasks_newline(DI)
	MOVQ       R10, blockMasks_tail(DI)
	VPTESTMB   Z25, Z0, K6, K4
	KMOVQ      K4, R11
	MOVQ       R11, blockMasks_delim(DI)

done:
	VZEROUPPER
	RET
