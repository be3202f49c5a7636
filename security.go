package uriscan

import (
	"bytes"
	"net/netip"
	"strings"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/net/idna"

	"github.com/uriscan/uriscan/internal/pathstats"
)

// Warnings are the RFC 3986 §7 security considerations a URI raises: what
// a careful consumer should look at before it trusts, fetches or shows the
// URI. They never change validity (each is a valid URI the grammar
// allows); compute them with (*URI).Warnings, which costs a pass over the
// authority and the path, only when asked.
type Warnings uint16

const (
	// RareIPv4 (§7.4): the host is a reg-name that many platforms'
	// inet_aton and every browser read as an IPv4 address: octal
	// ("0177.0.0.1"), hexadecimal ("0x7f.1"), one 32-bit number
	// ("2130706433"), or fewer than four parts ("127.1"), possibly
	// percent-encoded, with one trailing dot, with any number of leading
	// zeros, or in characters that UTS #46 maps to ASCII digits and dots
	// ("%EF%BC%91%EF%BC%92%EF%BC%97.1" is "１２７.1" in fullwidth digits,
	// which browsers map first). A filter on HostType IPv4 misses it;
	// (*URI).RareIPv4 gives the address.
	RareIPv4 Warnings = 1 << iota
	// Password (§7.5): the userinfo has a ":" and something after it
	// ("user:password"): RFC 3986 deprecates passwords in URIs, and the
	// command redacts them. Under RFC 2396 the userinfo may be the part
	// of a registry-based authority before its last "@" (PasswordSpan).
	Password
	// UserinfoLikeHost (§7.6): the userinfo, before any ":", looks like a
	// host name or an IPv4 address ("http://www.example.com@evil.test/"),
	// so a reader takes the wrong part for the host.
	UserinfoLikeHost
	// HostNotUTF8 (§7.6): the reg-name has percent-encoded bytes >= 0x80
	// that do not decode as UTF-8: no name service has such a name, and
	// software that decodes it does so differently.
	HostNotUTF8
	// MixedScript (§7.6): a label of the host, once decoded (percent-
	// encoded UTF-8, or an "xn--" A-label), mixes letters of more than one
	// script ("pаypal" with a Cyrillic "а"): a homograph. Han, Hiragana
	// and Katakana together count as one script (Japanese), Latin with
	// any of Han, Hiragana, Katakana, Hangul and Bopomofo is allowed, as
	// UTS #39's "highly restrictive" level allows.
	MixedScript
	// EncodedNUL (§7.3): "%00" in the path: back ends written in C end the
	// string there.
	EncodedNUL
	// EncodedSlash (§7.3): "%2F" in the path: a back end that decodes
	// before splitting reads another path.
	EncodedSlash
	// EncodedBackslash (§7.3): "%5C" in the path: read as "/" by Windows
	// back ends.
	EncodedBackslash
	// EncodedDotSegment (§7.3): a path segment that decodes to "." or
	// ".." but is not written so ("%2E%2E", ".%2e"): RFC 3986's
	// remove_dot_segments leaves it, a back end that decodes first climbs
	// the directory tree.
	EncodedDotSegment
)

var warningNames = [...]string{
	"rare-ipv4", "password", "userinfo-like-host", "host-not-utf8", "mixed-script",
	"encoded-nul", "encoded-slash", "encoded-backslash", "encoded-dot-segment",
}

// NumWarnings is the number of Warnings bits.
const NumWarnings = len(warningNames)

// Name returns the name of the one warning w ("rare-ipv4", "password",
// "userinfo-like-host", "host-not-utf8", "mixed-script", "encoded-nul",
// "encoded-slash", "encoded-backslash", "encoded-dot-segment"), or "" when
// w is not exactly one bit.
func (w Warnings) Name() string {
	for i, n := range warningNames {
		if w == 1<<i {
			return n
		}
	}
	return ""
}

// String returns the names of the warnings in w, comma-separated.
func (w Warnings) String() string {
	var b strings.Builder
	for i, n := range warningNames {
		if w&(1<<i) != 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(n)
		}
	}
	return b.String()
}

// Warnings returns the §7 warnings u raises. It does not allocate, except
// to decode an "xn--" label (golang.org/x/net/idna) for MixedScript, to
// map a reg-name that decodes to bytes >= 0x80 (UTS #46) for RareIPv4, or
// for a label that decodes to more than 256 bytes.
func (u *URI) Warnings() Warnings {
	pathstats.Add(pathstats.Warnings, 1)
	var w Warnings
	if u.HasAuthority() {
		if u.hostType == RegName {
			host := u.Host()
			if _, ok := parseRareIPv4(host); ok {
				w |= RareIPv4
			}
			w |= hostWarnings(host)
		}
		if us, ue, ok := u.userinfoSpan(); ok {
			ui := u.String()[us:ue]
			user := ui
			if i := strings.IndexByte(ui, ':'); i >= 0 {
				user = ui[:i]
				if i+1 < len(ui) {
					w |= Password
				}
			}
			if looksLikeHost(user) {
				w |= UserinfoLikeHost
			}
		}
	}
	return w | pathWarnings(u.Path())
}

// RareIPv4 returns the IPv4 address a reg-name host is read as by
// inet_aton and browsers (the WHATWG URL standard's IPv4 parser), when
// u.Warnings() has RareIPv4.
func (u *URI) RareIPv4() (netip.Addr, bool) {
	if !u.HasAuthority() || u.hostType != RegName {
		return netip.Addr{}, false
	}
	return parseRareIPv4(u.Host())
}

// PasswordSpan returns where the password of u's userinfo is in u's text
// (u.String()[start:end]: after the first ":" of the userinfo, up to the
// "@"), for redaction; ok is false when u has no password. Under
// GrammarRFC2396 a registry-based authority (RFC 2396 §3.2.1 "reg_name",
// which may hold "@" and ":") has no userinfo component, but a reader
// that takes it as server-based sees one before its last "@"
// ("//u:pw@a_b:80/"), and the password there is given too.
func (u *URI) PasswordSpan() (start, end int, ok bool) {
	s, e, has := u.userinfoSpan()
	if !has {
		return 0, 0, false
	}
	i := strings.IndexByte(u.String()[s:e], ':')
	if i < 0 || s+i+1 == e {
		return 0, 0, false
	}
	return s + i + 1, e, true
}

// userinfoSpan is where u's userinfo is in its text: the Userinfo
// component, or, in a reg-name that holds an "@" (only an RFC 2396
// "reg_name" can), what comes before its last "@".
func (u *URI) userinfoSpan() (start, end int, ok bool) {
	if s, e, has := u.Span(Userinfo); has {
		return s, e, true
	}
	if u.Grammar() != RFC2396 || !u.HasAuthority() || u.hostType != RegName {
		// Only an RFC 2396 reg_name can hold an "@": under RFC 3986 a URI
		// without the Userinfo component has no userinfo to look for.
		return 0, 0, false
	}
	pathstats.Add(pathstats.UserinfoScan, 1)
	hs, _, _ := u.Span(Host)
	if at := strings.LastIndexByte(u.Host(), '@'); at >= 0 {
		return hs, hs + at, true
	}
	return 0, 0, false
}

// pctByte decodes the percent-encoding at s[i:] (a parsed URI has two hex
// digits after every "%").
func pctByte(s string, i int) byte { return fromHex(s[i+1])<<4 | fromHex(s[i+2]) }

func fromHex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// decodedAt returns the byte at s[i], decoded, and the index after it.
func decodedAt(s string, i int) (byte, int) {
	if s[i] == '%' && i+2 < len(s) {
		return pctByte(s, i), i + 3
	}
	return s[i], i + 1
}

// parseRareIPv4 reads host as the WHATWG URL standard's host parser does
// before its IPv4 parser (inet_aton's forms: 1 to 4 parts, each decimal,
// 0x-hexadecimal or 0-octal, as many leading zeros as written, the last
// filling the bytes left; one trailing dot allowed): percent-decoded, and
// where that gives bytes >= 0x80, mapped by UTS #46 first ("１２７。0.0.1"
// in fullwidth digits and an ideographic full stop is 127.0.0.1 to a
// browser). It reports whether the host is an address written in another
// form than RFC 3986's IPv4address (which the grammar would have taken as
// one).
func parseRareIPv4(host string) (netip.Addr, bool) {
	a, ok, mapped := ipv4Forms(host, true)
	if !mapped {
		return a, ok
	}
	var buf [64]byte
	dec := buf[:0]
	for i := 0; i < len(host); {
		var c byte
		c, i = decodedAt(host, i)
		dec = append(dec, c)
	}
	if !utf8.Valid(dec) {
		return netip.Addr{}, false
	}
	ascii, err := whatwgIDNA.ToASCII(string(dec))
	if err != nil {
		return netip.Addr{}, false
	}
	a, ok, _ = ipv4Forms(ascii, false)
	return a, ok
}

// whatwgIDNA is the WHATWG URL standard's "domain to ASCII" (UTS #46
// ToASCII, nontransitional, CheckHyphens and UseSTD3ASCIIRules false).
var whatwgIDNA = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(false))

// ipv4Forms reads s, percent-decoding it as it goes when pct, as the
// WHATWG IPv4 parser does, in one pass and without a buffer. mapped is
// true when it met a byte >= 0x80 before it could tell: the host is then
// to be read again after UTS #46 mapping. An ASCII byte that fails here
// fails after mapping too (mapping lowercases ASCII and keeps it).
func ipv4Forms(s string, pct bool) (a netip.Addr, ok, mapped bool) {
	var parts [4]uint64
	np := 0
	var p ipv4Part
	for i := 0; i < len(s); {
		c := s[i]
		i++
		if pct && c == '%' && i+1 < len(s) {
			c = pctByte(s, i-1)
			i += 2
		}
		if c >= 0x80 {
			return netip.Addr{}, false, true
		}
		if c != '.' {
			if !p.add(c) {
				return netip.Addr{}, false, false
			}
			continue
		}
		if p.n == 0 || np == len(parts) {
			return netip.Addr{}, false, false // an empty part ("1..2", ".1"), or a fifth
		}
		parts[np] = p.v
		np++
		p = ipv4Part{}
	}
	if p.n > 0 {
		if np == len(parts) {
			return netip.Addr{}, false, false
		}
		parts[np] = p.v
		np++
	}
	if np == 0 {
		return netip.Addr{}, false, false // "" or "."
	}
	for i := 0; i < np-1; i++ {
		if parts[i] > 255 {
			return netip.Addr{}, false, false
		}
	}
	last := parts[np-1]
	if last >= 1<<(8*(5-np)) {
		return netip.Addr{}, false, false
	}
	var v uint32
	for i := 0; i < np-1; i++ {
		v |= uint32(parts[i]) << (8 * (3 - i))
	}
	v |= uint32(last)
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true, false
}

// ipv4Part reads one part of an IPv4 host a byte at a time: "0x" or "0X"
// then hex digits (none: 0), "0" then octal digits, or decimal digits.
// Its value is held up to 2^32 and refused beyond, as every part > 255
// but the last is.
type ipv4Part struct {
	n    int    // bytes read
	base uint64 // 0 until the base is known
	v    uint64
}

// add reads c, and reports false when the part can no longer be a number.
func (p *ipv4Part) add(c byte) bool {
	p.n++
	switch {
	case p.n == 1 && c == '0':
		return true // "0", "0x..." or "0..." (octal): the next byte says
	case p.n == 1:
		p.base = 10
	case p.n == 2 && p.base == 0:
		if c|0x20 == 'x' {
			p.base = 16
			return true
		}
		p.base = 8
	}
	var d uint64
	switch {
	case '0' <= c && c <= '9':
		d = uint64(c - '0')
	case 'a' <= c|0x20 && c|0x20 <= 'f':
		d = uint64(c|0x20-'a') + 10
	default:
		return false
	}
	if d >= p.base {
		return false
	}
	p.v = p.v*p.base + d
	return p.v <= 1<<32
}

// hostWarnings checks a reg-name's decoded bytes: HostNotUTF8 and
// MixedScript.
func hostWarnings(host string) Warnings {
	var w Warnings
	for len(host) > 0 {
		i := strings.IndexByte(host, '.')
		if i < 0 {
			i = len(host)
		}
		label := host[:i]
		switch {
		case strings.IndexByte(label, '%') >= 0:
			// Decoded first, as a browser does: "Xn--%80" is not UTF-8
			// (found by FuzzWarnings: the A-label branch used to come
			// first and never decoded it), "%78n--..." is an A-label.
			var buf [256]byte
			dec := buf[:0]
			for j := 0; j < len(label); {
				var c byte
				c, j = decodedAt(label, j)
				dec = append(dec, c) // on the heap past 256 bytes (a DNS label has 63)
			}
			switch {
			case !utf8.Valid(dec):
				w |= HostNotUTF8
			case len(dec) >= 4 && strings.EqualFold(string(dec[:4]), "xn--"):
				if u, err := idna.Punycode.ToUnicode(string(dec)); err == nil && mixedScript(u) {
					w |= MixedScript
				}
			case mixedScriptBytes(dec):
				w |= MixedScript
			}
		case len(label) >= 4 && strings.EqualFold(label[:4], "xn--"):
			if u, err := idna.Punycode.ToUnicode(label); err == nil && mixedScript(u) {
				w |= MixedScript
			}
		}
		if i == len(host) {
			break
		}
		host = host[i+1:]
	}
	return w
}

// scripts MixedScript tells apart.
var scriptTables = []*unicode.RangeTable{
	unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Hebrew,
	unicode.Arabic, unicode.Devanagari, unicode.Bengali, unicode.Thai, unicode.Georgian,
	unicode.Hangul, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo,
	unicode.Ethiopic, unicode.Cherokee, unicode.Tamil, unicode.Telugu, unicode.Gujarati,
}

const (
	scLatin    = 0
	scHangul   = 10
	scHan      = 11
	scHiragana = 12
	scKatakana = 13
	scBopomofo = 14
)

func mixedScript(s string) bool { return mixedScriptBytes(unsafeBytes(s)) }

// mixedScriptBytes reports whether the UTF-8 label b has letters of
// scripts that UTS #39's highly restrictive level does not allow together.
func mixedScriptBytes(b []byte) bool {
	var seen uint32
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		b = b[n:]
		if r < 0x80 {
			if 'a' <= r|0x20 && r|0x20 <= 'z' {
				seen |= 1 << scLatin
			}
			continue
		}
		for i, t := range scriptTables {
			if unicode.Is(t, r) {
				seen |= 1 << i
				break
			}
		}
	}
	// Japanese (Han, Hiragana, Katakana), Chinese (Han, Bopomofo) and
	// Korean (Han, Hangul), each with Latin, count as one.
	for _, ok := range [...]uint32{
		1<<scLatin | 1<<scHan | 1<<scHiragana | 1<<scKatakana,
		1<<scLatin | 1<<scHan | 1<<scBopomofo,
		1<<scLatin | 1<<scHan | 1<<scHangul,
	} {
		if seen&^ok == 0 {
			return false
		}
	}
	return seen&(seen-1) != 0
}

func unsafeBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// looksLikeHost reports whether a userinfo's user part reads as a host
// name with at least two labels ("www.example.com", "example.com") or an
// IPv4 address: letters, digits and hyphens in dot-separated labels, the
// last starting with a letter, or four decimal parts of up to 3 digits.
func looksLikeHost(user string) bool {
	if strings.IndexByte(user, '.') < 0 {
		return false
	}
	labels, numeric := 0, 0
	for len(user) > 0 {
		i := strings.IndexByte(user, '.')
		if i < 0 {
			i = len(user)
		}
		label := user[:i]
		if label == "" && i == len(user) && labels > 0 {
			break // one trailing dot
		}
		if label == "" || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		digits := 0
		for j := 0; j < len(label); j++ {
			c := label[j]
			if '0' <= c && c <= '9' {
				digits++
			} else if !('a' <= c|0x20 && c|0x20 <= 'z' || c == '-') {
				return false
			}
		}
		labels++
		if digits == len(label) && len(label) <= 3 {
			numeric++
		}
		if i == len(user) {
			c := label[0]
			return labels >= 2 && 'a' <= c|0x20 && c|0x20 <= 'z' || labels == 4 && numeric == 4
		}
		user = user[i+1:]
	}
	return labels >= 2
}

// pathWarnings checks the path for the §7.3 encodings.
func pathWarnings(path string) Warnings {
	var w Warnings
	if strings.IndexByte(path, '%') < 0 {
		return 0
	}
	for i := 0; i+2 < len(path); i++ {
		if path[i] != '%' {
			continue
		}
		switch pctByte(path, i) {
		case 0:
			w |= EncodedNUL
		case '/':
			w |= EncodedSlash
		case '\\':
			w |= EncodedBackslash
		}
	}
	for len(path) > 0 {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			i = len(path)
		}
		seg := path[:i]
		if strings.IndexByte(seg, '%') >= 0 && decodesToDots(seg) {
			w |= EncodedDotSegment
		}
		if i == len(path) {
			break
		}
		path = path[i+1:]
	}
	return w
}

// decodesToDots reports whether seg decodes to "." or "..".
func decodesToDots(seg string) bool {
	dots := 0
	for i := 0; i < len(seg); {
		var c byte
		c, i = decodedAt(seg, i)
		if c != '.' {
			return false
		}
		dots++
	}
	return dots == 1 || dots == 2
}

// Redacted is what AppendRedacted writes in place of a password.
const Redacted = "***"

// AppendRedacted appends text to dst with the password of its userinfo,
// if any, replaced by Redacted ("http://user:***@host/"), as §7.5 advises
// for URIs shown to people. text need not be a valid URI: an invalid
// line, an error message's echo, a log line are redacted where a reader
// would see a password. The authority follows a "//" at the start of
// text, or else the first "://" of text, with no "?" or "#" before it;
// it ends at the next "/", "?" or "#" (or the end of text), whatever it
// holds before that: a space, "\", a quote, a control or non-UTF-8 byte
// is part of it, as a reader takes it. The userinfo is what comes before
// the authority's last "@", and the password what follows the userinfo's
// first ":". A text with no such password is appended unchanged. On a
// valid URI with an authority, what it replaces is what
// (*URI).PasswordSpan gives, the ABNF's userinfo having none of those
// bytes (FuzzWarnings checks it).
func AppendRedacted(dst, text []byte) []byte {
	s, e, ok := FindPassword(text)
	if !ok {
		return append(dst, text...)
	}
	dst = append(dst, text[:s]...)
	dst = append(dst, Redacted...)
	return append(dst, text[e:]...)
}

// HasPassword reports whether AppendRedacted would change text.
func HasPassword(text []byte) bool {
	_, _, ok := FindPassword(text)
	return ok
}

// FindPassword returns where the password AppendRedacted replaces is in
// text (text[start:end]), and false when text has none. It allocates
// nothing.
func FindPassword(text []byte) (start, end int, ok bool) {
	if bytes.IndexByte(text, '@') < 0 {
		return 0, 0, false // the common case: one pass, no "@"
	}
	// Where the authority starts: after a leading "//" (a network-path
	// reference), else after the first "://" ("s://", and in an invalid
	// line or a log line "ht tp://", "GET http://"). A "?" or "#" before
	// it puts that "://" in a query or fragment, which has no userinfo.
	// "a:b//u:p@h" and "x/y//u:p@h" (paths) keep their text; a path that
	// embeds "://" ("a:b://u:p@h") is redacted all the same.
	auth := -1
	if len(text) >= 2 && text[0] == '/' && text[1] == '/' {
		auth = 2
	} else {
		for i := 0; i+2 < len(text); i++ {
			c := text[i]
			if c == '?' || c == '#' {
				return 0, 0, false
			}
			if c == ':' && text[i+1] == '/' && text[i+2] == '/' {
				auth = i + 3
				break
			}
		}
	}
	if auth < 0 {
		return 0, 0, false
	}
	// The userinfo ends at the last "@" before the first "/", "?" or "#":
	// any other byte, valid in a URI or not, is part of what a reader
	// takes for it ("http://u:S3cr3t PW@h/", "http://u:a\b@h/").
	last := -1
	for i := auth; i < len(text); i++ {
		c := text[i]
		if c == '/' || c == '?' || c == '#' {
			break
		}
		if c == '@' {
			last = i
		}
	}
	if last < 0 {
		return 0, 0, false
	}
	if i := bytes.IndexByte(text[auth:last], ':'); i >= 0 {
		if auth+i+1 == last {
			return 0, 0, false // "user:@": nothing to hide
		}
		return auth + i + 1, last, true
	}
	return 0, 0, false
}
