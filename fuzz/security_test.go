package fuzz

import (
	"bytes"
	"math/big"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/net/idna"

	"github.com/uriscan/uriscan"
)

var securitySeeds = []string{
	"http://0x7f.1/", "http://2130706433/", "http://127.1/", "http://0177.0.0.1/", "http://127.0.0.1./",
	"http://%31%32%37.0.0.1/", "http://0x/", "http://10.1.65535/", "http://4294967296/", "http://1.2.3.4.5/",
	"http://1..2/", "http://08.1/", "http://000000000000000000000000000000000000000000000000000000000000000000177.1/",
	"http://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/", "http://127%E3%80%820%E3%80%821/", "http://1%C2%AD27.1/",
	"http://user:secret@h/", "http://user:@h/", "http://:pw@h/", "http://u:p@q@h/x", "//u:p@h",
	"http://www.example.com@evil.test/", "http://example.com:pw@evil.test/", "http://10.0.0.1@evil.test/",
	"http://%FF.example/", "http://p%D0%B0ypal.com/", "http://xn--pypal-4ve.com/", "http://%E6%97%A5%E6%9C%AC.jp/",
	"http://h/a/%00/%2F/%5c/%2E%2E/.%2e/x", "a:b//u:p@h", "a:b://u:p@h", "ht tp://u:pw@h/%zz", "mailto:u:p@h",
	"http://h?u:p@h", "http://us er:p@h/", "http://u:S3cr3t PW@h/", "http://u:a\\b@h/", "//u:a\tb\xff@h/p",
	"GET http://u:p q@h/ HTTP/1.1", "x?y://u:p@h", "a/b://u:p@h", "http://u:p@h\\x@y/",
}

// whatwgIDNA is the WHATWG URL standard's domain to ASCII (UTS #46,
// nontransitional, CheckHyphens and UseSTD3ASCIIRules false).
var whatwgIDNA = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false),
	idna.StrictDomainName(false), idna.CheckHyphens(false))

// refIPv4 is the WHATWG URL standard's host parser up to its IPv4 parser,
// written from the standard's steps: percent-decode, domain to ASCII when
// that gives non-ASCII, lowercase, split on ".", drop one empty last part,
// at most 4 parts, each part a number (0x hex, 0 octal, decimal) of any
// size, every part but the last at most 255, the last below 256^(5-n).
func refIPv4(host string) (netip.Addr, bool) {
	dec, err := url.PathUnescape(host)
	if err != nil {
		return netip.Addr{}, false
	}
	for i := 0; i < len(dec); i++ {
		if dec[i] >= 0x80 {
			if !utf8.ValidString(dec) {
				return netip.Addr{}, false
			}
			if dec, err = whatwgIDNA.ToASCII(dec); err != nil {
				return netip.Addr{}, false
			}
			break
		}
	}
	parts := strings.Split(strings.ToLower(dec), ".")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]*big.Int, len(parts))
	for i, p := range parts {
		if p == "" {
			return netip.Addr{}, false
		}
		base, digits := 10, "0123456789"
		switch {
		case strings.HasPrefix(p, "0x"):
			base, digits, p = 16, "0123456789abcdef", p[2:]
		case len(p) > 1 && p[0] == '0':
			base, digits, p = 8, "01234567", p[1:]
		}
		if strings.Trim(p, digits) != "" {
			return netip.Addr{}, false
		}
		n := new(big.Int)
		if p != "" {
			n.SetString(p, base)
		}
		nums[i] = n
	}
	for _, n := range nums[:len(nums)-1] {
		if n.Cmp(big.NewInt(255)) > 0 {
			return netip.Addr{}, false
		}
	}
	limit := new(big.Int).Lsh(big.NewInt(1), uint(8*(5-len(nums))))
	if nums[len(nums)-1].Cmp(limit) >= 0 {
		return netip.Addr{}, false
	}
	v := new(big.Int).Set(nums[len(nums)-1])
	for i, n := range nums[:len(nums)-1] {
		v.Add(v, new(big.Int).Lsh(n, uint(8*(3-i))))
	}
	var a [4]byte
	v.FillBytes(a[:])
	return netip.AddrFrom4(a), true
}

// FuzzWarnings checks the RFC 3986 §7 warnings and the redaction of
// passwords on any text:
//   - FindPassword, HasPassword and AppendRedacted agree, never panic, and
//     redacting twice is redacting once;
//   - FindPassword finds what a reader takes for the password, whatever
//     bytes the text holds (refPassword, written separately from the
//     rule's words);
//   - on a valid URI (RFC 3986 or RFC 2396) with an authority, the
//     redacted span is exactly PasswordSpan (the userinfo's password, or
//     in an RFC 2396 registry-based authority the one a reader sees before
//     its last "@"; without an authority, in a path that embeds "://",
//     the text may redact what looks like one): the ABNF's userinfo holds
//     none of the bytes (space, "\", quote, controls, non-UTF-8) that a
//     reader's userinfo may, so the reader's rule and the ABNF agree on
//     every valid URI,
//     the Password warning is set exactly when there is a password,
//     and the redacted text parses to the same components but the
//     password;
//   - RareIPv4 gives what the WHATWG host parser (refIPv4, written
//     separately from the standard's steps) reads a reg-name as, and the
//     warning is set exactly then;
//   - the §7.3 path warnings and HostNotUTF8 are set exactly when a plain
//     decode of the path and host says so; a host that is not a reg-name,
//     or is ASCII without an "xn--" label, raises no host warning.
func FuzzWarnings(f *testing.F) {
	for _, s := range securitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := []byte(s)
		ps, pe, pok := uriscan.FindPassword(b)
		if pok && (ps < 1 || ps >= pe || pe >= len(b) || b[ps-1] != ':' || b[pe] != '@') {
			t.Fatalf("%q: FindPassword %d:%d", s, ps, pe)
		}
		if uriscan.HasPassword(b) != pok {
			t.Fatalf("%q: HasPassword disagrees with FindPassword", s)
		}
		if rs, re, rok := refPassword(s); rok != pok || pok && (rs != ps || re != pe) {
			t.Fatalf("%q: FindPassword %d:%d %v, a reader's password %d:%d %v", s, ps, pe, pok, rs, re, rok)
		}
		red := uriscan.AppendRedacted([]byte("<"), b)
		want := "<" + s
		if pok {
			want = "<" + s[:ps] + uriscan.Redacted + s[pe:]
		}
		if string(red) != want {
			t.Fatalf("%q: AppendRedacted %q, want %q", s, red[1:], want[1:])
		}
		if again := uriscan.AppendRedacted(nil, red[1:]); !bytes.Equal(again, red[1:]) {
			t.Fatalf("%q: redacted %q, then %q", s, red[1:], again)
		}
		for _, g := range []uriscan.Grammar{uriscan.RFC3986, uriscan.RFC2396} {
			u, err := g.ParseString(s)
			if err != nil {
				continue
			}
			checkWarnings(t, g, &u, s, red[1:])
		}
	})
}

// refPassword is where a reader sees a password in s, from the rule's
// words: the authority follows a leading "//", else the first "://" unless
// a "?" or "#" comes before it, and ends at the first "/", "?" or "#"
// after it; the userinfo is what precedes the authority's last "@", the
// password what follows the userinfo's first ":" (none if that is empty).
func refPassword(s string) (start, end int, ok bool) {
	auth := 2
	if !strings.HasPrefix(s, "//") {
		i := strings.Index(s, "://")
		if i < 0 || strings.ContainsAny(s[:i], "?#") {
			return 0, 0, false
		}
		auth = i + 3
	}
	a := s[auth:]
	if n := strings.IndexAny(a, "/?#"); n >= 0 {
		a = a[:n]
	}
	at := strings.LastIndex(a, "@")
	if at < 0 {
		return 0, 0, false
	}
	c := strings.Index(a[:at], ":")
	if c < 0 || c+1 == at {
		return 0, 0, false
	}
	return auth + c + 1, auth + at, true
}

func checkWarnings(t *testing.T, g uriscan.Grammar, u *uriscan.URI, s string, red []byte) {
	t.Helper()
	w := u.Warnings()
	if u.Warnings() != w {
		t.Fatalf("%v %q: Warnings not deterministic", g, s)
	}
	ps, pe, pok := u.PasswordSpan()
	fs, fe, fok := uriscan.FindPassword([]byte(s))
	// FindPassword may find more than PasswordSpan only where there is no
	// authority: a path that embeds "://" ("a:b://u:p@h"). An RFC 2396
	// registry-based authority ("u:p@q@h" is a reg_name, for it is no
	// server) has its password found by both.
	extra := !pok && !u.HasAuthority()
	if pok != fok && !extra || pok && (ps != fs || pe != fe) {
		t.Fatalf("%v %q: PasswordSpan %d:%d %v, FindPassword %d:%d %v", g, s, ps, pe, pok, fs, fe, fok)
	}
	if (w&uriscan.Password != 0) != pok {
		t.Fatalf("%v %q: warning %v, PasswordSpan %v", g, s, w, pok)
	}
	if pok {
		v, err := g.ParseString(string(red))
		if err != nil {
			t.Fatalf("%v %q: redacted %q does not parse: %v", g, s, red, err)
		}
		for c := uriscan.Scheme; c <= uriscan.Fragment; c++ {
			wantC := u.Get(c)
			if cs, ce, _ := u.Span(c); u.Has(c) && cs <= ps && pe <= ce {
				// The userinfo, or a registry-based authority's host.
				wantC = s[cs:ps] + uriscan.Redacted + s[pe:ce]
			}
			if g == uriscan.RFC2396 && u.RegistryBased() && c >= uriscan.Userinfo && c <= uriscan.Port {
				// "http://u:p@q@h/" is registry-based; its redacted text
				// "http://u:***@h/" is server-based, as a reader takes
				// the original: its authority is not compared part by
				// part (AppendRedacted's text was checked above).
				continue
			}
			if v.Has(c) != u.Has(c) || v.Get(c) != wantC {
				t.Fatalf("%v %q: redacted %q has %v %q", g, s, red, c, v.Get(c))
			}
		}
	}
	regName := u.HasAuthority() && u.HostType() == uriscan.RegName
	addr, aok := u.RareIPv4()
	if (w&uriscan.RareIPv4 != 0) != aok {
		t.Fatalf("%v %q: warning %v, RareIPv4 %v", g, s, w, aok)
	}
	if ra, rok := refIPv4(u.Host()); regName && (rok != aok || rok && ra != addr) {
		t.Fatalf("%v %q: RareIPv4 %v %v, WHATWG reads %v %v", g, s, addr, aok, ra, rok)
	} else if !regName && aok {
		t.Fatalf("%v %q: RareIPv4 %v on a %v host", g, s, addr, u.HostType())
	}
	hostW := w & (uriscan.RareIPv4 | uriscan.HostNotUTF8 | uriscan.MixedScript)
	host := u.Host()
	if !regName && hostW != 0 {
		t.Fatalf("%v %q: host warnings %v on a %v host", g, s, hostW, u.HostType())
	}
	if regName && !strings.Contains(host, "%") && !strings.Contains(strings.ToLower(host), "xn--") && w&(uriscan.HostNotUTF8|uriscan.MixedScript) != 0 {
		t.Fatalf("%v %q: %v on an ASCII host", g, s, w)
	}
	notUTF8 := false
	if regName {
		for _, label := range strings.Split(host, ".") {
			if d, err := url.PathUnescape(label); err == nil && strings.Contains(label, "%") && !utf8.ValidString(d) {
				notUTF8 = true
			}
		}
	}
	if (w&uriscan.HostNotUTF8 != 0) != notUTF8 {
		t.Fatalf("%v %q: warnings %v, a label not UTF-8: %v", g, s, w, notUTF8)
	}
	path := u.Path()
	lower := strings.ToLower(path)
	dots := false
	for _, seg := range strings.Split(path, "/") {
		if d, err := url.PathUnescape(seg); err == nil && strings.Contains(seg, "%") && (d == "." || d == "..") {
			dots = true
		}
	}
	for _, c := range []struct {
		w    uriscan.Warnings
		want bool
	}{
		{uriscan.EncodedNUL, strings.Contains(path, "%00")},
		{uriscan.EncodedSlash, strings.Contains(lower, "%2f")},
		{uriscan.EncodedBackslash, strings.Contains(lower, "%5c")},
		{uriscan.EncodedDotSegment, dots},
	} {
		if (w&c.w != 0) != c.want {
			t.Fatalf("%v %q: warnings %v, %v expected %v", g, s, w, c.w, c.want)
		}
	}
}
