// Package normalize writes the normal form of a parsed URI (RFC 3986 §6),
// and on top of it a crawler's heuristics (Crawler, Shape), so that
// equivalent URIs have one text. Package urikey hashes that text into a
// seen-set's 16-byte key; package normalize/compat writes other tools'
// canonical forms (w3lib, SURT, Safe Browsing); the levels W3lib and
// SafeBrowsing call it.
//
// Two levels are RFC equivalences:
//
//   - Syntax (§6.2.2): lowercase scheme and host; uppercase hex digits in
//     every percent-encoding; decode percent-encoded unreserved characters,
//     and only those ("%2F" stays); remove dot segments (§6.2.2.3, by
//     §5.2.4's remove_dot_segments) from every path of a URI with a
//     scheme, a rootless one too ("foo:a/../b" becomes "foo:/b",
//     "foo:./a" becomes "foo:a"), and from the absolute path of a
//     relative reference. A relative reference's rootless path keeps
//     them ("a/../../b" stays: as "/b" it would resolve to another
//     target). Normalizer.KeepRootlessDots keeps them in a rootless path
//     with a scheme too, the form of uriscan before 2026-12. A path without an
//     authority never begins with "//" (RFC 3986 §3: it would read as
//     an authority): "/." is written in front, as uriscan.AppendPath
//     and Resolve do ("f:a/..//g" becomes "f:/.//g"). As §6.2.2 orders
//     it, a segment written "%2E" or "%2E%2E" is decoded (§6.2.2.2) and
//     then removed as a dot segment (§6.2.2.3): "http://a/b/%2E%2E/c" becomes
//     "http://a/c", as uriparser, Boost.URL and browsers give.
//     Normalizer.KeepEncodedDots keeps such segments encoded instead, for
//     callers that need normal forms that resolve references exactly like
//     the original: reference resolution (§5.2.4) reads "%2E%2E" as an
//     ordinary segment, so "g" against "http://a/b/%2E%2E/c" gives
//     "http://a/b/%2E%2E/g", while against "http://a/c" it gives
//     "http://a/g".
//   - Scheme (§6.2.3), on top of Syntax: drop an empty port and the
//     scheme's default port (see DefaultPort); an empty path becomes "/"
//     for http, https, ws and wss with an authority.
//
// What is not done, and why: IPv6 addresses are lowercased but not
// compressed or expanded (RFC 5952 forms are a different equivalence than
// RFC 3986's); hosts are not converted with IDNA (RFC 3986 hosts are
// ASCII; IDNA belongs to IRIs, RFC 3987); percent-encoded reserved
// characters are never decoded, since that can change a URI's meaning;
// delimiters of empty components ("?" or "#" with nothing after) are kept
// (§6.2.3 says they are significant); scheme-specific case rules such as
// the host part of mailto addresses are not applied.
//
// A Normalizer appends into the caller's buffer and keeps one scratch
// buffer of its own, so normalization allocates nothing once warm.
// Components that need no change are copied in one piece.
package normalize

import (
	"encoding/binary"
	"net/netip"
	"strings"
	"unsafe"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/classify"
	"github.com/uriscan/uriscan/internal/ascii"
	"github.com/uriscan/uriscan/internal/ports"
	"github.com/uriscan/uriscan/normalize/compat"
)

// Level selects which equivalences Append applies.
type Level uint8

const (
	// Syntax is RFC 3986 §6.2.2 syntax-based normalization.
	Syntax Level = iota + 1
	// Scheme adds RFC 3986 §6.2.3 scheme-based normalization.
	Scheme
	// Crawler adds the Heuristics of the Normalizer (all of them when its
	// Heuristics field is zero) on top of Scheme. These are NOT RFC
	// equivalences; see Heuristics.
	Crawler
	// SafeBrowsing is Google Safe Browsing's URL canonicalization
	// (compat.AppendSafeBrowsing): the lookup key of its blocklists, not an
	// RFC equivalence (it unescapes everything, so "a%2Fb" and "a/b" are
	// one). A Raw level.
	SafeBrowsing
	// W3lib is Python w3lib's canonicalize_url (compat.AppendW3lib), on
	// which Scrapy's request fingerprints are built. A Raw level.
	W3lib
)

// String returns "syntax", "scheme", "crawler", "shape", "safebrowsing" or
// "w3lib".
func (l Level) String() string {
	switch l {
	case Syntax:
		return "syntax"
	case Scheme:
		return "scheme"
	case Crawler:
		return "crawler"
	case SafeBrowsing:
		return "safebrowsing"
	case W3lib:
		return "w3lib"
	case Shape:
		return "shape"
	}
	return "level(" + string(rune('0'+l)) + ")"
}

// ParseLevel parses "syntax", "scheme", "crawler", "shape",
// "safebrowsing" or "w3lib".
func ParseLevel(s string) (Level, bool) {
	switch s {
	case "safebrowsing":
		return SafeBrowsing, true
	case "w3lib":
		return W3lib, true
	case "syntax":
		return Syntax, true
	case "scheme":
		return Scheme, true
	case "crawler":
		return Crawler, true
	case "shape":
		return Shape, true
	}
	return 0, false
}

// DefaultPort returns the default port of a (lowercase) scheme that Scheme
// normalization removes, and whether the scheme has one in its table:
// http 80, https 443, ws 80, wss 443, ftp 21, gopher 70, telnet 23,
// ldap 389, ldaps 636, nntp 119, rtsp 554, ssh and sftp 22, imap 143,
// pop 110, sip 5060, sips 5061, xmpp 5222, tftp 69.
//
// tftp is there because a tftp URI (RFC 3617) names a file on a TFTP
// server, which listens on TFTP's well-known port 69 (RFC 1350): RFC
// 3617's own syntax has no port at all, so ":69" can only repeat the
// default, and "tftp://h:69/f" and "tftp://h/f" are one resource, as
// "ssh://h:22" and "ssh://h" are.
//
// It is the only table: Normalizer levels Scheme and Crawler use all of
// it; compat.AppendSURT drops only the http and https entries (the surt
// library's getDefaultPort knows no other); compat.AppendW3lib keeps every
// port and compat.AppendSafeBrowsing drops every port, as their owners do.
//
// The table itself is internal/ports, which format shares.
func DefaultPort(scheme string) (string, bool) { return ports.Default(scheme) }

// slashWhenEmpty lists the schemes whose empty path with an authority
// means "/" (§6.2.3).
func slashWhenEmpty(scheme []byte) bool {
	switch len(scheme) {
	case 2:
		return scheme[0] == 'w' && scheme[1] == 's'
	case 3:
		return string(scheme) == "wss"
	case 4:
		return string(scheme) == "http"
	case 5:
		return string(scheme) == "https"
	}
	return false
}

// Normalizer appends normal forms. The zero value is ready to use; it is
// not safe for concurrent use (it owns a scratch buffer).
type Normalizer struct {
	// Heuristics are the crawler heuristics level Crawler applies; zero
	// means AllHeuristics.
	Heuristics Heuristics
	// StripParams are the query parameter names the StripParams heuristic
	// removes (case-insensitive; a trailing "*" makes a prefix); nil means
	// DefaultStripParams.
	StripParams []string
	// KeepEncodedDots keeps a path segment written "%2E" or "%2E%2E"
	// encoded (its hex digits uppercased) instead of decoding it and
	// removing it as a dot segment: normal forms then resolve relative
	// references exactly as the original does (see the package doc).
	KeepEncodedDots bool
	// KeepRootlessDots keeps the dot segments of a rootless path in a
	// URI with a scheme ("foo:a/../b" stays, "foo:./a" stays), the
	// normal form of uriscan before 2026-12. By default they are removed, as RFC
	// 3986 §6.2.2.3 says for every path: "foo:a/../b" becomes "foo:/b"
	// and "foo:./a" becomes "foo:a", the targets Resolve gives for those
	// URIs as absolute references.
	//
	// The trade-off: removing them can make a rootless path absolute
	// ("a/../b" is "/b"), and a reference with an empty path keeps its
	// base's path as it is (§5.2.2), so the kept form is the one whose
	// relative references resolve exactly as against the original text
	// ("?y" against "foo:a/../b" gives "foo:a/../b?y", against its RFC
	// normal form "foo:/b?y"; both have the RFC normal form "foo:/b?y").
	// A relative reference without a scheme keeps the dot segments of a
	// rootless path either way (see removesDots in the source: removing
	// them changes where it resolves).
	KeepRootlessDots bool
	// IPv6RFC5952 writes an IPv6 host in RFC 5952's text form (lower
	// case, no leading zeros in a group, the longest run of two or more
	// zero groups as "::", the first of equal runs; an IPv4-mapped
	// address as ::ffff:a.b.c.d), as net/netip does. Off by default: it
	// is another equivalence than RFC 3986's, which only lowercases.
	IPv6RFC5952 bool
	// W3lib are canonicalize_url's options at level W3lib.
	W3lib compat.W3libOptions

	scratch []byte
	params  []paramSpan
}

// Append appends the normal form of u at level to dst and returns the
// extended buffer. u must come from a successful uriscan parse. At a Raw
// level it is the owner's canonical form of u's text (AppendRaw), or u's
// Scheme normal form when the owner refuses it.
func (n *Normalizer) Append(dst []byte, u *uriscan.URI, level Level) []byte {
	if level.Raw() {
		return n.appendRawOrScheme(dst, u, level)
	}
	start := len(dst)
	dst = n.appendScheme(dst, u, level)
	if level >= Crawler { // Crawler, Shape
		h := n.Heuristics
		if h == 0 {
			h = AllHeuristics
		}
		dst = n.crawl(dst, start, h)
	}
	if level == Shape {
		dst = appendShape(dst, start)
	}
	return dst
}

// A Check is what Normalizer.Check found out about a URI before writing
// anything: whether its text is already its normal form, and what
// AppendChecked needs to write the form when it is not.
type Check struct {
	normal bool
	hints  uint
}

// Normal reports whether the URI's text is already its normal form. True
// is certain; false means only that AppendChecked must write the form
// (which may turn out to be the same text).
func (c Check) Normal() bool { return c.normal }

// Check takes the look at u that Append takes before it writes anything:
// one pass over u's text, which at levels Syntax and Scheme tells that
// most URIs are already normal (at the other levels Check finds nothing,
// and Normal is false). Append is Check then AppendChecked; a caller that
// can use a normal URI's text where it lies calls them apart, as
// urikey.Hasher does to hash such a URI without a copy.
func (n *Normalizer) Check(u *uriscan.URI, level Level) Check {
	if level > Scheme {
		return Check{}
	}
	normal, hints := n.unchanged(u, level)
	return Check{normal, hints}
}

// AppendChecked is Append for a u that c, n.Check(u, level), is about: it
// appends the normal form of u at level to dst (u's text itself when
// c.Normal()) without looking at u again.
func (n *Normalizer) AppendChecked(dst []byte, u *uriscan.URI, level Level, c Check) []byte {
	switch {
	case level > Scheme:
		return n.Append(dst, u, level)
	case c.normal:
		return append(dst, u.String()...) // already normal: one copy
	}
	return n.appendChanged(dst, u, level, c.hints)
}

// appendScheme is Append up to level Scheme.
func (n *Normalizer) appendScheme(dst []byte, u *uriscan.URI, level Level) []byte {
	normal, hints := n.unchanged(u, level)
	if normal {
		return append(dst, u.String()...) // already normal: one copy
	}
	return n.appendChanged(dst, u, level, hints)
}

// appendChanged is appendScheme for a u that unchanged rejected.
func (n *Normalizer) appendChanged(dst []byte, u *uriscan.URI, level Level, hints uint) []byte {
	marks := u.Grammar() == uriscan.RFC2396
	var scheme []byte // the lowercased scheme, in dst
	if u.Has(uriscan.Scheme) {
		start := len(dst)
		dst = appendLower(dst, u.Scheme())
		scheme = dst[start:len(dst):len(dst)]
		dst = append(dst, ':')
	}
	if u.HasAuthority() {
		dst = append(dst, '/', '/')
		if u.Has(uriscan.Userinfo) {
			dst = appendPct(dst, u.Userinfo(), false, marks)
			dst = append(dst, '@')
		}
		if h := u.Host(); n.rewritesIPv6(u) {
			dst = appendIPv6(dst, h)
		} else {
			dst = appendPct(dst, h, true, marks)
		}
		if u.Has(uriscan.Port) {
			port := u.Port()
			drop := false
			if level >= Scheme {
				def, ok := ports.Default(string(scheme)) // no allocation: map index
				drop = port == "" || ok && port == def
			}
			if !drop {
				dst = append(dst, ':')
				dst = append(dst, port...)
			}
		}
	}
	path := u.Path()
	switch {
	case path == "" && u.HasAuthority() && level >= Scheme && slashWhenEmpty(scheme):
		dst = append(dst, '/')
	case n.removesDots(u, path):
		// §6.2.2.3: remove dot segments, after §6.2.2.2 on each segment.
		if hints&hintPct == 0 && (hints&(hintSlashDot|hintDotStart) == 0 || !hasDotSegment(path)) {
			dst = append(dst, path...)
			break
		}
		n.scratch = appendPathPct(n.scratch[:0], path, n.KeepEncodedDots, marks)
		// uriscan.AppendPath: remove_dot_segments (§5.2.4), and without an
		// authority "/." in front of a result beginning with "//"
		// ("foo:/.//x" must not become "foo://x", whose "x" would read
		// as an authority; "/.//x" normalizes to itself, so the form
		// stays stable). Resolve writes its paths by the same rule.
		dst = uriscan.AppendPath(dst, unsafe.String(unsafe.SliceData(n.scratch), len(n.scratch)), u.HasAuthority())
	default:
		dst = appendPathPct(dst, path, n.KeepEncodedDots, marks)
	}
	if u.Has(uriscan.Query) {
		dst = append(dst, '?')
		dst = appendPct(dst, u.Query(), false, marks)
	}
	if u.Has(uriscan.Fragment) {
		dst = append(dst, '#')
		dst = appendPct(dst, u.Fragment(), false, marks)
	}
	return dst
}

// rewritesIPv6 reports whether n writes u's host in RFC 5952 form.
func (n *Normalizer) rewritesIPv6(u *uriscan.URI) bool {
	return n.IPv6RFC5952 && u.HostType() == uriscan.IPv6
}

// appendIPv6 appends the IP-literal host ("[...]") in RFC 5952 form.
func appendIPv6(dst []byte, host string) []byte {
	a, err := netip.ParseAddr(host[1 : len(host)-1])
	if err != nil || !a.Is6() {
		return appendPct(dst, host, true, false) // not expected: the grammar checked it
	}
	dst = append(dst, '[')
	dst = a.AppendTo(dst)
	return append(dst, ']')
}

// String parses s and returns its normal form at level with the zero
// Normalizer's options.
func String(s string, level Level) (string, error) {
	var n Normalizer
	return n.String(s, level)
}

// String parses s and returns its normal form at level with n's options.
// It allocates the result; Append is the zero-allocation form.
func (n *Normalizer) String(s string, level Level) (string, error) {
	u, err := uriscan.ParseString(s)
	if err != nil {
		return "", err
	}
	return string(n.Append(nil, &u, level)), nil
}

// appendPathPct is appendPct for a path; with keepDots, segment by
// segment, a segment that would decode to "." or ".." keeps its encodings
// ("%2E"): reference resolution (§5.2.4) reads "%2E" literally, so
// decoding it changes how the URI resolves relative references.
func appendPathPct(dst []byte, path string, keepDots, marks bool) []byte {
	if !keepDots {
		return appendPct(dst, path, false, marks)
	}
	for len(path) > 0 {
		i := strings.IndexByte(path[1:], '/') + 1
		if i == 0 {
			i = len(path)
		}
		seg := path[:i]
		if strings.IndexByte(seg, '%') >= 0 && isDotSegment(seg) {
			dst = appendPctKeep(dst, seg)
		} else {
			dst = appendPct(dst, seg, false, marks)
		}
		path = path[i:]
	}
	return dst
}

// isDotSegment reports whether seg (with or without its leading "/")
// decodes to "." or "..".
func isDotSegment(seg string) bool {
	seg = strings.TrimPrefix(seg, "/")
	dots := 0
	for i := 0; i < len(seg); i++ {
		switch {
		case seg[i] == '.':
		case seg[i] == '%' && i+2 < len(seg) && seg[i+1] == '2' && seg[i+2]|0x20 == 'e':
			i += 2
		default:
			return false
		}
		dots++
	}
	return dots == 1 || dots == 2
}

// appendPctKeep appends s with the hex digits of its encodings uppercased
// but nothing decoded.
func appendPctKeep(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) {
			dst = append(dst, '%', upper(s[i+1]), upper(s[i+2]))
			i += 2
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

func upper(c byte) byte {
	if 'a' <= c && c <= 'z' {
		return c - 'a' + 'A'
	}
	return c
}

// removesDots reports whether n removes the dot segments of path, u's
// path (§6.2.2.3): always from an absolute path ("/..."), and from a
// rootless one ("a/../b") when u has a scheme, unless KeepRootlessDots.
//
// A relative reference without a scheme keeps the dot segments of its
// rootless path: they are not redundant there. A relative-path reference
// is merged with a base's path (§5.2.3) before its dots are removed, so
// "a/../../b" against "http://h/x/y" gives "http://h/b", while
// remove_dot_segments would make it the absolute "/b" (and "../b" would
// become "b"), references that resolve to other targets.
func (n *Normalizer) removesDots(u *uriscan.URI, path string) bool {
	if strings.HasPrefix(path, "/") {
		return true
	}
	return path != "" && u.Has(uriscan.Scheme) && !n.KeepRootlessDots
}

// unchanged reports whether u is its own normal form at level (up to
// Scheme) with n's options, so Append can copy it whole: no
// percent-encoding anywhere, a lowercase scheme and host, no IPv6 host
// that n rewrites (rewritesIPv6), no dot segment in a path whose dot
// segments n removes (removesDots), and no port or path that
// scheme-based normalization would change. A dot segment at the start of
// a rootless path ("./x", "../x", "." or "..") is seen by hintDotStart,
// one after a "/" by hintSlashDot. It returns u's uriHints too, which
// appendChanged takes.
func (n *Normalizer) unchanged(u *uriscan.URI, level Level) (bool, uint) {
	hints := uriHints(u)
	if hints&(hintPct|hintUpper) != 0 || n.rewritesIPv6(u) {
		return false, hints
	}
	path := u.Path()
	if hints&(hintSlashDot|hintDotStart) != 0 && n.removesDots(u, path) && hasDotSegment(path) {
		return false, hints
	}
	if level < Scheme || !u.HasAuthority() {
		return true, hints
	}
	if u.Has(uriscan.Port) {
		port := u.Port()
		if def, _ := ports.Default(u.Scheme()); port == "" || port == def {
			return false, hints
		}
	}
	return path != "" || !slashWhenEmpty(unsafe.Slice(unsafe.StringData(u.Scheme()), len(u.Scheme()))), hints
}

// hasUpper reports whether s has an upper case ASCII letter, eight bytes
// at a time: with y its low seven bits, a byte b is in 'A'..'Z' when
// y+0x3F has bit 7 set (y >= 'A'), y+0x25 does not (y <= 'Z') and b has
// not (b < 0x80). No sum carries into the next byte.
func hasUpper(s string) bool {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	upper := func(x uint64) bool {
		y := x &^ high
		return (y+0x3F*ones)&^(y+0x25*ones)&^x&high != 0
	}
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	switch {
	case len(b) >= 8:
		for len(b) > 8 {
			if upper(binary.LittleEndian.Uint64(b)) { // one load where the architecture allows it
				return true
			}
			b = b[8:]
		}
		return upper(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s[len(s)-8:]), 8)))
	case len(b) >= 4: // two overlapping 4-byte words in one
		return upper(uint64(binary.LittleEndian.Uint32(b)) | uint64(binary.LittleEndian.Uint32(b[len(b)-4:]))<<32)
	}
	for _, c := range b {
		if 'A' <= c && c <= 'Z' {
			return true
		}
	}
	return false
}

// mayHaveDotSegment is a quick filter for hasDotSegment: a dot segment
// needs a "." at the start of the path or after a "/".
func mayHaveDotSegment(path string) bool {
	for i := 0; i < len(path); {
		j := strings.IndexByte(path[i:], '.')
		if j < 0 {
			return false
		}
		if i+j == 0 || path[i+j-1] == '/' {
			return true
		}
		i += j + 1
	}
	return false
}

// hasDotSegment reports whether path has a "." or ".." segment.
func hasDotSegment(path string) bool {
	if !mayHaveDotSegment(path) {
		return false
	}
	for i := 0; i < len(path); {
		j := strings.IndexByte(path[i:], '/')
		seg := path[i:]
		if j >= 0 {
			seg = path[i : i+j]
		}
		if seg == "." || seg == ".." {
			return true
		}
		if j < 0 {
			break
		}
		i += j + 1
	}
	return false
}

// appendPct appends s with every percent-encoding normalized: an encoded
// unreserved character is decoded, any other keeps its "%" and gets
// uppercase hex digits (§6.2.2.1, §6.2.2.2). With lower, the rest of s is
// lowercased (for the host), but never the hex digits of an encoding.
// With marks (a URI parsed by the RFC 2396 grammar), the characters RFC
// 2396 adds to unreserved ("mark": "!" "*" "'" "(" ")", which RFC 3986
// moved to sub-delims) are decoded too.
func appendPct(dst []byte, s string, lower, marks bool) []byte {
	if strings.IndexByte(s, '%') < 0 {
		if lower {
			return appendLower(dst, s)
		}
		return append(dst, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '%' && i+2 < len(s) { // a parsed URI has two hex digits here
			b := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2])
			i += 2
			if classify.Table[b]&classify.Unreserved != 0 || marks && isMark2396(b) {
				if lower {
					b = ascii.Lower(b)
				}
				dst = append(dst, b)
			} else {
				dst = append(dst, '%', ascii.UpperHex[b>>4], ascii.UpperHex[b&15])
			}
			continue
		}
		if lower {
			c = ascii.Lower(c)
		}
		dst = append(dst, c)
	}
	return dst
}

// appendLower appends s in lower case, in one piece when it has no upper
// case letter.
func appendLower(dst []byte, s string) []byte {
	i := 0
	for i < len(s) && !('A' <= s[i] && s[i] <= 'Z') {
		i++
	}
	dst = append(dst, s[:i]...)
	for ; i < len(s); i++ {
		dst = append(dst, ascii.Lower(s[i]))
	}
	return dst
}

// isMark2396 reports whether c is one of RFC 2396's mark characters that
// RFC 3986 made sub-delims: RFC 2396 §2.3 mark = "-" | "_" | "." | "!" |
// "~" | "*" | "'" | "(" | ")", of which "-" "_" "." "~" are unreserved in
// both.
func isMark2396(c byte) bool {
	return c == '!' || c == '*' || c == '\'' || c == '(' || c == ')'
}
