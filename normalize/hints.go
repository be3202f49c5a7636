package normalize

import (
	"strings"
	"unsafe"

	"github.com/uriscan/uriscan"
)

// Bits of hints: what in a URI may need normalizing. A clear bit is a
// guarantee; a set one may be a false alarm (userinfo counts towards
// hintUpper, a "/." need not start a dot segment).
const (
	hintPct      = 1 << iota // a "%" anywhere
	hintUpper                // an "A"-"Z" before the end of the host (or scheme)
	hintSlashDot             // a "/" followed by "." inside the path
	// hintDotStart: the path begins with "." (a rootless "./x", "../x",
	// "." or ".."), which hintSlashDot does not see. uriHints sets it
	// after hints, so that the assembly and hintsGeneric stay as they are.
	hintDotStart
)

// uriHints returns the hints of u: one pass over its text instead of a
// search per question. hostEnd is where the scheme and host end (0 without
// either), the path is raw[pathStart:pathEnd].
func uriHints(u *uriscan.URI) uint {
	raw := u.String()
	hostEnd := 0
	if _, end, ok := u.Span(uriscan.Host); ok {
		hostEnd = end
	} else if _, end, ok := u.Span(uriscan.Scheme); ok {
		hostEnd = end
	}
	pathStart, pathEnd, _ := u.Span(uriscan.Path)
	h := hints(raw, hostEnd, pathStart, pathEnd)
	if pathStart < pathEnd && raw[pathStart] == '.' {
		h |= hintDotStart
	}
	return h
}

// hintsGeneric is the reference for hints: one search per question.
func hintsGeneric(s string, hostEnd, pathStart, pathEnd int) uint {
	var h uint
	if strings.IndexByte(s, '%') >= 0 {
		h |= hintPct
	}
	if hasUpper(s[:hostEnd]) {
		h |= hintUpper
	}
	if strings.Contains(s[pathStart:pathEnd], "/.") {
		h |= hintSlashDot
	}
	return h
}

// stringData is s's first byte, for the assembly.
func stringData(s string) *byte { return unsafe.StringData(s) }
