//go:build gc && !purego && !noasm

#include "textflag.h"

// LT sets out to the mask of the block positions below x: bit j is set
// when base + j < x, base = BX, for x - base clamped to 0..64 (BZHI of the
// all-ones DX; DI holds 64). Clobbers t.
#define LT(x, out, t) \
	MOVQ    x, out        \
	SUBQ    BX, out       \
	MOVQ    out, t        \
	SARQ    $63, t        \
	ANDNQ   out, t, out   \
	CMPQ    out, DI       \
	CMOVQGT DI, out       \
	BZHIQ   out, DX, out

// MOVEMASK64 sets out to the 64-bit byte mask of the compare results lo
// (bytes 0-31) and hi (bytes 32-63). Clobbers t.
#define MOVEMASK64(lo, hi, out, t) \
	VPMOVMSKB lo, out \
	VPMOVMSKB hi, t   \
	SHLQ      $32, t  \
	ORQ       t, out

// func hintsAVX2(p *byte, n, hostEnd, pathStart, pathEnd int) uint
//
// 64 bytes per block, base BX the string position of its first byte.
// Accumulators: R10 "%" positions, AX upper-case positions before
// hostEnd, CX "/." pairs in the path (R14 carries a "/" ending the
// previous block). Each block's positions outside [0, n) are masked off.
TEXT ·hintsAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	XORQ BX, BX
	XORQ AX, AX
	XORQ CX, CX
	XORQ R10, R10
	XORQ R14, R14
	MOVQ $-1, DX
	MOVQ $64, DI

	MOVQ         $0x25, R11 // '%'
	VMOVQ        R11, X1
	VPBROADCASTB X1, Y1
	MOVQ         $0x2f, R11 // '/'
	VMOVQ        R11, X2
	VPBROADCASTB X2, Y2
	MOVQ         $0x2e, R11 // '.'
	VMOVQ        R11, X3
	VPBROADCASTB X3, Y3
	MOVQ         $0x40, R11 // 'A' - 1
	VMOVQ        R11, X4
	VPBROADCASTB X4, Y4
	MOVQ         $0x5b, R11 // 'Z' + 1
	VMOVQ        R11, X5
	VPBROADCASTB X5, Y5

loop:
	MOVQ n+8(FP), R11
	SUBQ BX, R11
	JLE  done
	CMPQ R11, $64
	JB   last

load:
	VMOVDQU (SI)(BX*1), Y0
	VMOVDQU 32(SI)(BX*1), Y8

	// "%" anywhere in [0, n).
	VPCMPEQB Y1, Y0, Y6
	VPCMPEQB Y1, Y8, Y7
	MOVEMASK64(Y6, Y7, R11, R12)
	LT($0, R8, R13)
	LT(n+8(FP), R9, R13)
	ANDNQ    R9, R8, R9
	ANDQ     R9, R11
	ORQ      R11, R10

	// 'A'-'Z' (signed compares: bytes >= 0x80 are below 'A') in
	// [0, hostEnd).
	VPCMPGTB Y4, Y0, Y6
	VPCMPGTB Y0, Y5, Y7
	VPAND    Y7, Y6, Y6
	VPCMPGTB Y4, Y8, Y7
	VPCMPGTB Y8, Y5, Y9
	VPAND    Y9, Y7, Y7
	MOVEMASK64(Y6, Y7, R11, R12)
	LT(hostEnd+16(FP), R9, R13)
	ANDNQ    R9, R8, R9
	ANDQ     R9, R11
	ORQ      R11, AX

	// "/" then "." with both in [pathStart, pathEnd).
	VPCMPEQB Y2, Y0, Y6
	VPCMPEQB Y2, Y8, Y7
	MOVEMASK64(Y6, Y7, R11, R12)
	VPCMPEQB Y3, Y0, Y6
	VPCMPEQB Y3, Y8, Y7
	MOVEMASK64(Y6, Y7, R12, R13)
	LT(pathStart+24(FP), R8, R13)
	LT(pathEnd+32(FP), R9, R13)
	ANDNQ    R9, R8, R9
	ANDQ     R9, R11
	ANDQ     R9, R12
	MOVQ     R11, R13
	SHLQ     $1, R13
	ORQ      R14, R13
	ANDQ     R13, R12
	ORQ      R12, CX
	SHRQ     $63, R11
	MOVQ     R11, R14

	ADDQ $64, BX
	JMP  loop

	// Fewer than 64 bytes left. Load the block at BX when it stays in
	// its page (the bytes past n are masked off); else the 64 bytes
	// ending at n, which lie in that page or in s because BX is in the
	// page's last 64 bytes. Positions of that window before BX were
	// seen with the "/" before them, so it starts with no carry.
last:
	LEAQ (SI)(BX*1), R12
	ANDQ $4095, R12
	CMPQ R12, $4032
	JBE  load
	MOVQ n+8(FP), BX
	SUBQ $64, BX
	XORQ R14, R14
	JMP  load

done:
	VZEROUPPER
	XORQ  R11, R11
	TESTQ R10, R10
	JZ    noPct
	ORQ   $1, R11

noPct:
	TESTQ AX, AX
	JZ    noUpper
	ORQ   $2, R11

noUpper:
	TESTQ CX, CX
	JZ    noDot
	ORQ   $4, R11

noDot:
	MOVQ R11, ret+40(FP)
	RET
