package uriscan

import "math"

// MaxLength is the longest input Parse accepts: offsets are 32-bit.
const MaxLength = math.MaxInt32

// Parse validates b as a URI-reference (RFC 3986 §4.1) and splits it into
// its components. It does not allocate: the URI refers to b, which must
// not be modified while the URI is in use. On failure it returns a *Error
// giving the byte offset and the reason.
func Parse(b []byte) (URI, error) {
	return parse(bytesToString(b), true)
}

// ParseString is Parse for a string; the URI refers to s.
func ParseString(s string) (URI, error) {
	return parse(s, false)
}

// walkAll parses all of s into u; w.errOff is noError if s is a
// URI-reference, else the offset where it goes wrong.
func (w *walker) walkAll(u *URI, s string) {
	w.init(s, 0)
	w.errOff = noError
	u.src, u.end = s, int32(len(s))
	w.walk(u, 0)
}

func parse(s string, copyOnError bool) (URI, error) {
	if len(s) > MaxLength {
		return URI{}, &Error{Input: "", Offset: MaxLength, Err: ErrTooLong, code: errTooLong}
	}
	var w walker
	var u URI
	w.walkAll(&u, s)
	if w.errOff != noError {
		in := s
		if copyOnError {
			in = string([]byte(s))
		}
		return URI{}, w.error(&u, in, 0)
	}
	return u, nil
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
