package uriscan

import (
	"math"
	"unsafe"
)

// MaxLength is the longest input Parse accepts: offsets are 32-bit.
const MaxLength = math.MaxInt32

// Parse validates b as a URI-reference (RFC 3986 §4.1) and splits it into
// its components. It does not allocate: the URI refers to b, which must
// not be modified while the URI is in use. On failure it returns a *Error
// giving the byte offset and the reason.
func Parse(b []byte) (URI, error) {
	// Parse is inlined into its callers (cost 77 of the compiler's 80:
	// go build -gcflags=-m), which saves a copy of the URI; bytesToString
	// would cost it 4 more.
	return parse(unsafe.String(unsafe.SliceData(b), len(b)), true, &dispatch)
}

// ParseString is Parse for a string; the URI refers to s.
func ParseString(s string) (URI, error) {
	return parse(s, false, &dispatch)
}

// walkAll parses all of s into u; w.errOff is noError if s is a
// URI-reference, else the offset where it goes wrong.
func (w *walker) walkAll(u *URI, s string) {
	w.init(s, 0)
	w.walkFromStart(u, s)
}

// walkFromStart is walkAll once the cursor is on s: fresh from init, or
// with the window parseFast classified and left clean, which the walk
// then reads instead of classifying s again.
func (w *walker) walkFromStart(u *URI, s string) {
	w.seek(0)
	w.errOff = noError
	u.src, u.end = s, int32(len(s))
	w.walk(u, 0)
}

// parseFast takes s with the Go fast path when it has one of its shapes.
// The cursor is on s (init): with the masks of all of s as its window
// when parse classified them (adopt), else it classifies s here (one
// window, up to winBlocks blocks). It marks the end of s as the end of a
// record (a "\n" bit one past its last byte, in s's last block) and takes
// the record if fast takes all of it. A length that fills its last block
// would put the bit in the zero block after the window, where fast does
// not look: the walk takes those. A "\n" or "\r" in s is invalid to fast,
// which then ends or declines the record early, so anything fast takes is
// what the walk would make of s. It reports whether it took s; if not, u
// must be reset before the walk, and a window is left as the walk needs it
// (the end mark off).
func (w *walker) parseFast(u *URI, s string) bool {
	if len(s)%blockSize == 0 || len(s) >= winBlocks*blockSize || !w.eng.goFast {
		return false
	}
	if w.nblk == 0 {
		w.fill()
	}
	mark := &w.m[len(s)/blockSize].newline
	*mark |= 1 << (len(s) % blockSize)
	u.src = s
	end, ok := w.fast(u, 0)
	*mark &^= 1 << (len(s) % blockSize)
	if !ok || end != len(s) {
		return false
	}
	u.start, u.end = 0, int32(len(s))
	return true
}

// parse is Parse (copyOnError) or ParseString with the engine e.
func parse(s string, copyOnError bool, e *engine) (u URI, err error) {
	if len(s) > MaxLength {
		return URI{}, &Error{Input: "", Offset: MaxLength, Err: ErrTooLong, code: errTooLong}
	}
	if len(s) >= 2*blockSize {
		if len(s) < shortBlocks*blockSize {
			var m [shortBlocks + 1]blockMasks
			err = parseInto(&u, s, copyOnError, m[:], false, e)
			return u, err
		}
		var m [winBlocks + 1]blockMasks
		err = parseInto(&u, s, copyOnError, m[:], false, e)
		return u, err
	}
	// A short input (most are): its masks take 3 blocks to zero, not
	// winBlocks+1, and the batch assembly (amd64) tries it first, over
	// masks classified here with the end mark one past its last byte (a
	// length that fills its last block would put the mark in the zero
	// block after them, where the assembly does not look). The URI is
	// written in place (u), not returned through a second function's
	// result, which would copy it once more.
	var m [3]blockMasks
	if !e.fastBatch || len(s)%blockSize == 0 {
		err = parseInto(&u, s, copyOnError, m[:], false, e)
		return u, err
	}
	if parseAsm(&u, s, &m, e.kernel) { // fastbatch_amd64.go
		return u, nil
	}
	err = parseInto(&u, s, copyOnError, m[:], true, e)
	return u, err
}

// parseInto is parse into *u (zero on entry, and zero again on error)
// with the masks in m (see cursor.m), which hold those of all of s when
// classified (with e's kernel).
func parseInto(u *URI, s string, copyOnError bool, m []blockMasks, classified bool, e *engine) error {
	var w walker
	w.m, w.eng = m, *e
	w.init(s, 0)
	if classified {
		w.adopt((len(s)+blockSize-1)/blockSize, len(s))
	}
	if w.parseFast(u, s) {
		return nil
	}
	*u = URI{}
	w.walkFromStart(u, s)
	if w.errOff != noError {
		in := s
		if copyOnError {
			in = string([]byte(s))
		}
		e := w.error(u, in, 0)
		*u = URI{}
		return e
	}
	return nil
}

// error builds the *Error for the violation recorded in w; u holds the
// decomposition of the record that starts at start.
func (w *walker) error(u *URI, in string, start int) *Error {
	e := new(Error)
	w.errorTo(e, u, in, start)
	return e
}

// errorTo is error into *e.
func (w *walker) errorTo(e *Error, u *URI, in string, start int) {
	comp := w.errComp
	if comp == numComponents {
		comp = u.componentAt(w.errOff - start)
	}
	*e = Error{Input: in, Offset: w.errOff - start, Component: comp, Err: causes[w.errCode], code: w.errCode, arg: w.errArg}
}

// componentAt returns the defined component whose span starts last at or
// before off.
func (u *URI) componentAt(off int) Component {
	for c := Fragment; c > Scheme; c-- {
		if u.Has(c) && int(u.spans[c].start-u.start) <= off {
			return c
		}
	}
	return Scheme
}
