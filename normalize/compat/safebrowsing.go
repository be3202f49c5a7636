package compat

import (
	"bytes"
	"errors"
	"net/netip"
	"slices"
	"unicode/utf8"

	"github.com/uriscan/uriscan/internal/ascii"
	"golang.org/x/net/idna"
)

// Errors returned by AppendSafeBrowsing (AppendSURT returns ErrSURTBlank and
// ErrSURTPort instead). An input that gives one of them has no Safe
// Browsing canonical form: the Safe Browsing server could never have
// listed it.
var (
	// ErrSafeBrowsingNoHost: the host is empty after canonicalization
	// (empty input, only white space, "/path", "http:///path", "http://...").
	ErrSafeBrowsingNoHost = errors.New("compat: safe browsing: URL has no host")
	// ErrSafeBrowsingOpaque: the input starts with a scheme that is not
	// followed by "//" (nor by a port number), as in "mailto:a@b.c",
	// "javascript:x" or "http:host": it has no authority to canonicalize.
	ErrSafeBrowsingOpaque = errors.New("compat: safe browsing: URL has a scheme but no \"//\" authority")
	// ErrSafeBrowsingPort: what follows the first ':' of the authority
	// (after any userinfo) is not a (possibly empty) run of ASCII digits,
	// as in "http://a.com:x/" or "http://a:1:2/".
	ErrSafeBrowsingPort = errors.New("compat: safe browsing: port is not a number")
	// ErrSafeBrowsingIPv6: a host that starts with '[' has no ']', has
	// something other than ":port" after it, or holds no IPv6 address.
	ErrSafeBrowsingIPv6 = errors.New("compat: safe browsing: malformed IPv6 literal")
)

// AppendSafeBrowsing appends the Safe Browsing canonical form of raw (any bytes, not necessarily a valid RFC 3986 URI) to dst.
//
// It follows the "Canonicalization" section of Google's Safe Browsing API
// v4 "URLs and Hashing" document
// (https://developers.google.com/safe-browsing/v4/urls-hashing#canonicalization),
// step by step (the quoted sentences are the document's):
//
//   - "remove tab (0x09), CR (0x0d), and LF (0x0a) characters from the URL.
//     Do not remove escape sequences for these characters (e.g. '%0a')."
//     Leading and trailing bytes <= 0x20 are removed too (the document's
//     vector "  http://www.google.com/  " needs it).
//   - "if the URL ends in a fragment, remove the fragment": everything
//     from the first '#' is dropped.
//   - The scheme, host, path and query are then split, and each is
//     "repeatedly percent-unescape[d] ... until it has no more
//     percent-escapes" on its own (as Chromium does, which splits the URL
//     before unescaping), so an encoded '/', '?' or '#' never moves a
//     component boundary. A missing scheme means "http" (also for
//     "host:port/..." and "//host/..."); the scheme is lowercased.
//     Userinfo (up to the last '@' of the authority) and the port (from the
//     first ':' after it) are removed: the document's vector
//     "http://www.gotaport.com:1234/" gives "http://www.gotaport.com/".
//   - Host: "1. Remove all leading and trailing dots. 2. Replace
//     consecutive dots with a single dot. 3. If the hostname can be parsed
//     as an IPv4 address, normalize it to 4 dot-separated decimal values.
//     The client should handle any legal IP-address encoding, including
//     octal, hex, and fewer than four components." (as inet_aton reads
//     them: "0x7f.1", "0177.0.0.1", "2130706433" and "127.1" are all
//     127.0.0.1; a host with a part out of range, such as "256.1.1.1",
//     stays a host name) "4. If the hostname can be parsed as a bracketed
//     IPv6 address, normalize it by removing unnecessary leading zeroes in
//     the components and collapsing zero components by using the
//     double-colon syntax" (RFC 5952 text, as net/netip writes it); an
//     IPv4-mapped address (::ffff:1.2.3.4) or one in the NAT64 prefix
//     64:ff9b::/96 becomes the IPv4 address (a rule of the newer, v5,
//     version of the document). "5. Lowercase the whole string."
//   - Internationalized host names ("the client should convert the URL to
//     the ASCII Punycode representation"): a host that holds a byte >=
//     0x80 after unescaping is converted with idna.Lookup (UTS #46, as
//     browsers do; "www.\xc3\xbcmlat.com" gives "www.xn--mlat-zra.com").
//     When that fails (the bytes are not UTF-8, as in the document's
//     "http://\x01\x80.com/", or UTS #46 rejects a label) the host is kept
//     as it is and its bytes are percent-escaped by the last step.
//   - Path: "Resolve the sequences "/../" and "/./" in the path by
//     replacing "/./" with "/", and removing "/../" along with the
//     preceding path component." (RFC 3986 section 5.2.4: a final "." or
//     ".." leaves a trailing slash, a ".." above the root is dropped) then
//     "Replace runs of consecutive slashes with a single slash
//     character." An empty path is "/". The query is not changed (beyond
//     unescaping and escaping) and an empty query keeps its '?'.
//   - "percent-escape all characters in the URL which are <= ASCII 32,
//     >= 127, "#", or "%". The escapes should use uppercase hex
//     characters."
//
// The result is ASCII with no byte <= 0x20 or >= 0x7F. It is not always a
// fixed point: a character that unescaping produces and that the last step
// does not escape keeps its meaning in the output ("http://a%2Fb/" gives
// "http://a/b/", whose host is "a"); see the fuzz test for the exact class.
//
// On error (ErrSafeBrowsingNoHost, ErrSafeBrowsingOpaque,
// ErrSafeBrowsingPort, ErrSafeBrowsingIPv6) dst is returned unchanged. It
// never panics.
func AppendSafeBrowsing(dst, raw []byte) ([]byte, error) {
	var cleanBuf, workBuf [canonStack]byte
	n := len(dst)
	out, err := appendSafeBrowsing(dst, raw, cleanBuf[:0], workBuf[:0])
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// canonStack is the size of the stack scratch buffers: longer URLs spill to
// the heap.
const canonStack = 512

func appendSafeBrowsing(dst, raw, clean, work []byte) ([]byte, error) {
	// Remove tab, CR and LF; drop the fragment; trim.
	clean = slices.Grow(clean, len(raw)) // sized once (a long URL)
	for _, c := range raw {
		if c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if c == '#' {
			break
		}
		clean = append(clean, c)
	}
	s := canonTrimC0(clean)

	// Scheme.
	scheme := []byte("http")
	if n := canonSchemeLen(s); n > 0 {
		after := s[n+1:]
		switch {
		case len(after) >= 2 && after[0] == '/' && after[1] == '/':
			scheme = s[:n]
			s = after[2:]
		case sbPortLike(after):
			// "host:port/..." with no scheme.
		default:
			return dst, ErrSafeBrowsingOpaque
		}
	} else if len(s) >= 2 && s[0] == '/' && s[1] == '/' {
		s = s[2:]
	}

	// Authority, path, query.
	end := len(s)
	for i, c := range s {
		if c == '/' || c == '?' {
			end = i
			break
		}
	}
	auth, rest := s[:end], s[end:]
	path, query, hasQuery := rest, []byte(nil), false
	for i, c := range rest {
		if c == '?' {
			path, query, hasQuery = rest[:i], rest[i+1:], true
			break
		}
	}
	for i := len(auth) - 1; i >= 0; i-- {
		if auth[i] == '@' {
			auth = auth[i+1:]
			break
		}
	}

	start := len(dst)
	for _, c := range scheme {
		dst = append(dst, ascii.Lower(c))
	}
	dst = append(dst, "://"...)

	// Host.
	var err error
	if dst, err = sbAppendHost(dst, auth, work); err != nil {
		return dst[:start], err
	}

	// Path.
	work = canonAppendUnescaped(work[:0], path)
	work = canonPath(work, false)
	dst = canonAppendEscaped(dst, work)

	// Query.
	if hasQuery {
		dst = append(dst, '?')
		work = canonAppendUnescaped(work[:0], query)
		dst = canonAppendEscaped(dst, work)
	}
	return dst, nil
}

// sbPortLike reports whether s (what follows "name:" at the start of a URL)
// is a port number: digits up to the end, a '/' or a '?'. "host:80/x" is
// then a host and port with no scheme.
func sbPortLike(s []byte) bool {
	for _, c := range s {
		if c == '/' || c == '?' {
			return true
		}
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// sbAppendHost appends the canonical host of auth (the authority without
// userinfo) to dst; work is scratch.
func sbAppendHost(dst, auth, work []byte) ([]byte, error) {
	if len(auth) > 0 && auth[0] == '[' {
		j := -1
		for i, c := range auth {
			if c == ']' {
				j = i
				break
			}
		}
		if j < 0 || !sbPortOK(auth[j+1:], true) {
			return dst, ErrSafeBrowsingIPv6
		}
		work = canonAppendUnescaped(work[:0], auth[1:j])
		a, err := netip.ParseAddr(string(work))
		if err != nil || !a.Is6() {
			return dst, ErrSafeBrowsingIPv6
		}
		if a.Zone() == "" && (a.Is4In6() || sbNAT64.Contains(a)) {
			b := a.As16()
			return canonAppendIPv4(dst, uint32(b[12])<<24|uint32(b[13])<<16|uint32(b[14])<<8|uint32(b[15])), nil
		}
		dst = append(dst, '[')
		dst = canonAppendEscaped(dst, a.AppendTo(work[:0]))
		return append(dst, ']'), nil
	}
	for i, c := range auth {
		if c == ':' {
			if !sbPortOK(auth[i:], false) {
				return dst, ErrSafeBrowsingPort
			}
			auth = auth[:i]
			break
		}
	}
	work = canonAppendUnescaped(work[:0], auth)
	work = canonDots(work, false)
	if canonHasNonASCII(work) && utf8.Valid(work) {
		if a, err := idna.Lookup.ToASCII(string(work)); err == nil {
			work = canonDots(append(work[:0], a...), false)
		}
	}
	if len(work) == 0 {
		return dst, ErrSafeBrowsingNoHost
	}
	if v, ok := canonParseIPv4(work, true); ok {
		return canonAppendIPv4(dst, v), nil
	}
	for i, c := range work {
		work[i] = ascii.Lower(c)
	}
	return canonAppendEscaped(dst, work), nil
}

// sbNAT64 is the NAT64 well-known prefix (RFC 6052).
var sbNAT64 = netip.MustParsePrefix("64:ff9b::/96")

// sbPortOK reports whether s is "" or ":" followed by ASCII digits (only
// "" when empty is false and s must start with ':').
func sbPortOK(s []byte, emptyOK bool) bool {
	if len(s) == 0 {
		return emptyOK
	}
	if s[0] != ':' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// Helpers shared with surt.go.

// canonDecodeAt decodes the escape "%XY" at b[i:], if there is one.
func canonDecodeAt(b []byte, i int) (byte, bool) {
	if i+2 >= len(b) || b[i] != '%' {
		return 0, false
	}
	return ascii.Unhex(b[i+1])<<4 | ascii.Unhex(b[i+2]), ascii.IsHex(b[i+1]) && ascii.IsHex(b[i+2])
}

// canonAppendUnescaped appends src percent-unescaped again and again until
// no "%XY" escape is left (Python's unquote_to_bytes applied until it
// changes nothing) to dst. It does so in one pass: after each byte it
// appends, it decodes the last three bytes of its output while they form an
// escape, which is where the next pass would find one.
func canonAppendUnescaped(dst, src []byte) []byte {
	if bytes.IndexByte(src, '%') < 0 {
		return append(dst, src...)
	}
	start := len(dst)
	for i := 0; i < len(src); {
		c := src[i]
		i++
		if c == '%' {
			if d, ok := canonDecodeAt(src, i-1); ok {
				c = d
				i += 2
			}
		}
		dst = append(dst, c)
		for n := len(dst); n-start >= 3 && dst[n-3] == '%'; n = len(dst) {
			d, ok := canonDecodeAt(dst, n-3)
			if !ok {
				break
			}
			dst[n-3] = d
			dst = dst[:n-2]
		}
	}
	return dst
}

// canonAppendEscaped appends src to dst with every byte <= 0x20, >= 0x7F,
// '#' and '%' percent-escaped in uppercase hex (Safe Browsing's last step;
// also what Python's quote_from_bytes does with surt's safe set).
func canonAppendEscaped(dst, src []byte) []byte {
	if len(src) > canonStack {
		// A long one: the room it takes, once, not a grown copy after
		// another.
		n := len(src)
		for _, c := range src {
			if c <= 0x20 || c >= 0x7f || c == '#' || c == '%' {
				n += 2
			}
		}
		dst = slices.Grow(dst, n)
	}
	for _, c := range src {
		if c <= 0x20 || c >= 0x7f || c == '#' || c == '%' {
			dst = append(dst, '%', ascii.UpperHex[c>>4], ascii.UpperHex[c&15])
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

func canonHasNonASCII(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// canonTrimC0 removes leading and trailing bytes <= 0x20.
func canonTrimC0(b []byte) []byte {
	for len(b) > 0 && b[0] <= 0x20 {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] <= 0x20 {
		b = b[:len(b)-1]
	}
	return b
}

// canonSchemeLen returns the length of the scheme (ALPHA *( ALPHA / DIGIT
// / "+" / "-" / "." )) that starts b and is followed by ':', or 0.
func canonSchemeLen(b []byte) int {
	for i, c := range b {
		switch {
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return 0
		}
	}
	return 0
}

// canonDots canonicalizes the dots of a host in place and returns it:
// leading and trailing dots are removed and, with python false, every run of
// dots becomes one (Safe Browsing); with python true, as Python's
// host.replace(b'..', b'.').strip(b'.') does, each ".." becomes "." in one
// left-to-right pass, so "a...b" gives "a..b" (surt).
func canonDots(b []byte, python bool) []byte {
	w := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c == '.' && i+1 < len(b) && b[i+1] == '.' {
			if python {
				i++
			} else {
				continue
			}
		}
		b[w] = c
		w++
	}
	b = b[:w]
	for len(b) > 0 && b[0] == '.' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}

// canonParseIPv4 parses b as inet_aton does: one to four '.'-separated
// parts, each decimal, octal (leading 0) or, when hex is set, hexadecimal
// (leading 0x or 0X, at least one digit); every part but the last is at
// most 255 and the last fills the remaining bytes ("127.1" is 127.0.0.1).
func canonParseIPv4(b []byte, hex bool) (uint32, bool) {
	var parts [4]uint64
	n := 0
	for len(b) > 0 || n == 0 {
		if n == 4 {
			return 0, false
		}
		i := 0
		for i < len(b) && b[i] != '.' {
			i++
		}
		v, ok := canonParseIPv4Part(b[:i], hex)
		if !ok {
			return 0, false
		}
		parts[n] = v
		n++
		if i == len(b) {
			break
		}
		b = b[i+1:]
		if len(b) == 0 {
			return 0, false // trailing '.'
		}
	}
	var v uint64
	for i := 0; i < n-1; i++ {
		if parts[i] > 0xff {
			return 0, false
		}
		v = v<<8 | parts[i]
	}
	shift := uint(8 * (5 - n))
	if parts[n-1] >= 1<<shift {
		return 0, false
	}
	return uint32(v<<shift | parts[n-1]), true
}

func canonParseIPv4Part(b []byte, hex bool) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	base := uint64(10)
	if len(b) >= 2 && b[0] == '0' && (b[1] == 'x' || b[1] == 'X') {
		if !hex || len(b) == 2 {
			return 0, false
		}
		base, b = 16, b[2:]
	} else if len(b) >= 2 && b[0] == '0' {
		base, b = 8, b[1:]
	}
	var v uint64
	for _, c := range b {
		d := ascii.Unhex(c)
		if !ascii.IsHex(c) || uint64(d) >= base {
			return 0, false
		}
		v = v*base + uint64(d)
		if v > 0xffffffff {
			return 0, false
		}
	}
	return v, true
}

// canonAppendIPv4 appends v as four dot-separated decimals.
func canonAppendIPv4(dst []byte, v uint32) []byte {
	for i := 3; i >= 0; i-- {
		b := byte(v >> (8 * i))
		if b >= 100 {
			dst = append(dst, '0'+b/100)
		}
		if b >= 10 {
			dst = append(dst, '0'+b/10%10)
		}
		dst = append(dst, '0'+b%10)
		if i > 0 {
			dst = append(dst, '.')
		}
	}
	return dst
}

// canonPath resolves the "." and ".." segments of the (unescaped) path p
// in place, collapses runs of '/' into one, and returns it ("/" when it is
// empty).
//
// With python false it is Safe Browsing's path step, RFC 3986 section 5.2.4
// style: a ".." above the root is dropped and a final "." or ".." leaves a
// trailing slash ("/a/b/.." is "/a/"). With python true it is surt's
// GoogleURLCanonicalizer.normalizePath: what precedes the first '/' is
// dropped, a ".." above the root is kept as a segment ("/../a") and a final
// "." or ".." leaves none ("/a/b/.." is "/a").
//
// Segments are written as units "/seg"; popping a unit cuts the output back
// to its last '/'. Empty segments are units too (so "/a//../b" is "/a/b",
// as in the RFC and in Python), and collapsing the slashes at the end drops
// them.
func canonPath(p []byte, python bool) []byte {
	r := -1
	for i, c := range p {
		if c == '/' {
			r = i
			break
		}
	}
	switch {
	case python && r < 0:
		return append(p[:0], '/')
	case !python && r != 0:
		// Not reached for Safe Browsing paths (they start with '/' or
		// are empty): read p as if it started with '/'.
		p = append(p, 0)
		copy(p[1:], p)
		p[0] = '/'
		r = 0
	}
	w := 0
	for r < len(p) {
		e := r + 1
		for e < len(p) && p[e] != '/' {
			e++
		}
		seg := p[r+1 : e]
		last := e == len(p)
		switch {
		case len(seg) == 1 && seg[0] == '.':
			if last && !python {
				p[w] = '/'
				w++
			}
		case len(seg) == 2 && seg[0] == '.' && seg[1] == '.' && (w > 0 || !python):
			for w > 0 {
				w--
				if p[w] == '/' {
					break
				}
			}
			if last && !python {
				p[w] = '/'
				w++
			}
		default:
			w += copy(p[w:], p[r:e])
		}
		r = e
	}
	p = p[:w]
	w = 0
	for _, c := range p {
		if c == '/' && w > 0 && p[w-1] == '/' {
			continue
		}
		p[w] = c
		w++
	}
	p = p[:w]
	if len(p) == 0 {
		p = append(p, '/')
	}
	return p
}
