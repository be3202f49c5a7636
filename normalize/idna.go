package normalize

import (
	"unicode/utf8"

	"github.com/uriscan/uriscan/internal/ascii"
	"golang.org/x/net/idna"
)

// appendIDNAHost appends the A-label form of a reg-name host written in
// Unicode, raw (UTF-8 bytes) or percent-encoded ("b%C3%BCcher.example"),
// to dst: the host is decoded, and golang.org/x/net/idna's Lookup profile
// (UTS #46 non-transitional processing with its mapping, as browsers look
// names up) turns it into ASCII ("xn--bcher-kva.example").
//
// It reports false, appending nothing, when the host has no byte >= 0x80
// once decoded (nothing to convert: the caller keeps its own form), when
// the decoded bytes are not UTF-8, or when UTS #46 rejects the name (a
// disallowed code point, a bidi or joiner rule, an empty label): a name no
// browser would look up keeps its percent-encoded form, which RFC 3986
// §3.2.2 allows for any reg-name.
func appendIDNAHost(dst, host []byte) ([]byte, bool) {
	wide := false
	for i := 0; i < len(host) && !wide; i++ {
		switch c := host[i]; {
		case c >= 0x80:
			wide = true
		case c == '%' && i+2 < len(host) && ascii.IsHex(host[i+1]) && ascii.IsHex(host[i+2]):
			wide = ascii.Unhex(host[i+1]) >= 8
			i += 2
		}
	}
	if !wide {
		return dst, false
	}
	var buf [256]byte
	dec := buf[:0]
	for i := 0; i < len(host); i++ {
		c := host[i]
		if c == '%' && i+2 < len(host) && ascii.IsHex(host[i+1]) && ascii.IsHex(host[i+2]) {
			c = ascii.Unhex(host[i+1])<<4 | ascii.Unhex(host[i+2])
			i += 2
		}
		dec = append(dec, c)
	}
	if !utf8.Valid(dec) {
		return dst, false
	}
	a, err := idna.Lookup.ToASCII(string(dec))
	if err != nil || a == "" {
		return dst, false
	}
	return append(dst, a...), true
}
