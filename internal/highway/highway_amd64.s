//go:build gc && !purego && !noasm

#include "textflag.h"

// zipperMerge is HighwayHash's byte permutation within each 128-bit half
// (the same VPSHUFB table as minio/highwayhash's AVX2 code).
DATA zipper<>+0x00(SB)/8, $0x000f010e05020c03
DATA zipper<>+0x08(SB)/8, $0x070806090d0a040b
DATA zipper<>+0x10(SB)/8, $0x000f010e05020c03
DATA zipper<>+0x18(SB)/8, $0x070806090d0a040b
GLOBL zipper<>(SB), RODATA|NOPTR, $32

// iota holds the bytes 0..31, compared against the count of bytes to keep.
DATA iota<>+0x00(SB)/8, $0x0706050403020100
DATA iota<>+0x08(SB)/8, $0x0f0e0d0c0b0a0908
DATA iota<>+0x10(SB)/8, $0x1716151413121110
DATA iota<>+0x18(SB)/8, $0x1f1e1d1c1b1a1918
GLOBL iota<>(SB), RODATA|NOPTR, $32

// UPDATE is one HighwayHash round of msg into the state
// v0=Y1, v1=Y2, mul0=Y3, mul1=Y4 with Y5 = zipper and Y0 a scratch:
//   v1 += mul0 + msg;  mul0 ^= (v0>>32) * lo32(v1)
//   v0 += mul1;        mul1 ^= (v1>>32) * lo32(v0)
//   v0 += zipper(v1);  v1 += zipper(v0)
#define UPDATE(msg, v0, v1, mul0, mul1, t) \
	VPADDQ   msg, v1, v1   \
	VPADDQ   mul0, v1, v1  \
	VPSRLQ   $32, v0, t    \
	VPMULUDQ v1, t, t      \
	VPXOR    t, mul0, mul0 \
	VPADDQ   mul1, v0, v0  \
	VPSRLQ   $32, v1, t    \
	VPMULUDQ v0, t, t      \
	VPXOR    t, mul1, mul1 \
	VPSHUFB  Y5, v1, t     \
	VPADDQ   t, v0, v0     \
	VPSHUFB  Y5, v0, t     \
	VPADDQ   t, v1, v1

// PERMUTE_UPDATE is one finalisation round: the packet is v0 with its
// 128-bit halves swapped and each 64-bit lane rotated by 32.
#define PERMUTE_UPDATE(v0, v1, mul0, mul1, t) \
	VPERM2I128 $1, v0, v0, t \
	VPSHUFD    $0xb1, t, t   \
	UPDATE(t, v0, v1, mul0, mul1, t)

// ADJUST prepares the state for a last packet of r = R8 bytes (1..31):
// v0 += r in both 32-bit halves of every lane, and each 32-bit half of v1
// rotated left by r. Clobbers R9, R10, Y13-Y15.
#define ADJUST(v0, v1) \
	MOVQ         R8, R9      \
	SHLQ         $32, R9     \
	ORQ          R8, R9      \
	VMOVQ        R9, X13     \
	VPBROADCASTQ X13, Y13    \
	VPADDQ       Y13, v0, v0 \
	VMOVQ        R8, X13     \
	MOVQ         $32, R10    \
	SUBQ         R8, R10     \
	VMOVQ        R10, X14    \
	VPSLLD       X13, v1, Y15 \
	VPSRLD       X14, v1, v1 \
	VPOR         Y15, v1, v1

// lastPacket<> builds HighwayHash's last packet (the reference's
// hashBuffer) in Y13 from the r = R8 bytes (1..31) at DX: the r&^3 bytes
// of whole 4-byte groups at offset 0, then for r >= 16 the last four
// bytes at offset 28, else for r&3 != 0 the bytes at r&^3,
// r&^3 + (r&3)>>1 and r-1 at offset 16; zeros elsewhere.
//
// It loads the 32 bytes at DX and masks off those past r&^3. That load
// cannot fault when it stays in DX's page; otherwise DX is within 32 bytes
// of its page end, so the 32 bytes ending at DX+r (the message's end) lie
// in DX's page or the message: those are stored to the frame followed by
// zeros, and DX points at the copy.
// Clobbers R9-R11, Y14, Y15.
TEXT lastPacket<>(SB), NOSPLIT, $64
	MOVQ         DX, R9
	ANDQ         $4095, R9
	CMPQ         R9, $4064
	JBE          load
	VMOVDQU      -32(DX)(R8*1), Y13
	VMOVDQU      Y13, 0(SP)
	VPXOR        Y13, Y13, Y13
	VMOVDQU      Y13, 32(SP)
	LEAQ         32(SP), DX
	SUBQ         R8, DX

load:
	VMOVDQU      (DX), Y13
	MOVQ         R8, R9
	ANDQ         $~3, R9
	VMOVQ        R9, X14
	VPBROADCASTB X14, Y14
	VMOVDQU      iota<>(SB), Y15
	VPCMPGTB     Y15, Y14, Y14
	VPAND        Y14, Y13, Y13
	CMPQ         R8, $16
	JB           short
	MOVL         -4(DX)(R8*1), R10
	VMOVQ        R10, X14
	VPBROADCASTD X14, Y14
	VPBLENDD     $0x80, Y14, Y13, Y13
	RET

short:
	MOVQ         R8, R11
	ANDQ         $3, R11
	JZ           done
	MOVBLZX      (DX)(R9*1), R10
	SHRQ         $1, R11
	ADDQ         R9, R11
	MOVBLZX      (DX)(R11*1), R11
	SHLL         $8, R11
	ORL          R11, R10
	MOVBLZX      -1(DX)(R8*1), R11
	SHLL         $16, R11
	ORL          R11, R10
	VMOVQ        R10, X14
	VPBROADCASTD X14, Y14
	VPBLENDD     $0x10, Y14, Y13, Y13

done:
	RET

// DIGEST leaves in x0 (the X register of v0) the digest: lane i (i = 0,
// 1) = v0[i] + mul0[i] + v1[i+2] + mul1[i+2].
#define DIGEST(v0, v1, mul0, mul1, x0) \
	VPADDQ       mul0, v0, v0 \
	VPADDQ       mul1, v1, v1 \
	VEXTRACTI128 $1, v1, X13  \
	VPADDQ       X13, x0, x0

// func sum128AVX2(state *[16]uint64, msg []byte, out *[16]byte)
TEXT ·sum128AVX2(SB), NOSPLIT, $0-40
	MOVQ state+0(FP), AX
	MOVQ msg_base+8(FP), BX
	MOVQ msg_len+16(FP), CX
	MOVQ CX, R8
	ANDQ $31, R8
	ANDQ $~31, CX

	VMOVDQU 0(AX), Y1
	VMOVDQU 32(AX), Y2
	VMOVDQU 64(AX), Y3
	VMOVDQU 96(AX), Y4
	VMOVDQU zipper<>(SB), Y5

	TESTQ CX, CX
	JZ    tail

packets:
	VMOVDQU (BX), Y12
	UPDATE(Y12, Y1, Y2, Y3, Y4, Y0)
	ADDQ    $32, BX
	SUBQ    $32, CX
	JNZ     packets

tail:
	TESTQ R8, R8
	JZ    final
	MOVQ  BX, DX
	ADJUST(Y1, Y2)
	CALL  lastPacket<>(SB)
	UPDATE(Y13, Y1, Y2, Y3, Y4, Y0)

final:
	PERMUTE_UPDATE(Y1, Y2, Y3, Y4, Y0)
	PERMUTE_UPDATE(Y1, Y2, Y3, Y4, Y0)
	PERMUTE_UPDATE(Y1, Y2, Y3, Y4, Y0)
	PERMUTE_UPDATE(Y1, Y2, Y3, Y4, Y0)
	PERMUTE_UPDATE(Y1, Y2, Y3, Y4, Y0)
	PERMUTE_UPDATE(Y1, Y2, Y3, Y4, Y0)

	MOVQ out+32(FP), DI
	DIGEST(Y1, Y2, Y3, Y4, X1)
	VMOVDQU X1, (DI)
	VZEROUPPER
	RET
