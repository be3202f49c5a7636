package uriscan

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strings"
	"unsafe"

	"github.com/uriscan/uriscan/classify"
)

// winBlocks is how many blocks the cursor classifies per kernel call: 512
// bytes, so a window of masks (256 bytes) and its input stay in L1.
const winBlocks = 8

// cursor yields, in increasing order, the offsets of the bytes the walk
// must look at: every invalid byte (which includes '\n') and, in full
// mode, every structural byte or, in tail mode, only the tail bytes
// (? # % [ ]) that matter in a path, query or fragment. It classifies the
// input lazily, one window at a time.
type cursor struct {
	src  string
	win  int                       // offset of block m[0]
	base int                       // offset of block m[blk]
	bits uint64                    // events of block m[blk] not yet returned
	blk  int                       // current block in m
	nblk int                       // valid blocks in m
	next int                       // first offset not yet classified
	selS uint64                    // all ones in full mode
	selT uint64                    // all ones in tail mode
	m    [winBlocks + 1]blockMasks // m[nblk] is kept zero for the batch assembly
}

func (c *cursor) init(src string, start int) {
	c.src = src
	c.next = start
	c.bits, c.blk, c.nblk = 0, 0, 0
	c.selS, c.selT = ^uint64(0), 0
}

// events selects the events of a block for the current mode.
func (c *cursor) events(m *blockMasks) uint64 {
	return m.invalid | m.structural&c.selS | m.tail&c.selT
}

// seek switches to full mode and positions the cursor so that the next pop
// returns the first event at or after pos, which must not be before the
// current block.
func (c *cursor) seek(pos int) {
	c.selS, c.selT = ^uint64(0), 0
	if c.nblk == 0 {
		return
	}
	rel := pos - c.win
	if rel >= c.nblk*blockSize { // past the window: popSlow fills the next
		c.blk = c.nblk - 1
		c.base = c.win + c.blk*blockSize
		c.bits = 0
		return
	}
	c.blk = rel / blockSize
	c.base = c.win + c.blk*blockSize
	k := uint(rel % blockSize)
	c.bits = c.events(&c.m[c.blk]) >> k << k
}

// popSlow moves to the next block that has events and pops its first
// one; it returns len(src), with no bits left, at the end of the input.
func (c *cursor) popSlow() int {
	for {
		if c.blk+1 < c.nblk {
			c.blk++
			c.base += blockSize
		} else {
			if c.next >= len(c.src) {
				c.bits = 0
				return len(c.src)
			}
			c.fill()
		}
		if b := c.events(&c.m[c.blk]); b != 0 {
			c.bits = b & (b - 1)
			return c.base + bits.TrailingZeros64(b)
		}
	}
}

// refillAt classifies a window starting at pos, which must not be past
// the input already classified (so windows may overlap). The walk
// positions itself with seek before it pops.
func (c *cursor) refillAt(pos int) {
	c.next = pos
	c.fill()
	c.bits = 0
}

// fill classifies the next window of input.
func (c *cursor) fill() {
	n := min(len(c.src)-c.next, winBlocks*blockSize)
	nb := (n + blockSize - 1) / blockSize
	classifyBlocks(c.m[:nb], unsafe.Slice(unsafe.StringData(c.src[c.next:]), n))
	c.m[nb] = blockMasks{}
	c.win, c.base, c.blk, c.nblk = c.next, c.next, 0, nb
	c.next += n
}

const noError = math.MaxInt

// walker is the stage-2 state for one URI-reference: the cursor over the
// masks and the first violation found so far.
type walker struct {
	cursor
	batch   bool // records end at '\n' or "\r\n"; otherwise '\n' is just invalid
	errOff  int  // smallest offending offset seen, noError if none
	errCode errCode
	errArg  int
	errComp Component // component of errOff when known up front, else numComponents
}

// fail records a violation at off; the one with the smallest offset wins.
func (w *walker) fail(off int, code errCode, arg int, comp Component) {
	if off < w.errOff {
		w.errOff, w.errCode, w.errArg, w.errComp = off, code, arg, comp
	}
}

// eolAt reports whether the invalid byte at p ends a record in batch mode:
// a '\n', a '\r' before one, or a '\r' that ends the input (as
// bufio.ScanLines drops it).
func eolAt(src string, p int) bool {
	c := src[p]
	return c == '\n' || c == '\r' && (p+1 == len(src) || src[p+1] == '\n')
}

// walk parses the URI-reference starting at start into u. The reference
// ends at the end of input or, in batch mode, before the next "\n" or
// "\r\n"; walk returns that end offset, having consumed the terminator's
// events. Violations are recorded in w; the decomposition in u is
// complete either way.
//
//	URI-reference = URI / relative-ref
//	URI           = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
//	relative-ref  = relative-part [ "?" query ] [ "#" fragment ]
//	hier-part     = "//" authority path-abempty / path-absolute / path-rootless / path-empty
//	relative-part = "//" authority path-abempty / path-absolute / path-noscheme / path-empty
//
// It is one function, in parts joined by goto, so that the cursor's bits
// and base stay in registers: each "pop" below is the same few lines,
// taking the lowest event bit or, when the block is used up, calling
// popSlow. Only the rare checks are calls.
func (w *walker) walk(u *URI, start int) int {
	src := w.src
	n := len(src)
	batch := w.batch
	evs, base := w.bits, w.base // the cursor, in registers
	var (
		p, pend, pathStart, from, a, end int
		ch                               byte
		st                               Component
		firstAt, secondAt                int
		colon, colonAfterAt              int
		br                               [3]int // the first three '[' or ']': enough to find a misplaced one
		nbr                              int
	)

	// The scheme is the text before the first ':' if that ':' comes before
	// any '/', '?' or '#': segment-nz-nc (path-noscheme) holds no ':', so
	// such a reference cannot be a relative-ref. Other events met on the
	// way are remembered (pend) and checked once we know whether they are
	// in a scheme or in the first segment of a path.
	pend = -1
	for {
		if evs != 0 { // pop
			p, evs = base+bits.TrailingZeros64(evs), evs&(evs-1)
		} else {
			p = w.popSlow()
			evs, base = w.bits, w.base
			if p >= n {
				goto noScheme
			}
		}
		ch = src[p]
		if ch == ':' {
			break
		}
		if ch == '/' || ch == '?' || ch == '#' || batch && eolAt(src, p) {
			goto noScheme
		}
		if pend < 0 {
			pend = p
		}
	}
	if !commonScheme(src[start:p]) { // the common ones need no check
		w.checkScheme(start, p)
	}
	u.set(Scheme, start, p)
	if p+2 < n && uint16(src[p+1])|uint16(src[p+2])<<8 == '/'|'/'<<8 {
		// Drop the events of the "//": the next two, in this block or not.
		for k := 0; k < 2; k++ {
			if evs != 0 {
				evs &= evs - 1
			} else {
				w.popSlow()
				evs, base = w.bits, w.base
			}
		}
		a = p + 3
		goto authority
	}
	st, from = Path, p+1
	goto tail

noScheme:
	if pend >= 0 {
		w.checkFirstSegment(pend, p)
	}
	if p == start && p+1 < n && ch == '/' && src[p+1] == '/' {
		if evs != 0 { // drop the event of the second '/'
			evs &= evs - 1
		} else {
			w.popSlow()
			evs, base = w.bits, w.base
		}
		a = p + 2
		goto authority
	}
	pathStart = start
	goto resume

authority:
	// authority = [ userinfo "@" ] host [ ":" port ]
	// userinfo  = *( unreserved / pct-encoded / sub-delims / ":" )
	// Whether a ':' ends the host depends on an '@' that may come later,
	// so the loop only records positions; the parts are checked after.
	firstAt, secondAt, colon, colonAfterAt = -1, -1, -1, -1
loop:
	for {
		if evs != 0 { // pop
			p, evs = base+bits.TrailingZeros64(evs), evs&(evs-1)
		} else {
			p = w.popSlow()
			evs, base = w.bits, w.base
			if p >= n {
				break
			}
		}
		ch = src[p]
		switch ch {
		case '/', '?', '#':
			break loop
		case '@':
			if firstAt < 0 {
				firstAt = p
			} else if secondAt < 0 {
				secondAt = p
			}
		case ':':
			if firstAt < 0 {
				if colon < 0 {
					colon = p
				}
			} else if colonAfterAt < 0 {
				colonAfterAt = p
			}
		case '[', ']':
			if nbr < len(br) {
				br[nbr] = p
				nbr++
			}
		case '%':
			w.checkPct(p)
		default:
			if batch && eolAt(src, p) {
				break loop
			}
			w.fail(p, errChar, 0, numComponents)
		}
	}
	end = p
	if firstAt < 0 && colon < 0 && nbr == 0 {
		// The common case, host only: reg-name, unless it is an IPv4address
		// (first-match-wins, §3.2.2).
		u.set(Host, a, end)
		u.hostType = regNameKind(src[a:end])
	} else {
		w.closeAuthority(u, a, end, firstAt, secondAt, colon, colonAfterAt, br[:nbr])
	}
	pathStart = end

resume:
	// The event (p, ch) ended the part before the path.
	if p >= n || batch && eolAt(src, p) {
		u.set(Path, pathStart, p)
		goto done
	}
	switch ch {
	case '?':
		u.set(Path, pathStart, p)
		st, from = Query, p+1
	case '#':
		u.set(Path, pathStart, p)
		st, from = Fragment, p+1
	default: // a '/' of the path
		st, from = Path, pathStart
	}

tail:
	// pchar    = unreserved / pct-encoded / sub-delims / ":" / "@"
	// segment  = *pchar
	// query    = *( pchar / "/" / "?" )
	// fragment = *( pchar / "/" / "?" )
	// From here on only the tail bytes ? # % [ ] and invalid bytes are
	// events (tail mode): '/', ':' and '@' are ordinary.
	w.selS, w.selT = 0, ^uint64(0)
	if w.nblk > 0 {
		m := &w.m[w.blk]
		evs &= m.invalid | m.tail
	}
	for {
		if evs != 0 { // pop
			p, evs = base+bits.TrailingZeros64(evs), evs&(evs-1)
		} else {
			p = w.popSlow()
			evs, base = w.bits, w.base
			if p >= n {
				u.set(st, from, p)
				goto done
			}
		}
		switch src[p] {
		case '?':
			if st == Path {
				u.set(Path, from, p)
				st, from = Query, p+1
			}
		case '#':
			if st == Fragment {
				w.fail(p, errChar, 0, Fragment)
			} else {
				u.set(st, from, p)
				st, from = Fragment, p+1
			}
		case '%':
			w.checkPct(p)
		case '[', ']':
			w.fail(p, errChar, 0, st)
		default:
			if batch && eolAt(src, p) {
				u.set(st, from, p)
				goto done
			}
			w.fail(p, errChar, 0, st)
		}
	}

done:
	// A "\r\n" terminator: drop the event of its '\n'.
	if p+1 < n && src[p] == '\r' {
		if evs != 0 {
			evs &= evs - 1
		} else {
			w.popSlow()
			evs, base = w.bits, w.base
		}
	}
	w.bits, w.base = evs, base
	return p
}

// fast scans the batch record at start straight from the window's masks,
// without the walk, when it has the common shape: its "\n" in the window,
// no invalid byte (so no "\r"), and either (under 64 bytes) no structural
// byte at all (a relative path) or
//
//	scheme ":" [ "//" reg-name ] path [ "?" query ] [ "#" fragment ]
//
// with no "@", ":", "[", "]" or "%" in the authority and no "%", "[", "]"
// or second "?" or "#" after it. Such a record is valid; fast sets its
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
	lo, hi := &w.m[k%winBlocks], &w.m[k%winBlocks+1]
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
		if long && p == n || st>>a<<a&(uint64(1)<<p-1) != 0 {
			return 0, false // userinfo, port, IP-literal or pct-encoded
		}
		u.spans[Host] = span{s0 + int32(a), s0 + int32(p)}
		defined |= 1 << Host
		u.hostType = RegName
		if h := unsafe.String((*byte)(unsafe.Add(rec, a)), p-a); mayBeIPv4(h) { // regNameKind, inlined
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
		if nev == len(ev) {
			return 0, false
		}
		ev[nev], nev = uint(bits.TrailingZeros64(tail)), nev+1
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
		lo, hi := &w.m[kj%winBlocks], &w.m[kj%winBlocks+1]
		nl := join(lo.newline, hi.newline, sh, up)
		in := ^uint64(0)
		if nl != 0 {
			in = uint64(1)<<bits.TrailingZeros64(nl) - 1
		}
		if join(lo.invalid, hi.invalid, sh, up)&in != 0 {
			return 0, 0, false
		}
		for tail := join(lo.tail, hi.tail, sh, up) & in; tail != 0; tail &= tail - 1 {
			if nev == len(ev) {
				return 0, 0, false
			}
			ev[nev], nev = blockSize*j+uint(bits.TrailingZeros64(tail)), nev+1
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
		return len(s) == 4 || s[4] == 's'
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

// schemeBad returns the index of the first byte of s that breaks
// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), 0 for an empty s,
// or -1 when s is a scheme.
func schemeBad(s string) int {
	if len(s) == 0 || classify.Table[s[0]]&classify.Alpha == 0 {
		return 0
	}
	for i := 1; i < len(s); i++ {
		if classify.Table[s[i]]&classify.SchemeChar == 0 {
			return i
		}
	}
	return -1
}

// closeAuthority splits and checks the authority src[a:end] from the
// positions the walk recorded: the first two '@', the first ':' before
// and after the first '@', and the first brackets.
//
//	host = IP-literal / IPv4address / reg-name
//	port = *DIGIT
func (w *walker) closeAuthority(u *URI, a, end, firstAt, secondAt, colon, colonAfterAt int, br []int) {
	src := w.src
	hostStart := a
	if firstAt >= 0 {
		u.set(Userinfo, a, firstAt)
		hostStart, colon = firstAt+1, colonAfterAt
		if secondAt >= 0 {
			w.fail(secondAt, errChar, 0, numComponents)
		}
	}
	lb, rb := -1, -1
	if hostStart < end && src[hostStart] == '[' {
		// IP-literal = "[" ( IPv6address / IPvFuture  ) "]"
		lb = hostStart
		if i := strings.IndexByte(src[hostStart:end], ']'); i >= 0 {
			rb = hostStart + i
			u.set(Host, hostStart, rb+1)
			w.checkIPLiteral(u, hostStart+1, rb)
			if rb+1 < end {
				if src[rb+1] == ':' {
					w.checkPort(u, rb+2, end)
				} else {
					w.fail(rb+1, errIPLiteralAfter, 0, Host)
				}
			}
		} else {
			u.set(Host, hostStart, end)
			w.checkIPLiteral(u, hostStart+1, end) // content checked as if closed
			w.fail(end, errIPLiteralOpen, 0, Host)
		}
	} else {
		hostEnd := end
		if colon >= 0 {
			hostEnd = colon
			w.checkPort(u, colon+1, end)
		}
		u.set(Host, hostStart, hostEnd)
		u.hostType = regNameKind(src[hostStart:hostEnd])
	}
	for _, q := range br {
		if q != lb && q != rb {
			w.fail(q, errChar, 0, numComponents)
			break
		}
	}
}

// checkScheme checks scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
// on src[a:b].
func (w *walker) checkScheme(a, b int) {
	switch i := schemeBad(w.src[a:b]); {
	case i < 0:
	case a == b:
		w.fail(a, errSchemeEmpty, 0, Scheme)
	case i == 0 && classify.Table[w.src[a]]&classify.Invalid == 0:
		w.fail(a, errSchemeStart, 0, Scheme) // a valid byte, but not ALPHA
	default:
		w.fail(a+i, errChar, 0, Scheme)
	}
}

// checkFirstSegment checks src[a:b], the part of the first segment of a
// relative reference from its first event on:
// segment-nz-nc = 1*( unreserved / pct-encoded / sub-delims / "@" ).
func (w *walker) checkFirstSegment(a, b int) {
	src := w.src
	for i := a; i < b; i++ {
		c := src[i]
		switch {
		case c == '%':
			w.checkPct(i)
		case c == '[' || c == ']' || classify.Table[c]&classify.Invalid != 0:
			w.fail(i, errChar, 0, Path)
			return
		}
	}
}

// checkPct checks pct-encoded = "%" HEXDIG HEXDIG at p.
func (w *walker) checkPct(p int) {
	src := w.src
	if p+2 >= len(src) || classify.Table[src[p+1]]&classify.Table[src[p+2]]&classify.HexDig == 0 {
		w.fail(p, errPct, 0, numComponents)
	}
}

// checkPort checks port = *DIGIT on src[a:b] and records its value.
func (w *walker) checkPort(u *URI, a, b int) {
	u.set(Port, a, b)
	v := 0
	for i := a; i < b; i++ {
		c := w.src[i]
		if c < '0' || c > '9' {
			w.fail(i, errChar, 0, Port)
			return
		}
		if v <= math.MaxUint16 {
			v = v*10 + int(c-'0')
		}
	}
	if a < b && v <= math.MaxUint16 {
		u.port, u.portOK = uint16(v), true
	}
}

// checkIPLiteral checks the text src[a:b] after "[" and before "]" (or
// the end of the authority when "]" is missing).
//
//	IP-literal = "[" ( IPv6address / IPvFuture  ) "]"
//	IPvFuture  = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
func (w *walker) checkIPLiteral(u *URI, a, b int) {
	s := w.src[a:b]
	if len(s) > 0 && s[0]|0x20 == 'v' { // ABNF strings are case-insensitive: "V" too
		u.hostType = IPvFuture
		if i := ipvFutureError(s); i >= 0 {
			w.fail(a+i, errIPvFuture, 0, Host)
		}
		return
	}
	u.hostType = IPv6
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ':' && c != '.' && classify.Table[c]&classify.HexDig == 0 {
			w.fail(a+i, errChar, 0, Host)
			return
		}
	}
	if code, arg := checkIPv6(s); code != errNone {
		w.fail(a, code, arg, Host)
	}
}

// ipvFutureError returns the index in s (which starts with 'v') where
// IPvFuture stops matching, len(s) if s is too short, or -1 if s matches.
func ipvFutureError(s string) int {
	i := 1
	for i < len(s) && classify.Table[s[i]]&classify.HexDig != 0 {
		i++
	}
	if i == 1 || i == len(s) || s[i] != '.' {
		return i
	}
	i++
	if i == len(s) {
		return i
	}
	for ; i < len(s); i++ {
		if s[i] != ':' && classify.Table[s[i]]&(classify.Unreserved|classify.SubDelim) == 0 {
			return i
		}
	}
	return -1
}

// checkIPv6 checks s, made only of HEXDIG, ':' and '.', against the nine
// alternatives of IPv6address (§3.2.2). They amount to: h16 = 1*4HEXDIG
// groups separated by ':', an optional ls32 IPv4address as the last two
// groups, at most one "::", and exactly 8 groups without "::" or at most
// 7 with it.
func checkIPv6(s string) (errCode, int) {
	if len(s) == 0 {
		return errIPv6Empty, 0
	}
	groups, double := 0, false
	i := 0
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return errIPv6Colon, 0
		}
		double, i = true, 2
	}
	for i < len(s) {
		j := i
		for j < len(s) && classify.Table[s[j]]&classify.HexDig != 0 {
			j++
		}
		if j < len(s) && s[j] == '.' {
			// ls32 = ( h16 ":" h16 ) / IPv4address, only at the end.
			if !isIPv4(s[i:]) {
				return errIPv6IPv4, 0
			}
			groups += 2
			break
		}
		switch n := j - i; {
		case n == 0:
			return errIPv6Colon, 0
		case n > 4:
			return errIPv6GroupLen, 0
		}
		groups++
		if j == len(s) {
			break
		}
		// s[j] == ':'
		if j+1 < len(s) && s[j+1] == ':' {
			if double {
				return errIPv6DoubleColon, 0
			}
			double, i = true, j+2
			continue
		}
		i = j + 1
		if i == len(s) {
			return errIPv6Colon, 0
		}
	}
	switch {
	case !double && groups < 8:
		return errIPv6Few, groups
	case !double && groups > 8, double && groups > 7:
		return errIPv6Groups, groups
	}
	return errNone, 0
}

// regNameKind returns the type of a host that is not an IP-literal:
// first-match-wins (§3.2.2) makes it IPv4 when it matches IPv4address,
// else reg-name. mayBeIPv4 keeps the call to isIPv4 off the path of
// ordinary host names.
func regNameKind(h string) HostType {
	if !mayBeIPv4(h) {
		return RegName
	}
	return dottedKind(h)
}

// dottedKind is regNameKind for a host mayBeIPv4 let through, kept out
// of line so that fast's copy of regNameKind stays small.
//
//go:noinline
func dottedKind(h string) HostType {
	if isIPv4(h) {
		return IPv4
	}
	return RegName
}

// mayBeIPv4 is the filter every path applies before isIPv4 (the batch
// assembly refuses the host instead): an IPv4address has 7 bytes or more
// and ends in a digit, so a host shorter or ending above '9' is a reg-name.
func mayBeIPv4(h string) bool {
	return len(h) >= 7 && h[len(h)-1] <= '9'
}

// isIPv4 reports whether s matches
// IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet, where
// dec-octet is 0-255 without leading zeros.
func isIPv4(s string) bool {
	if len(s) < 7 || len(s) > 15 || s[0]-'0' > 9 || s[len(s)-1]-'0' > 9 {
		return false
	}
	for k := 0; k < 4; k++ {
		n := 0
		for n < len(s) && n < 3 && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 1 && s[0] == '0' || n == 3 && s[:3] > "255" {
			return false
		}
		s = s[n:]
		if k < 3 {
			if len(s) == 0 || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	return len(s) == 0
}
