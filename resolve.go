package uriscan

import (
	"bytes"
	"errors"
	"strings"
)

// ResolveFlags modify Resolve.
type ResolveFlags uint8

// NonStrict makes Resolve treat a reference whose scheme equals the base's
// (compared case-insensitively, schemes being case-insensitive by §3.1) as
// relative, as RFC 3986 §5.2.2 allows for backward compatibility with
// RFC 1630: with base "http://a/b/c/d;p?q", "http:g" resolves to
// "http://a/b/c/g" instead of "http:g".
const NonStrict ResolveFlags = 1 << 0 // §5.2.2: a reference whose scheme equals the base's is treated as relative (RFC 1630 compatibility)

// ErrBaseNotAbsolute is returned by Resolve when the base URI has no scheme:
// §5.2.1 requires an absolute base.
var ErrBaseNotAbsolute = errors.New("base URI has no scheme") // §5.2.1 requires an absolute base

// Resolve appends to dst the target URI of ref resolved against base
// (RFC 3986 §5.2.2 transform, §5.2.3 merge, §5.2.4 remove_dot_segments,
// §5.3 recomposition) and returns the extended buffer.
//
// The base must have a scheme (else ErrBaseNotAbsolute, with dst returned
// unchanged); its fragment, if any, is ignored. Components are copied as
// written: nothing is decoded or normalized, and defined-but-empty
// components are kept ("?" and "#" are written whenever the target's query
// or fragment is defined, "//" whenever it has an authority, even an empty
// one). Following §5.2.2 literally, a reference with an empty path and no
// scheme or authority keeps the base path as is, without removing its dot
// segments.
//
// Resolve does not allocate when dst has enough spare capacity; at most
// len(base)+len(ref)+1 bytes are appended. dst must not overlap the bytes
// base or ref were parsed from.
//
// One departure from the RFC's algorithm as written: a target without an
// authority whose path begins with "//" gets "/." in front of its path
// (AppendPath's rule): base "f:/a" and reference ".//g" give "f:/.//g", not
// the "f://g" of §5.3's recomposition, which reads back with the authority
// "g". RFC 3986 forbids such a path (§3: "When authority is not present,
// the path cannot begin with two slash characters ("//")"; §3.3:
// path-absolute = "/" [ segment-nz *( "/" segment ) ]); "/." is a dot
// segment, so the target's path is the same after remove_dot_segments,
// and it reads back with no authority and the path "/.//g". The bound
// above still holds: a path can only begin with "//" after
// remove_dot_segments removed at least two bytes.
func Resolve(dst []byte, base, ref *URI, flags ResolveFlags) ([]byte, error) {
	if !base.Has(Scheme) {
		return dst, ErrBaseNotAbsolute
	}

	// -- A non-strict parser may ignore a scheme in the reference
	// -- if it is identical to the base URI's scheme.
	refScheme := ref.Has(Scheme)
	if flags&NonStrict != 0 && refScheme && strings.EqualFold(ref.Scheme(), base.Scheme()) {
		refScheme = false // undefine(R.scheme)
	}

	// The transform of §5.2.2 and the recomposition of §5.3 are done
	// together: each T component is appended as soon as it is known, in
	// the order §5.3 writes them.
	switch {
	case refScheme:
		// T.scheme = R.scheme; T.authority = R.authority;
		// T.path = remove_dot_segments(R.path); T.query = R.query;
		dst = appendScheme(dst, ref)
		dst = appendAuthority(dst, ref)
		dst = appendPath(dst, "", ref.Path(), ref.HasAuthority())
		dst = appendQuery(dst, ref)
	case ref.HasAuthority():
		// T.authority = R.authority; T.path = remove_dot_segments(R.path);
		// T.query = R.query; T.scheme = Base.scheme;
		dst = appendScheme(dst, base)
		dst = appendAuthority(dst, ref)
		dst = removeDotSegments(dst, "", ref.Path())
		dst = appendQuery(dst, ref)
	default:
		// T.scheme = Base.scheme; T.authority = Base.authority;
		dst = appendScheme(dst, base)
		dst = appendAuthority(dst, base)
		switch rpath := ref.Path(); {
		case rpath == "":
			// T.path = Base.path;
			// if defined(R.query) then T.query = R.query;
			// else T.query = Base.query;
			dst = append(dst, base.Path()...)
			if ref.Has(Query) {
				dst = appendQuery(dst, ref)
			} else {
				dst = appendQuery(dst, base)
			}
		case rpath[0] == '/':
			// T.path = remove_dot_segments(R.path); T.query = R.query;
			dst = appendPath(dst, "", rpath, base.HasAuthority())
			dst = appendQuery(dst, ref)
		default:
			// T.path = merge(Base.path, R.path);
			// T.path = remove_dot_segments(T.path); T.query = R.query;
			//
			// merge (§5.2.3) is not materialized: its result is the
			// concatenation of a prefix of the base path and R.path, which
			// removeDotSegments reads as one input buffer.
			dst = appendPath(dst, mergePrefix(base), rpath, base.HasAuthority())
			dst = appendQuery(dst, ref)
		}
	}

	// T.fragment = R.fragment;
	if ref.Has(Fragment) {
		dst = append(dst, '#')
		dst = append(dst, ref.Fragment()...)
	}
	return dst, nil
}

// mergePrefix returns the part of the base path that §5.2.3 merge puts in
// front of the reference's path.
func mergePrefix(base *URI) string {
	bpath := base.Path()
	// If the base URI has a defined authority component and an empty path,
	// then return a string consisting of "/" concatenated with the
	// reference's path;
	if base.HasAuthority() && bpath == "" {
		return "/"
	}
	// otherwise, return a string consisting of the reference's path
	// component appended to all but the last segment of the base URI's path
	// (i.e., excluding any characters after the right-most "/" in the base
	// URI path, or excluding the entire base URI path if it does not contain
	// any "/" characters).
	return bpath[:strings.LastIndexByte(bpath, '/')+1]
}

// appendScheme appends u's scheme and ":" (§5.3: "if defined(scheme)").
func appendScheme(dst []byte, u *URI) []byte {
	dst = append(dst, u.Scheme()...)
	return append(dst, ':')
}

// appendAuthority appends "//" and u's authority if it is defined (§5.3).
func appendAuthority(dst []byte, u *URI) []byte {
	if !u.HasAuthority() {
		return dst
	}
	dst = append(dst, "//"...)
	return append(dst, u.Authority()...)
}

// appendQuery appends "?" and u's query if it is defined (§5.3).
func appendQuery(dst []byte, u *URI) []byte {
	if !u.Has(Query) {
		return dst
	}
	dst = append(dst, '?')
	return append(dst, u.Query()...)
}

// RemoveDotSegments appends path with dot segments removed (§5.2.4) to dst.
// It is the RFC's function exactly: "/.//x" gives "//x", which is not a
// path a URI without an authority may have; AppendPath writes such a path.
//
// It does not allocate when dst has len(path) bytes of spare capacity; the
// output is never longer than path.
func RemoveDotSegments(dst []byte, path string) []byte {
	return removeDotSegments(dst, "", path)
}

// AppendPath appends path with its dot segments removed (§5.2.4
// remove_dot_segments) to dst, as the path of a URI that has an authority
// (hasAuthority) or not, and returns the extended buffer. Resolve,
// ResolveRFC2396 and package normalize write every path they build
// through this rule.
//
// Without an authority, a result beginning with "//" gets "/." in front:
// RFC 3986 §3 says "When authority is not present, the path cannot begin
// with two slash characters ("//")" (§3.3's path-absolute = "/" [
// segment-nz *( "/" segment ) ] has a non-empty first segment), since
// "s://x" reads back with the authority "x". "/."
// is a dot segment, so the path is unchanged by remove_dot_segments and
// the URI it is written in still reads back with no authority: "/.//x"
// with a scheme "s" is "s:/.//x", and AppendPath of "/.//x" is "/.//x"
// again (a fixed point). With an authority, the result is
// RemoveDotSegments's.
//
// It does not allocate when dst has len(path) bytes of spare capacity, or
// len(path)+2 when path itself begins with "//" and hasAuthority is false:
// otherwise a result beginning with "//" had at least two bytes removed,
// so the output is never longer than path.
func AppendPath(dst []byte, path string, hasAuthority bool) []byte {
	return appendPath(dst, "", path, hasAuthority)
}

// appendPath is AppendPath of the concatenation a+b (see dotInput).
func appendPath(dst []byte, a, b string, hasAuthority bool) []byte {
	start := len(dst)
	dst = removeDotSegments(dst, a, b)
	if hasAuthority {
		return dst
	}
	return guardPath(dst, start)
}

// guardPath is the one place the rule of AppendPath is written: dst[start:]
// is the path of a URI without an authority; when it begins with "//",
// "/." is inserted in front of it (§3.3: without an authority, a path
// cannot begin with "//").
func guardPath(dst []byte, start int) []byte {
	if len(dst)-start < 2 || dst[start] != '/' || dst[start+1] != '/' {
		return dst
	}
	dst = append(dst, 0, 0)
	copy(dst[start+2:], dst[start:])
	dst[start], dst[start+1] = '/', '.'
	return dst
}

// dotInput is the input buffer of §5.2.4: the concatenation a+b, read from
// the front. Keeping the two parts apart lets Resolve feed it the result of
// merge (§5.2.3) without building that string.
type dotInput struct{ a, b string }

func (in *dotInput) len() int { return len(in.a) + len(in.b) }

// at returns the i-th byte of the buffer, or 0 past its end (0 is never
// part of a path, so comparisons with it fail).
func (in *dotInput) at(i int) byte {
	if i < len(in.a) {
		return in.a[i]
	}
	i -= len(in.a)
	if i < len(in.b) {
		return in.b[i]
	}
	return 0
}

// is reports whether the buffer is exactly s.
func (in *dotInput) is(s string) bool { return in.len() == len(s) && in.hasPrefix(s) }

// hasPrefix reports whether the buffer begins with s.
func (in *dotInput) hasPrefix(s string) bool {
	if len(in.a) == 0 {
		return strings.HasPrefix(in.b, s)
	}
	if len(in.a) >= len(s) {
		return strings.HasPrefix(in.a, s)
	}
	if in.len() < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if in.at(i) != s[i] {
			return false
		}
	}
	return true
}

// skip removes the first n bytes of the buffer.
func (in *dotInput) skip(n int) {
	if n <= len(in.a) {
		in.a = in.a[n:]
		return
	}
	in.b = in.b[n-len(in.a):]
	in.a = ""
}

// set replaces the whole buffer with s.
func (in *dotInput) set(s string) { in.a, in.b = s, "" }

// moveSegment moves the first path segment of the buffer, with its
// initial "/" if any, up to but not including the next "/" or the end of
// the buffer, to the end of dst.
func (in *dotInput) moveSegment(dst []byte) []byte {
	from := 0
	if in.at(0) == '/' {
		from = 1
	}
	if from <= len(in.a) {
		if i := strings.IndexByte(in.a[from:], '/'); i >= 0 {
			n := from + i
			dst = append(dst, in.a[:n]...)
			in.a = in.a[n:]
			return dst
		}
		// The segment runs to the end of a and on into b.
		dst = append(dst, in.a...)
		from -= len(in.a)
		in.a = ""
		if from < 0 {
			from = 0
		}
	} else {
		from -= len(in.a) // only when a is "" and b starts with "/"
	}
	n := len(in.b)
	if i := strings.IndexByte(in.b[from:], '/'); i >= 0 {
		n = from + i
	}
	dst = append(dst, in.b[:n]...)
	in.b = in.b[n:]
	return dst
}

// removeDotSegments appends remove_dot_segments(a+b) to dst. The output
// buffer of §5.2.4 is dst[start:]; removing its last segment truncates dst.
func removeDotSegments(dst []byte, a, b string) []byte {
	start := len(dst)
	// 1. The input buffer is initialized with the now-appended path
	// components and the output buffer is initialized to the empty string.
	in := dotInput{a, b}
	// 2. While the input buffer is not empty, loop as follows:
	for in.len() > 0 {
		// Steps A to D all need the buffer to begin with "." or "/.";
		// anything else goes straight to E.
		if c := in.at(0); c != '.' && (c != '/' || in.at(1) != '.') {
			dst = in.moveSegment(dst)
			continue
		}
		switch {
		// A. If the input buffer begins with a prefix of "../" or "./",
		// then remove that prefix from the input buffer; otherwise,
		case in.hasPrefix("../"):
			in.skip(3)
		case in.hasPrefix("./"):
			in.skip(2)

		// B. if the input buffer begins with a prefix of "/./" or "/.",
		// where "." is a complete path segment, then replace that prefix
		// with "/" in the input buffer; otherwise,
		case in.hasPrefix("/./"):
			in.skip(2) // keep the second "/"
		case in.is("/."):
			in.set("/")

		// C. if the input buffer begins with a prefix of "/../" or "/..",
		// where ".." is a complete path segment, then replace that prefix
		// with "/" in the input buffer and remove the last segment and its
		// preceding "/" (if any) from the output buffer; otherwise,
		case in.hasPrefix("/../"):
			in.skip(3) // keep the second "/"
			dst = popSegment(dst, start)
		case in.is("/.."):
			in.set("/")
			dst = popSegment(dst, start)

		// D. if the input buffer consists only of "." or "..", then remove
		// that from the input buffer; otherwise,
		case in.is(".") || in.is(".."):
			in.set("")

		// E. move the first path segment in the input buffer to the end of
		// the output buffer, including the initial "/" character (if any)
		// and any subsequent characters up to, but not including, the next
		// "/" character or the end of the input buffer.
		default:
			dst = in.moveSegment(dst)
		}
	}
	// 3. Finally, the output buffer is returned as the result of
	// remove_dot_segments.
	return dst
}

// popSegment removes the last segment of the output buffer dst[start:] and
// its preceding "/" (if any), by truncating dst back to the last "/"
// written after start, or to start if there is none.
func popSegment(dst []byte, start int) []byte {
	return dst[:start+max(bytes.LastIndexByte(dst[start:], '/'), 0)]
}

// ResolveString is a convenience wrapper: parse both, resolve, return a
// string. Allocates. Parse errors are returned as they come from
// ParseString; a base without a scheme gives ErrBaseNotAbsolute.
func ResolveString(base, ref string) (string, error) {
	b, err := ParseString(base)
	if err != nil {
		return "", err
	}
	r, err := ParseString(ref)
	if err != nil {
		return "", err
	}
	buf, err := Resolve(make([]byte, 0, len(base)+len(ref)+1), &b, &r, 0)
	if err != nil {
		return "", err
	}
	return bytesToString(buf), nil
}
