//go:build gc && !purego && !noasm

package uriscan

import "unsafe"

// fastBatchBMI2 scans records from pos in the window's masks m (nblk
// blocks from offset win of src) while each has the most common shape,
//
//	("http" / "https" / "file") "://" reg-name path [ "?" query ] [ "#" fragment ]
//
// with its "\n" in the window (and, for a record of 64 bytes or more, its
// host in the first 64), no invalid byte, no structural byte in the host,
// a host that cannot be an IPv4address (it is shorter than 7 bytes or
// does not end in a digit), every "%" after it a pct-encoded, and at most
// two tail events after it: "?" then "#", or one of them. It writes at
// most nout of them to out[0:nout] and returns how many, and why it
// stopped (fastStop...). Every record it takes, fast would take with the
// same result. It reads m[0:nblk+1] (m[nblk] all zeros) and no byte of
// src past srclen or, in the record's first 64 bytes, past its end.
//
//go:noescape
func fastBatchBMI2(m *blockMasks, nblk, win int, src *byte, srclen, pos int, out *uriFields, nout int) (n, stop int)

// fastBatch fills out with the records fastBatchBMI2 takes from pos.
func (w *walker) fastBatch(pos int, out *[fastBatchLen]uriFields) (n, stop int) {
	if !w.eng.fastBatch {
		return 0, fastStopShape
	}
	return fastBatchBMI2(&w.m[0], w.nblk, w.win, unsafe.StringData(w.src), len(w.src), pos, &out[0], len(out))
}

// parseAsm is the batch assembly's try at a short input s (0 < len(s) <
// 2*blockSize, not a multiple of blockSize) for parse, into *u (zero): it
// classifies s into m (m[nb] stays zero), marks its end (a "\n" bit one
// past its last byte) and runs the assembly for one record (nout = 1, so
// no second record can be written after a "\n" inside s). When the
// assembly does not take all of s, it leaves u zero and m the masks of
// s, without the mark.
func parseAsm(u *URI, s string, m *[3]blockMasks, k kernelID) bool {
	nb := len(s)/blockSize + 1
	classifyBlocks(m[:nb], unsafe.Slice(unsafe.StringData(s), len(s)), k)
	bit := uint64(1) << (len(s) % blockSize)
	m[nb-1].newline |= bit
	if n, _ := fastBatchBMI2(&m[0], nb, 0, unsafe.StringData(s), len(s), 0, &u.uriFields, 1); n == 1 && int(u.end) == len(s) {
		u.src = s
		return true
	}
	m[nb-1].newline &^= bit
	u.uriFields = uriFields{}
	return false
}
