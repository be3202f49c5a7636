package uriscan

import (
	"math"
	"math/bits"

	"github.com/uriscan/uriscan/classify"
)

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
	if !pctAt(w.src, p) {
		w.fail(p, errPct, 0, numComponents)
	}
}

// pctAt reports whether the "%" at src[p] begins a
// pct-encoded = "%" HEXDIG HEXDIG: the test of the walk and the Go fast
// path.
func pctAt(src string, p int) bool {
	return p+2 < len(src) && classify.Table[src[p+1]]&classify.Table[src[p+2]]&classify.HexDig != 0
}
