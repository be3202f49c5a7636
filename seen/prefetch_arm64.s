//go:build gc && !purego && !noasm

#include "textflag.h"

// func prefetchSlots(t []slot, mask uint64, keys []Key)
TEXT ·prefetchSlots(SB), NOSPLIT, $0-56
	MOVD t_base+0(FP), R0
	MOVD mask+24(FP), R1
	MOVD keys_base+32(FP), R2
	MOVD keys_len+40(FP), R3
	CBZ  R3, done

loop:
	MOVD (R2), R4 // the key's low word: its home slot
	AND  R1, R4, R4
	ADD  R4<<4, R0, R5 // 16 bytes a slot
	PRFM (R5), PLDL1KEEP
	ADD  $16, R2
	SUB  $1, R3
	CBNZ R3, loop

done:
	RET
