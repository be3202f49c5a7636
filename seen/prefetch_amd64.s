//go:build gc && !purego && !noasm

#include "textflag.h"

// func prefetchSlots(t []slot, mask uint64, keys []Key)
TEXT ·prefetchSlots(SB), NOSPLIT, $0-56
	MOVQ t_base+0(FP), AX
	MOVQ mask+24(FP), BX
	MOVQ keys_base+32(FP), SI
	MOVQ keys_len+40(FP), CX
	TESTQ CX, CX
	JEQ  done

loop:
	MOVQ       (SI), DX // the key's low word: its home slot
	ANDQ       BX, DX
	SHLQ       $4, DX // 16 bytes a slot
	PREFETCHT0 (AX)(DX*1)
	ADDQ       $16, SI
	DECQ       CX
	JNZ        loop

done:
	RET
