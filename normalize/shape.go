package normalize

import (
	"slices"
	"strings"

	"github.com/uriscan/uriscan"
)

// Shape is the structural level: a URL's crawler normal form with every
// path segment that is an identifier replaced by its kind and the query
// reduced to the sorted set of its keys, so that URLs that differ only in
// ids and parameter values are one (what recon tools call "similar" URLs:
// uro, urldedupe -s, katana -fsu):
//
//	https://Example.com/users/123/posts?page=2&sort=new
//	https://example.com/users/:int/posts?page&sort
//
// A segment is replaced when all of it, or all of it before a short
// extension ("123.html"), is one of: digits (":int"), a UUID (":uuid"), a
// date YYYY-MM-DD or YYYYMMDD (":date"), or at least 8 hex digits with a
// digit and a letter among them (":hex"). The fragment is dropped. The
// result is a valid URI (":int" is a path segment), not one that
// identifies a resource.
//
// It keys URLs; unlike uro it keeps no state from one URL to the next
// (uro also drops URLs whose parameters were all seen on another path,
// static files by extension, and blog posts), so which URL of a class
// dedup keeps is the first, and the classes are the same in any order.
const Shape Level = W3lib + 1

// appendShape rewrites the crawler normal form in dst[start:] into its
// shape.
func appendShape(dst []byte, start int) []byte {
	form := dst[start:]
	u, err := uriscan.Parse(form)
	if err != nil {
		return dst // a normal form of a valid URI parses; keep it if not
	}
	end := len(dst)
	ps, _, _ := u.Span(uriscan.Path)
	dst = append(dst, form[:ps]...)
	path := u.Path()
	i := 0
	if !u.Has(uriscan.Scheme) && !u.HasAuthority() && !strings.HasPrefix(path, "/") {
		// A relative reference's first segment stays: ":int/x" would
		// read as a scheme.
		j := strings.IndexByte(path, '/')
		if j < 0 {
			j = len(path)
		}
		dst = append(dst, path[:j]...)
		i = j
		if i < len(path) {
			dst = append(dst, '/')
			i++
		}
	}
	for i < len(path) {
		j := strings.IndexByte(path[i:], '/')
		if j < 0 {
			j = len(path) - i
		}
		dst = appendSegmentShape(dst, path[i:i+j])
		i += j
		if i < len(path) { // the '/'
			dst = append(dst, '/')
			i++
		}
	}
	if q := u.Query(); q != "" {
		dst = appendQueryKeysSorted(dst, q)
	}
	n := copy(dst[start:], dst[end:])
	return dst[:start+n]
}

// appendSegmentShape appends the segment s, or its kind.
func appendSegmentShape(dst []byte, s string) []byte {
	stem, ext := s, ""
	if i := strings.LastIndexByte(s, '.'); i > 0 && len(s)-i-1 >= 1 && len(s)-i-1 <= 5 && isAlnum(s[i+1:]) {
		stem, ext = s[:i], s[i:]
	}
	kind := segmentKind(stem)
	if kind == "" {
		return append(dst, s...)
	}
	dst = append(dst, kind...)
	return append(dst, ext...)
}

// segmentKind is ":int", ":uuid", ":date" or ":hex" when s is one, else "".
func segmentKind(s string) string {
	if s == "" {
		return ""
	}
	digits, hex, letters := 0, 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			digits++
			hex++
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			hex++
			letters++
		}
	}
	switch {
	case isDate(s):
		return ":date"
	case digits == len(s):
		return ":int"
	case isUUID(s):
		return ":uuid"
	case hex == len(s) && len(s) >= 8 && digits > 0 && letters > 0:
		return ":hex"
	}
	return ""
}

// isDate reports whether s is YYYY-MM-DD or YYYYMMDD with a year from 1900
// to 2099, a month 01-12 and a day 01-31.
func isDate(s string) bool {
	var y, m, d string
	switch {
	case len(s) == 10 && s[4] == '-' && s[7] == '-':
		y, m, d = s[:4], s[5:7], s[8:]
	case len(s) == 8:
		y, m, d = s[:4], s[4:6], s[6:]
	default:
		return false
	}
	if !digitsOnly(y) || !digitsOnly(m) || !digitsOnly(d) || y[:2] != "19" && y[:2] != "20" {
		return false
	}
	mm, dd := int(m[0]-'0')*10+int(m[1]-'0'), int(d[0]-'0')*10+int(d[1]-'0')
	return 1 <= mm && mm <= 12 && 1 <= dd && dd <= 31
}

// isUUID reports whether s is 8-4-4-4-12 hex digits.
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if c != '-' {
				return false
			}
			continue
		}
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if !('0' <= s[i] && s[i] <= '9' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// appendQueryKeysSorted appends "?" and the keys of the query's pairs,
// sorted, each once, joined by "&" (nothing when every key is empty).
func appendQueryKeysSorted(dst []byte, q string) []byte {
	var small [32]string
	keys := small[:0]
	for q != "" {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if k, _, _ := strings.Cut(pair, "="); k != "" {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return dst
	}
	slices.Sort(keys)
	keys = slices.Compact(keys)
	dst = append(dst, '?')
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = append(dst, k...)
	}
	return dst
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
