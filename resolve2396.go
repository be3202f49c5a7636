package uriscan

import (
	"bytes"
	"errors"
	"strings"
)

// ErrBaseOpaque is returned by ResolveRFC2396 for a relative reference
// against a base whose path is an opaque_part (a scheme, no authority, a
// path not beginning with "/"): RFC 2396 §5 says relative URI "cannot be
// used within a document that has an unsuitable base URI", one that does
// not fit the hier_part syntax.
var ErrBaseOpaque = errors.New("base URI is opaque: a relative reference needs a hier_part base (RFC 2396 §5)")

// ResolveRFC2396 appends to dst the reference ref resolved against base by
// RFC 2396 §5.2, steps 1 to 7 as written, and returns the extended buffer.
// base and ref may come from either grammar (the steps read only the
// components); base must have a scheme, else ErrBaseNotAbsolute is
// returned with dst unchanged.
//
// Where it differs from Resolve (RFC 3986 §5.2), as RFC 2396 Appendix C
// shows:
//
//   - A reference with an empty path and no scheme, authority or query
//     ("" or "#s") is the current document (step 2): the base without its
//     fragment, then the reference's fragment if it has one.
//   - A reference with a scheme (step 3), an authority (step 4) or a path
//     beginning with "/" (step 5) is used as written: its dot segments
//     are not removed ("/./g" gives "http://a/./g").
//   - A relative path is merged by step 6: all but the last segment of
//     the base path, then the reference path (so "?y" gives
//     "http://a/b/c/?y", not RFC 3986's "http://a/b/c/d;p?y"), then
//     c) every "./" that is a complete segment is removed, d) a final "."
//     segment is removed, e) every "<segment>/../" with <segment> not
//     ".." is removed, leftmost first, until none is left, f) a final
//     "<segment>/.." is removed, and g) any ".." segments still at the
//     start are kept, the alternative RFC 2396 gives as its answer
//     ("../../../g" gives "http://a/../g").
//   - There is no non-strict mode: "http:g" is "http:g", the answer RFC
//     2396 gives for validating parsers.
//
// One addition to step 6, as Resolve does: a merged path of a base
// without an authority that begins with "//" after steps c) to g) gets
// "/." in front (AppendPath's rule), so "s:/a" and ".//g" give
// "s:/.//g", not "s://g", which reads back with the authority "g".
//
// One addition to step 6a, which RFC 2396 does not cover: when the base has
// an authority and an empty path, the merged path starts with "/" (as in
// RFC 3986 §5.2.3), so that "g" against "http://a" gives "http://a/g" and
// not "http://ag".
//
// A relative reference (one that step 2 or 3 does not finish) against an
// opaque base gives ErrBaseOpaque, dst unchanged.
//
// Components are copied as written, nothing decoded or normalized, and
// defined-but-empty ones are kept (§5.2 step 7). ResolveRFC2396 does not
// allocate when dst has len(base)+len(ref)+1 bytes of spare capacity, the
// most it appends. dst must not overlap the bytes base or ref were parsed
// from.
func ResolveRFC2396(dst []byte, base, ref *URI) ([]byte, error) {
	if !base.Has(Scheme) {
		return dst, ErrBaseNotAbsolute
	}
	// 2) If the path component is empty and the scheme, authority, and
	// query components are undefined, then it is a reference to the
	// current document and we are done.
	if ref.Path() == "" && !ref.Has(Scheme) && !ref.HasAuthority() && !ref.Has(Query) {
		dst = appendScheme(dst, base)
		dst = appendAuthority(dst, base)
		dst = append(dst, base.Path()...)
		dst = appendQuery(dst, base)
		return appendFragment2396(dst, ref), nil
	}
	// 3) If the scheme component is defined, indicating that the reference
	// starts with a scheme name, then the reference is interpreted as an
	// absolute URI and we are done.
	if ref.Has(Scheme) {
		dst = appendScheme(dst, ref)
		dst = appendAuthority(dst, ref)
		dst = append(dst, ref.Path()...)
		dst = appendQuery(dst, ref)
		return appendFragment2396(dst, ref), nil
	}
	if !base.HasAuthority() && !strings.HasPrefix(base.Path(), "/") {
		return dst, ErrBaseOpaque
	}
	// Otherwise, the reference URI's scheme is inherited from the base
	// URI's scheme component.
	dst = appendScheme(dst, base)
	switch rpath := ref.Path(); {
	case ref.HasAuthority():
		// 4) If the authority component is defined, then the reference is
		// a network-path and we skip to step 7.
		dst = appendAuthority(dst, ref)
		dst = append(dst, rpath...)
	case strings.HasPrefix(rpath, "/"):
		// Otherwise, the reference URI's authority is inherited from the
		// base URI's authority component. 5) If the path component
		// begins with a slash character ("/"), then the reference is an
		// absolute-path and we skip to step 7.
		dst = appendAuthority(dst, base)
		dst = append(dst, rpath...)
	default:
		// 6) ... we are resolving a relative-path reference.
		dst = appendAuthority(dst, base)
		start := len(dst)
		// a) All but the last segment of the base URI's path component is
		// copied to the buffer.
		bpath := base.Path()
		prefix := bpath[:strings.LastIndexByte(bpath, '/')+1]
		if prefix == "" && base.HasAuthority() {
			prefix = "/" // the addition documented above
		}
		dst = append(dst, prefix...)
		// b) The reference's path component is appended to the buffer
		// string.
		dst = append(dst, rpath...)
		dst = dotSegments2396(dst, start)
		if !base.HasAuthority() {
			// The rule of AppendPath: "s:/a" and ".//g" give "s:/.//g",
			// not "s://g", which reads back with the authority "g"
			// (RFC 3986 §3.3; RFC 2396's abs_path = "/" path_segments
			// allows an empty first segment, but its hier_part reads a
			// "//" after the scheme as net_path = "//" authority).
			dst = guardPath(dst, start)
		}
	}
	// 7) The resulting URI components ... are recombined.
	dst = appendQuery(dst, ref)
	return appendFragment2396(dst, ref), nil
}

func appendFragment2396(dst []byte, ref *URI) []byte {
	if !ref.Has(Fragment) {
		return dst
	}
	dst = append(dst, '#')
	return append(dst, ref.Fragment()...)
}

// dotSegments2396 applies RFC 2396 §5.2 steps 6c to 6g to the buffer
// dst[start:] in place and returns dst cut to the result.
//
// The leading "/" of an absolute buffer is the one of abs_path, before
// the first segment: no segment precedes it (so "/../g" stays as it is).
// The steps are done in one pass over the segments, writing each one
// kept after the ones kept before it:
//
//   - c) a "." segment followed by "/" is dropped with its "/";
//   - d) a final "." segment is dropped (its "/" before it stays);
//   - e) a ".." segment followed by "/", when the last segment kept is a
//     complete segment other than "..", drops that segment and its "/"
//     and is dropped with its own "/";
//   - f) a final ".." does the same, the "/" before the dropped segment
//     staying;
//   - g) any other ".." is kept.
//
// Dropping as soon as a pattern appears gives the result of the RFC's
// iterated leftmost removal: c) and d) only remove "." segments, which no
// pattern of e) and f) contains, and each removal of e) joins the
// segments on either side of it, which is what the pass sees next (a test
// checks the pass against the steps done as string rewriting).
func dotSegments2396(dst []byte, start int) []byte {
	buf := dst[start:]
	floor := 0 // buf[:floor] is the leading "/", which no step removes
	if len(buf) > 0 && buf[0] == '/' {
		floor = 1
	}
	r, w := floor, floor
	for {
		k := r
		for k < len(buf) && buf[k] != '/' {
			k++
		}
		last := k == len(buf)
		switch {
		case k-r == 1 && buf[r] == '.':
			// c), d)
		case k-r == 2 && buf[r] == '.' && buf[r+1] == '.' && w > floor && !topIsDotDot(buf[floor:w]):
			// e), f): drop the last segment kept and its "/".
			w = floor + bytes.LastIndexByte(buf[floor:w-1], '/') + 1
		default:
			w += copy(buf[w:], buf[r:k])
			if !last {
				buf[w] = '/'
				w++
			}
		}
		if last {
			break
		}
		r = k + 1
	}
	return dst[:start+w]
}

// topIsDotDot reports whether the last segment in kept (each segment
// followed by its "/") is "..".
func topIsDotDot(kept []byte) bool {
	n := len(kept) - 1 // kept[n] is the "/" after the segment
	return n >= 2 && kept[n-1] == '.' && kept[n-2] == '.' && (n == 2 || kept[n-3] == '/')
}
