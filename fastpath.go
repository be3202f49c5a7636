// The Go fast path: the common record shapes, taken from the masks of
// their words without the walk. It is the declared reference of the batch
// assembly (fastbatch.go: fastBatchRef).

package uriscan

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// fast scans the batch record at start straight from the window's masks,
// without the walk, when it has the common shape: its "\n" in the window,
// no invalid byte (so no "\r"), and either (under 64 bytes) no structural
// byte at all (a relative path) or
//
//	scheme ":" [ "//" reg-name [ ":" port ] ] path [ "?" query ] [ "#" fragment ]
//
// with no "@", "[", "]" or "%" in the authority, and no "[", "]" or
// second "?" or "#" after it, where every "%" begins a pct-encoded (two
// HEXDIGs: pctAt). Such a record is valid; fast sets its
// components and returns its end and true. Any other record, valid or
// not, gets false and goes to the walk, which has the last word; a record
// that may run past the window gets fastWindowEnd, so that the caller can
// classify a window that starts at it and try again.
//
// The masks of the two blocks a 64-byte word of the record can touch are
// shifted into one word each whose bit 0 is the record's first byte, so
// every boundary is one TrailingZeros64. A record of 64 bytes or more
// must have its scheme and authority in its first word; fastEnd follows
// its path, query and fragment word by word to the "\n".
func (w *walker) fast(u *URI, start int) (int, bool) {
	r := uint(start - w.win)
	k := r / blockSize
	if k >= uint(w.nblk) {
		return fastWindowEnd, false
	}
	// The next block may be the zero m[nblk] past the window.
	pair := w.m[k%winBlocks : k%winBlocks+2 : k%winBlocks+2] // one bounds check for both
	lo, hi := &pair[0], &pair[1]
	// Each word joins the masks of the two blocks from bit sh of the
	// first. (The second shift is split so that no count reaches 64.)
	sh := r % blockSize
	up := 63 - sh
	nl := join(lo.newline, hi.newline, sh, up)
	// n is the record's length, in its bytes in the first word; a long
	// record (no "\n" in its first 64 bytes) is taken only when all of
	// them are input.
	long := nl == 0
	n, in := uint(bits.TrailingZeros64(nl)), ^uint64(0) // n is 64 when long
	if !long {
		in = uint64(1)<<n - 1
	} else if k+1 >= uint(w.nblk) {
		return fastWindowEnd, false
	} else if start+blockSize >= len(w.src) {
		return 0, false // the end of the input
	}
	if join(lo.invalid, hi.invalid, sh, up)&in != 0 {
		return 0, false
	}
	e := start + int(n)
	s0 := int32(start)
	st := join(lo.structural, hi.structural, sh, up) & in
	if st == 0 { // no structural byte: path-noscheme, path-empty
		if long {
			return 0, false
		}
		u.spans[Path] = span{s0, int32(e)}
		u.defined = 1 << Path
		return e, true
	}
	// rec is the record's first byte: the masks put every offset read
	// below inside the record, so the reads need no bounds checks.
	rec := unsafe.Add(unsafe.Pointer(unsafe.StringData(w.src)), start)
	at := func(i uint) byte { return *(*byte)(unsafe.Add(rec, i)) }
	f := uint(bits.TrailingZeros64(st))
	if at(f) != ':' || !fastScheme(rec, f) {
		return 0, false
	}
	u.spans[Scheme] = span{s0, s0 + int32(f)}
	defined := uint8(1<<Scheme | 1<<Path)
	p := f + 1 // the path starts here, or the "//" of an authority
	if long && p+1 >= blockSize {
		return 0, false // a "//" would straddle the first word: the walk decides
	}
	if p+1 < n && at(p) == '/' && at(p+1) == '/' {
		a := p + 2
		end := join(lo.delim, hi.delim, sh, up) & in >> a << a
		p = min(uint(bits.TrailingZeros64(end)), n)
		if long && p == n {
			return 0, false
		}
		h := p // the host's end
		if hs := st >> a << a & (uint64(1)<<p - 1); hs != 0 {
			// One ':' and a port of digits; any other structural byte
			// (userinfo, IP-literal, pct-encoded) goes to the walk.
			h = uint(bits.TrailingZeros64(hs))
			if hs&(hs-1) != 0 || at(h) != ':' || !w.fastPort(u, start, h+1, p) {
				return 0, false
			}
			defined |= 1 << Port
		}
		u.spans[Host] = span{s0 + int32(a), s0 + int32(h)}
		defined |= 1 << Host
		u.hostType = RegName
		if h := unsafe.String((*byte)(unsafe.Add(rec, a)), h-a); mayBeIPv4(h) { // regNameKind, inlined
			u.hostType = dottedKind(h)
		}
	}
	// The tail events (? # % [ ]) after the path's start: at most two,
	// the first to end the path.
	tail := join(lo.tail, hi.tail, sh, up) & in >> p << p
	if tail == 0 && !long { // the common case: the path runs to the end
		u.spans[Path] = span{s0 + int32(p), int32(e)}
		u.defined = defined
		return e, true
	}
	var ev [2]uint
	nev := 0
	for ; tail != 0; tail &= tail - 1 {
		t := uint(bits.TrailingZeros64(tail))
		if at(t) == '%' { // pct-encoded: checked here, not an event
			if !pctAt(w.src, start+int(t)) {
				return 0, false
			}
			continue
		}
		if nev == len(ev) {
			return 0, false
		}
		ev[nev], nev = t, nev+1
	}
	if long {
		// The head is in shape: say so, for fastBatchRef to tell a record
		// it declines from one that only runs past the window.
		u.defined = defined
		var ok bool
		if e, nev, ok = w.fastEnd(k, sh, start, &ev, nev); !ok {
			return e, false
		}
	}
	if nev == 0 {
		u.spans[Path] = span{s0 + int32(p), int32(e)}
		u.defined = defined
		return e, true
	}
	t := ev[0]
	u.spans[Path] = span{s0 + int32(p), s0 + int32(t)}
	if at(t) == '?' {
		q := t + 1
		defined |= 1 << Query
		if nev == 1 {
			u.spans[Query] = span{s0 + int32(q), int32(e)}
			u.defined = defined
			return e, true
		}
		t, nev = ev[1], 1
		u.spans[Query] = span{s0 + int32(q), s0 + int32(t)}
	}
	if at(t) != '#' || nev != 1 {
		return 0, false
	}
	u.spans[Fragment] = span{s0 + int32(t) + 1, int32(e)}
	u.defined = defined | 1<<Fragment
	return e, true
}

// fastWindowEnd is what fast returns, with false, for a record that may
// continue past the classified window: the caller can classify a window
// starting at the record and try again.
const fastWindowEnd = -1

// fastEnd finds the end of a record that has no "\n" in its first 64
// bytes (word 0 of fast), a word of 64 bytes at a time, adding the offsets
// of the tail bytes (? # % [ ]) it meets to ev[:nev]. It returns false
// when an invalid byte comes before the "\n", there are more than
// len(ev) events, or the window ends first.
func (w *walker) fastEnd(k, sh uint, start int, ev *[2]uint, nev int) (int, int, bool) {
	up := 63 - sh
	for j := uint(1); ; j++ {
		kj := k + j
		if kj >= uint(w.nblk) {
			return fastWindowEnd, 0, false
		}
		pair := w.m[kj%winBlocks : kj%winBlocks+2 : kj%winBlocks+2]
		lo, hi := &pair[0], &pair[1]
		nl := join(lo.newline, hi.newline, sh, up)
		in := ^uint64(0)
		if nl != 0 {
			in = uint64(1)<<bits.TrailingZeros64(nl) - 1
		}
		if join(lo.invalid, hi.invalid, sh, up)&in != 0 {
			return 0, 0, false
		}
		for tail := join(lo.tail, hi.tail, sh, up) & in; tail != 0; tail &= tail - 1 {
			t := blockSize*j + uint(bits.TrailingZeros64(tail))
			if w.src[start+int(t)] == '%' { // pct-encoded: checked, not an event
				if !pctAt(w.src, start+int(t)) {
					return 0, 0, false
				}
				continue
			}
			if nev == len(ev) {
				return 0, 0, false
			}
			ev[nev], nev = t, nev+1
		}
		if nl != 0 {
			return start + int(blockSize*j) + bits.TrailingZeros64(nl), nev, true
		}
	}
}

// fastScheme reports whether the f bytes at rec, before a ':', are a
// scheme, the common ones decided by commonScheme's one compare.
func fastScheme(rec unsafe.Pointer, f uint) bool {
	s := unsafe.String((*byte)(rec), f)
	return commonScheme(s) || schemeBad(s) < 0
}

// commonScheme reports whether s is "http", "https" or "file", the
// schemes every path (the walk, fast, the batch assembly's batchShape)
// takes without checking them byte by byte: one 4-byte compare.
func commonScheme(s string) bool {
	if uint(len(s))-4 > 1 {
		return false
	}
	switch binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(s), 4)) {
	case 'h' | 't'<<8 | 't'<<16 | 'p'<<24:
		return len(s) == 4 || len(s) == 5 && s[4] == 's'
	case 'f' | 'i'<<8 | 'l'<<16 | 'e'<<24:
		return len(s) == 4
	}
	return false
}

// join is the word of 64 mask bits from bit sh of block lo, continued in
// block hi (up = 63 - sh: the second shift is split so that no count
// reaches 64), as fast, fastEnd and the batch assembly's WORD read a
// record that starts anywhere in a block.
func join(lo, hi uint64, sh, up uint) uint64 {
	return lo>>sh | hi<<1<<up
}

// fastPort sets u's port to the record's bytes [a, b) (offsets from
// start) when they are a port = *DIGIT, and reports whether they are.
func (w *walker) fastPort(u *URI, start int, a, b uint) bool {
	bad, v, ok := portDigits(w.src[start+int(a) : start+int(b)])
	if bad >= 0 {
		return false
	}
	u.spans[Port] = span{int32(start + int(a)), int32(start + int(b))}
	u.port, u.portOK = v, ok
	return true
}
