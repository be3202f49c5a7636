//go:build gc && !purego && !noasm

#include "go_asm.h"
#include "textflag.h"

// Every offset, size, flags word and stop code here comes from go_asm.h:
// uriFields_* and span_end from the types, const_fastOff* (the spans),
// const_fastFlags* (the word at uriFields.defined) and const_fastStop*
// from fastbatch.go, blockMasks_* from classify_generic.go; the out
// records' stride is uriFields__size, their count the argument nout.
// A record's tail events (at most two offsets) are parked in its query
// and fragment spans, their count in the flags word, until its end is
// known; every path that stores a record writes both spans and the word.

// WORD sets dst to the 64 mask bits of blockMasks field off from bit sh
// (AX) of the block at DX, continued in the next block (field hioff from
// DX; R12 = 63 - sh: the second shift is split so that no count reaches
// 64), keeping the record's n (R8) bytes. Clobbers tmp.
#define WORD(off, hioff, dst, tmp) \
	SHRXQ AX, off(DX), dst \
	MOVQ  hioff(DX), tmp   \
	ADDQ  tmp, tmp         \
	SHLXQ R12, tmp, tmp    \
	ORQ   tmp, dst         \
	BZHIQ R8, dst, dst

// WORDNOCUT is WORD without the cut at the record's n bytes.
#define WORDNOCUT(off, hioff, dst, tmp) \
	SHRXQ AX, off(DX), dst \
	MOVQ  hioff(DX), tmp   \
	ADDQ  tmp, tmp         \
	SHLXQ R12, tmp, tmp    \
	ORQ   tmp, dst

// HEXDIG jumps to done unless the byte in c is a HEXDIG ("0" to "9", "a"
// to "f" in either case: pctAt's test). Clobbers c and t.
#define HEXDIG(c, t) \
	LEAL  -48(c), t \
	CMPL  t, $10    \
	SETCS t         \
	ORL   $0x20, c  \
	SUBL  $97, c    \
	CMPL  c, $6     \
	SETCS c         \
	ORB   t, c      \
	JZ    done

// PCT jumps to done unless the "%" at src[abs] begins a pct-encoded: two
// HEXDIGs, both before the input's end (pctAt's test). Clobbers AX, R12.
#define PCT(abs) \
	LEAQ    2(abs), AX            \
	CMPQ    AX, srclen+32(FP)     \
	JAE     done                  \
	MOVBLZX 1(SI)(abs*1), AX      \
	HEXDIG(AX, R12)               \
	MOVBLZX 2(SI)(abs*1), AX      \
	HEXDIG(AX, R12)

// func fastBatchBMI2(m *blockMasks, nblk, win int, src *byte, srclen, pos int, out *uriFields, nout int) (n, stop int)
//
// The same steps as (*walker).fast for its most common shape; any record
// that needs more leaves the loop, and Go takes it.
TEXT ·fastBatchBMI2(SB), NOSPLIT, $0-80
	MOVQ   m+0(FP), DI
	MOVQ   src+24(FP), SI
	MOVQ   pos+40(FP), BX
	MOVQ   out+48(FP), R10
	MOVQ   nout+56(FP), R14
	IMUL3Q $uriFields__size, R14, R14
	ADDQ   R10, R14         // the end of out; n is counted from R10 at ret

loop:
	CMPQ R10, R14
	JAE  full

	// The record's block k in the window, and its offset sh in it. The
	// block after it is blockMasks__size bytes on: m[nblk] is all zeros.
	MOVQ BX, AX
	SUBQ win+16(FP), AX
	MOVQ AX, CX
	SHRQ $6, CX
	CMPQ CX, nblk+8(FP)
	JAE  window
	ANDQ $63, AX
	IMUL3Q $blockMasks__size, CX, DX
	ADDQ   DI, DX           // &m[k]
	MOVQ AX, R12
	XORQ $63, R12

	// n: the record's length, its "\n" in the first 64 bytes.
	SHRXQ  AX, blockMasks_newline(DX), R8
	MOVQ   blockMasks__size+blockMasks_newline(DX), R9
	ADDQ   R9, R9
	SHLXQ  R12, R9, R9
	ORQ    R9, R8
	TZCNTQ R8, R8           // 64 when there is none: a long record
	JCC    found
	INCQ   CX
	CMPQ   CX, nblk+8(FP)
	JAE    window           // the record may go on past the window
	LEAQ   64(BX), R9
	CMPQ   R9, srclen+32(FP)
	JAE    done             // or the input ends first: Go

found:
	WORD(blockMasks_invalid, blockMasks__size+blockMasks_invalid, R11, R9) // none allowed
	TESTQ R11, R11
	JNZ   done
	WORD(blockMasks_structural, blockMasks__size+blockMasks_structural, R11, R9)
	WORDNOCUT(blockMasks_delim, blockMasks__size+blockMasks_delim, R13, R9) // the host's end is clamped to n
	WORD(blockMasks_tail, blockMasks__size+blockMasks_tail, R9, CX)

	// scheme ":" with scheme "http", "https" or "file".
	TZCNTQ R11, AX          // f: the first structural byte
	JCS    done
	LEAQ   (SI)(BX*1), DX   // the record
	CMPB   (DX)(AX*1), $0x3a
	JNE    done
	CMPQ   AX, $5           // the scheme's length first: its bytes are then in the record
	JNE    scheme4
	CMPL   (DX), $0x70747468 // "https"
	JNE    done
	CMPB   4(DX), $0x73
	JNE    done
	JMP    schemeok

scheme4:
	CMPQ AX, $4
	JNE  done
	CMPL (DX), $0x70747468 // "http"
	JEQ  schemeok
	CMPL (DX), $0x656c6966 // "file"
	JNE  done

schemeok:
	// "//", both bytes before the record's end (nothing past it is read)
	LEAQ 2(AX), CX
	CMPQ CX, R8
	JAE  done
	CMPW 1(DX)(AX*1), $0x2f2f
	JNE  done

	// The host runs from a = f+3 to the first "/", "?" or "#" (p), or to
	// the end, with no structural byte in it.
	LEAQ    3(AX), CX
	MOVQ    $-1, R12
	SHLXQ   CX, R12, R12
	ANDQ    R12, R13
	ANDQ    R12, R11
	TZCNTQ  R13, R12
	CMPQ    R12, R8
	CMOVQHI R8, R12
	CMPQ    R12, $64
	JAE     done            // a long record's host must end in its first word
	BZHIQ   R12, R11, R11
	JNZ     done

	// A host of 7 bytes or more that ends in a digit may be an
	// IPv4address: Go decides.
	MOVQ R12, R11
	SUBQ CX, R11
	CMPQ R11, $7
	JB   hostok
	CMPB -1(DX)(R12*1), $0x39
	JLS  done

hostok:
	// R9 holds the tail events after the host, and only those: a tail
	// byte is structural, and before the host's end the only structural
	// bytes are the ":" and "//" after the scheme.
	MOVL BX, uriFields_start(R10)
	MOVL BX, const_fastOffScheme(R10)
	LEAQ (BX)(AX*1), R11
	MOVL R11, const_fastOffScheme+span_end(R10)
	LEAQ 3(BX)(AX*1), R11
	MOVL R11, const_fastOffHost(R10)
	LEAQ (BX)(R12*1), R11
	MOVL R11, const_fastOffHost+span_end(R10)
	MOVL R11, const_fastOffPath(R10)

	// The tail events (at most two, offsets in the record) wait in the
	// query and fragment spans (one span apart, as fastbatch.go asserts), their
	// count in the flags word, until the record's end is known. A "%" is
	// no event: it must begin a pct-encoded, checked here as pctAt does
	// (two HEXDIGs, before the input's end).
	TESTQ R9, R9
	JNZ   heads
	CMPQ  R8, $64
	JEQ   long

	// The most common record: no event, under 64 bytes.
	LEAQ (BX)(R8*1), R11
	MOVL R11, uriFields_end(R10)
	MOVL R11, const_fastOffPath+span_end(R10)
	MOVQ $const_fastFlagsPath, uriFields_defined(R10)
	JMP  next

heads:
	MOVL $0, uriFields_defined(R10)

headev:
	TZCNTQ R9, R13
	CMPB   (DX)(R13*1), $0x25 // "%"
	JNE    headevent
	LEAQ   (BX)(R13*1), R11
	PCT(R11)
	JMP    headnext

headevent:
	MOVL uriFields_defined(R10), CX
	CMPL CX, $2
	JAE  done                                 // a third event
	MOVL R13, const_fastOffQuery(R10)(CX*8)   // the query span, then the fragment's
	INCL CX
	MOVL CX, uriFields_defined(R10)

headnext:
	BLSRQ R9, R9
	JNZ   headev

	CMPQ R8, $64
	JNE  finish
	JMP  longwords

long:
	MOVL $0, uriFields_defined(R10)

	// A record of 64 bytes or more: its path, query and fragment run on,
	// word by word, to its "\n".
longwords:
	MOVQ $64, CX            // the word's offset in the record

longloop:
	MOVQ BX, AX
	SUBQ win+16(FP), AX
	ANDQ $63, AX            // sh, the same for every word
	MOVQ AX, R12
	XORQ $63, R12           // (both again each word: the "%" check below takes them)
	MOVQ BX, R8
	SUBQ win+16(FP), R8
	ADDQ CX, R8
	SHRQ $6, R8             // its first block
	CMPQ R8, nblk+8(FP)
	JAE  window
	IMUL3Q $blockMasks__size, R8, R8
	ADDQ   DI, R8
	LEAQ   blockMasks__size(R8), R9 // the next block, or the zero m[nblk]

	// nn: the "\n" in this word, 64 if none
	SHRXQ  AX, blockMasks_newline(R8), R11
	MOVQ   blockMasks_newline(R9), R13
	ADDQ   R13, R13
	SHLXQ  R12, R13, R13
	ORQ    R13, R11
	TZCNTQ R11, R11

	// no invalid byte before it
	SHRXQ AX, blockMasks_invalid(R8), DX
	MOVQ  blockMasks_invalid(R9), R13
	ADDQ  R13, R13
	SHLXQ R12, R13, R13
	ORQ   R13, DX
	BZHIQ R11, DX, DX
	JNZ   done

	// its tail events
	SHRXQ AX, blockMasks_tail(R8), DX
	MOVQ  blockMasks_tail(R9), R13
	ADDQ  R13, R13
	SHLXQ R12, R13, R13
	ORQ   R13, DX
	BZHIQ R11, DX, DX
	JZ    longnext

longev:
	TZCNTQ DX, R13
	ADDQ   CX, R13
	LEAQ   (BX)(R13*1), R9
	CMPB   (SI)(R9*1), $0x25 // "%": pct-encoded, checked, not an event
	JNE    longevent
	PCT(R9)
	JMP    longev1next

longevent:
	MOVL   uriFields_defined(R10), R8
	CMPL   R8, $1
	JA     done             // a third event
	JEQ    longev2
	MOVL   R13, const_fastOffQuery(R10)
	JMP    longev1

longev2:
	MOVL R13, const_fastOffFrag(R10)

longev1:
	INCL  R8
	MOVL  R8, uriFields_defined(R10)

longev1next:
	BLSRQ DX, DX
	JNZ   longev

longnext:
	CMPQ R11, $64
	JNE  longend
	ADDQ $64, CX
	JMP  longloop

longend:
	LEAQ (CX)(R11*1), R8    // n
	LEAQ (SI)(BX*1), DX

	// The record ends at n (R8); the path ends at the first event, which
	// must be "?" or "#"; after a "?", only one "#" may follow.
finish:
	LEAQ  (BX)(R8*1), R11
	MOVL  R11, uriFields_end(R10)
	MOVL  uriFields_defined(R10), R13
	TESTL R13, R13
	JNZ   withevents
	MOVL  R11, const_fastOffPath+span_end(R10)
	MOVQ  $const_fastFlagsPath, uriFields_defined(R10)
	JMP   next

withevents:
	MOVL const_fastOffQuery(R10), CX
	LEAQ (BX)(CX*1), R9
	MOVL R9, const_fastOffPath+span_end(R10)
	INCL R9                 // where a query or fragment starts
	CMPB (DX)(CX*1), $0x3f
	JNE  fragment
	MOVL R9, const_fastOffQuery(R10)
	CMPL R13, $1
	JNE  queryfragment
	MOVL R11, const_fastOffQuery+span_end(R10)
	MOVQ $const_fastFlagsQuery, uriFields_defined(R10)
	JMP  next

queryfragment:
	MOVL const_fastOffFrag(R10), CX
	CMPB (DX)(CX*1), $0x23
	JNE  done
	LEAQ (BX)(CX*1), R13
	MOVL R13, const_fastOffQuery+span_end(R10)
	INCL R13
	MOVL R13, const_fastOffFrag(R10)
	MOVL R11, const_fastOffFrag+span_end(R10)
	MOVQ $const_fastFlagsBoth, uriFields_defined(R10)
	JMP  next

fragment:
	CMPL R13, $1
	JNE  done
	CMPB (DX)(CX*1), $0x23
	JNE  done
	MOVL R9, const_fastOffFrag(R10)
	MOVL R11, const_fastOffFrag+span_end(R10)
	MOVQ $0, const_fastOffQuery(R10) // the parked event: no query
	MOVQ $const_fastFlagsFragment, uriFields_defined(R10)

next:
	LEAQ 1(BX)(R8*1), BX
	ADDQ $uriFields__size, R10
	JMP  loop

full:
	MOVQ $const_fastStopFull, R11
	JMP  ret

window:
	MOVQ $const_fastStopWindow, R11
	JMP  ret

done:
	MOVQ $const_fastStopShape, R11

ret:
	MOVQ R11, stop+72(FP)
	MOVQ R10, AX            // n = (R10 - out) / uriFields__size
	SUBQ out+48(FP), AX
	XORL DX, DX
	MOVQ $uriFields__size, CX
	DIVQ CX
	MOVQ AX, n+64(FP)
	RET
