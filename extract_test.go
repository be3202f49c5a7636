package uriscan

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// extractCases: text and the URIs it holds, from RFC 3986 Appendix C, real
// logs, mail, Markdown and prose.
var extractCases = []struct {
	in   string
	want []string
}{
	// Appendix C's delimiters.
	{"Yes, Jim, I found it under \"http://www.w3.org/Addressing/\",", []string{"http://www.w3.org/Addressing/"}},
	{"but you can probably pick it up from <ftp://foo.example.com/rfc/>.", nil},
	{"Note the warning in <http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING>.", []string{"http://www.ics.uci.edu/pub/ietf/uri/historical.html#WARNING"}},
	{"<URL:http://www.example.com/a/b>", []string{"http://www.example.com/a/b"}},
	{"<URL: http://www.example.com/a/b >", []string{"http://www.example.com/a/b"}},
	{"<http://a/b>", []string{"http://a/b"}},
	{"\"http://a/b\"", []string{"http://a/b"}},
	{"'http://a/b'", []string{"http://a/b"}},
	{"http://a/b", []string{"http://a/b"}},
	{"http://a/b\n", []string{"http://a/b"}},
	// nginx's \xHH escapes in a quoted log field: not part of the scheme.
	{`"\x22https://en.wikipedia.org/wiki/Gateway\x22"`, []string{"https://en.wikipedia.org/wiki/Gateway"}},
	{`\X5Chttp://a/b`, []string{"http://a/b"}},
	{`\x2http://a/b`, nil},
	{`x22http://a/b`, nil},
	{"\thttp://a/b\t", []string{"http://a/b"}},
	{"x http://a/b y", []string{"http://a/b"}},
	// Trailing punctuation.
	{"See http://a/b.", []string{"http://a/b"}},
	{"See http://a/b,", []string{"http://a/b"}},
	{"See http://a/b;", []string{"http://a/b"}},
	{"See http://a/b:", []string{"http://a/b"}},
	{"See http://a/b!", []string{"http://a/b"}},
	{"See http://a/b?", []string{"http://a/b"}},
	{"See http://a/b'", []string{"http://a/b"}},
	{"See http://a/b...", []string{"http://a/b"}},
	{"See http://a/b?!", []string{"http://a/b"}},
	{"See http://a/b?q=1.", []string{"http://a/b?q=1"}},
	{"See http://a/b?q=1&r=2.", []string{"http://a/b?q=1&r=2"}},
	{"http://a/b.html", []string{"http://a/b.html"}},
	{"http://a/b.html.", []string{"http://a/b.html"}},
	{"http://a/b#frag.", []string{"http://a/b#frag"}},
	{"http://a/b/.", []string{"http://a/b/"}},
	{"http://a:80/", []string{"http://a:80/"}},
	{"http://a:80:", []string{"http://a:80"}},
	{"http://a.", []string{"http://a"}},
	{"http://a.b.c.", []string{"http://a.b.c"}},
	// Brackets.
	{"https://en.wikipedia.org/wiki/Go_(programming_language)", []string{"https://en.wikipedia.org/wiki/Go_(programming_language)"}},
	{"(see https://en.wikipedia.org/wiki/Go_(programming_language))", []string{"https://en.wikipedia.org/wiki/Go_(programming_language)"}},
	{"(see http://a/b)", []string{"http://a/b"}},
	{"(see http://a/b).", []string{"http://a/b"}},
	{"(http://a/b), (http://c/d)", []string{"http://a/b", "http://c/d"}},
	{"((http://a/b))", []string{"http://a/b"}},
	{"[t](http://a/b)", []string{"http://a/b"}},
	{"[http://a/b](http://a/b)", []string{"http://a/b", "http://a/b"}},
	{"[link](https://example.com/path?q=1#f) and more", []string{"https://example.com/path?q=1#f"}},
	{"![img](http://a/i.png)", []string{"http://a/i.png"}},
	{"[ref]: http://a/b", []string{"http://a/b"}},
	{"http://[::1]/", []string{"http://[::1]/"}},
	{"http://[::1]:8080/x", []string{"http://[::1]:8080/x"}},
	{"[http://[::1]/]", []string{"http://[::1]/"}},
	{"http://a/b)c", []string{"http://a/b)c"}},
	{"http://a/(b)c", []string{"http://a/(b)c"}},
	{"http://a/b]", []string{"http://a/b"}},
	{"{http://a/b}", []string{"http://a/b"}},
	// Schemes.
	{"HTTP://A/B", []string{"HTTP://A/B"}},
	{"HtTpS://a/", []string{"HtTpS://a/"}},
	{"xhttp://a/b", nil},
	{"x-http://a/b", nil},
	{"ftp://a/b", nil},
	{"mailto:joe@example.com", nil},
	{"urn:isbn:123", nil},
	{"1http://a/", []string{"http://a/"}},
	{"+http://a/", []string{"http://a/"}},
	{"svn+http://a/", nil},
	{"a:b", nil},
	{"http:", nil},
	{"http:/", nil},
	{"http://", nil},
	{"http:// a", nil},
	{"http://?q", nil},
	{"http:///p", nil},
	{"http://u@/p", nil},
	{"http:a", nil},
	{"http:/a/b", nil},
	{"https://a/", []string{"https://a/"}},
	{"httpss://a/", nil},
	// Percent-encodings and invalid bytes cut the URI.
	{"http://a/%41%42", []string{"http://a/%41%42"}},
	{"http://a/%zz", []string{"http://a/"}},
	{"http://a/b%", []string{"http://a/b"}},
	{"http://a/b%4", []string{"http://a/b"}},
	{"http://a/b\\c", []string{"http://a/b"}},
	{"http://a/b|c", []string{"http://a/b"}},
	{"http://a/b^c", []string{"http://a/b"}},
	{"http://a/b`c", []string{"http://a/b"}},
	{"http://a/b\x00c", []string{"http://a/b"}},
	{"http://a/b\x7fc", []string{"http://a/b"}},
	{"http://a/b\xc3\xa9", []string{"http://a/b"}},
	{"http://é.com/", nil},
	{"http://a/b#c#d", []string{"http://a/b#c"}},
	{"http://a/b[c]", []string{"http://a/b"}},
	{"http://a b/", []string{"http://a"}},
	{"http://[::1/", nil},
	{"http://[v1.x]/", []string{"http://[v1.x]/"}},
	// Several, adjacent, and in logs.
	{"http://a/ http://b/", []string{"http://a/", "http://b/"}},
	{"http://a/,http://b/", []string{"http://a/,http://b/"}},
	{"http://a/\nhttp://b/\n", []string{"http://a/", "http://b/"}},
	{"http://a/http://b/", []string{"http://a/http://b/"}},
	{"u=http://a/b&v=http://c/d", []string{"http://a/b&v=http://c/d"}},
	{"?u=http://a/b", []string{"http://a/b"}},
	{"=http://a/b", []string{"http://a/b"}},
	{"/http://a/b", []string{"http://a/b"}},
	{"x=1;http://a/b", []string{"http://a/b"}},
	{`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET http://a/b?c=d HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08"`, []string{"http://a/b?c=d", "http://www.example.com/start.html"}},
	{`"GET /index.html HTTP/1.1" 200 - "https://www.google.com/search?q=x" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`, []string{"https://www.google.com/search?q=x", "http://www.google.com/bot.html"}},
	{`{"url":"https://api.example.com/v1/x?y=1","ref":"http://a/"}`, []string{"https://api.example.com/v1/x?y=1", "http://a/"}},
	{"<a href=\"http://a/b\">http://a/b</a>", []string{"http://a/b", "http://a/b"}},
	{"<a href='http://a/b'>x</a>", []string{"http://a/b"}},
	{"Visit http://example.com/~user/index.html today!", []string{"http://example.com/~user/index.html"}},
	{"http://user:pass@host:8080/p?q#f", []string{"http://user:pass@host:8080/p?q#f"}},
	{"http://a/b*c+d$e", []string{"http://a/b*c+d$e"}},
	{"http://a/b=", []string{"http://a/b="}},
	{"http://a/b&", []string{"http://a/b&"}},
	{"http://a/b-", []string{"http://a/b-"}},
	{"http://a/b_", []string{"http://a/b_"}},
	{"http://a/b~", []string{"http://a/b~"}},
	{"", nil},
	{"no uris here: just prose; and colons: many.", nil},
	{":::://://", nil},
	{"http", nil},
	{strings.Repeat("x", 100) + " http://a/" + strings.Repeat("y", 100), []string{"http://a/" + strings.Repeat("y", 100)}},
}

func matchStrings(text string, ms []Match) []string {
	var out []string
	for _, m := range ms {
		s := text[m.Start:m.End]
		if m.Rejected {
			s = "REJECTED " + s
		}
		out = append(out, s)
	}
	return out
}

// TestExtract: every table case, in one buffer, as a stream read a byte at
// a time and in halves, and with text around it (offsets, lines).
func TestExtract(t *testing.T) {
	if len(extractCases) < 100 {
		t.Fatalf("%d cases, want at least 100", len(extractCases))
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		x := Extractor{eng: e}
		for _, c := range extractCases {
			got := matchStrings(c.in, x.Append(nil, []byte(c.in)))
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("%q:\ngot  %q\nwant %q", c.in, got, c.want)
				continue
			}
			for name, r := range map[string]func(string) []string{
				"onebyte": func(s string) []string { return streamStrings(t, &x, iotest.OneByteReader(strings.NewReader(s))) },
				"half":    func(s string) []string { return streamStrings(t, &x, iotest.HalfReader(strings.NewReader(s))) },
			} {
				if got := r(c.in); fmt.Sprint(got) != fmt.Sprint(c.want) {
					t.Errorf("%s %q:\ngot  %q\nwant %q", name, c.in, got, c.want)
				}
			}
		}
	})
}

// streamStrings runs an ExtractScanner and renders its matches.
func streamStrings(t *testing.T, x *Extractor, r interface{ Read([]byte) (int, error) }) []string {
	t.Helper()
	s := NewExtractScanner(x, r)
	var out []string
	for s.Scan() {
		for _, m := range s.Matches() {
			out = append(out, string(s.Bytes(m)))
		}
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	return out
}

// TestExtractPositions: offsets and line numbers in a long text, across
// every chunk and read boundary.
func TestExtractPositions(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 5000 {
		fmt.Fprintf(&b, "line %d text ", i)
		if i%3 == 0 {
			u := fmt.Sprintf("http://h%d.example/p?q=%d", i, i)
			want = append(want, fmt.Sprintf("%d@%d:%s", i+1, b.Len(), u))
			b.WriteString(u)
		}
		b.WriteString(strings.Repeat(" pad", i%37) + ".\n")
	}
	text := b.String()
	render := func(ms []Match, get func(Match) string) string {
		var out []string
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%d@%d:%s", m.Line, m.Start, get(m)))
		}
		return strings.Join(out, "\n")
	}
	var x Extractor
	got := render(x.Append(nil, []byte(text)), func(m Match) string { return text[m.Start:m.End] })
	if got != strings.Join(want, "\n") {
		t.Fatalf("buffer:\n%s", firstDiff(got, strings.Join(want, "\n")))
	}
	for _, r := range []interface{ Read([]byte) (int, error) }{strings.NewReader(text), iotest.HalfReader(strings.NewReader(text)), iotest.OneByteReader(strings.NewReader(text))} {
		s := NewExtractScanner(&x, r)
		var all []string
		for s.Scan() {
			all = append(all, render(s.Matches(), func(m Match) string { return string(s.Bytes(m)) }))
		}
		if strings.Join(all, "\n") != strings.Join(want, "\n") {
			t.Fatalf("stream:\n%s", firstDiff(strings.Join(all, "\n"), strings.Join(want, "\n")))
		}
	}
}

// TestExtractRejects: candidates that leave no URI are reported with
// Rejects, and nothing else changes.
func TestExtractRejects(t *testing.T) {
	x := Extractor{Rejects: true}
	in := "a http:// b http://[::1/ c http://ok/ d http://?q"
	got := matchStrings(in, x.Append(nil, []byte(in)))
	want := []string{"REJECTED http://", "REJECTED http://[::1/", "http://ok/", "REJECTED http://?q"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// TestExtractSchemes: a scheme list, and any scheme with a minimum length.
func TestExtractSchemes(t *testing.T) {
	in := "mailto:joe@example.com ftp://f/x urn:isbn:0451450523 a:b ws://w/ data:text/plain,hi http://h/"
	for _, tc := range []struct {
		x    Extractor
		want []string
	}{
		{Extractor{Schemes: []string{"mailto", "ftp", "ws"}}, []string{"mailto:joe@example.com", "ftp://f/x", "ws://w/"}},
		{Extractor{AnyScheme: true}, []string{"mailto:joe@example.com", "ftp://f/x", "urn:isbn:0451450523", "data:text/plain,hi", "http://h/"}},
		{Extractor{AnyScheme: true, MinSchemeLen: 1}, []string{"mailto:joe@example.com", "ftp://f/x", "urn:isbn:0451450523", "a:b", "ws://w/", "data:text/plain,hi", "http://h/"}},
	} {
		if got := matchStrings(in, tc.x.Append(nil, []byte(in))); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%+v:\ngot  %q\nwant %q", tc.x, got, tc.want)
		}
	}
}

// TestExtractUserinfo: what a reader takes for a userinfo is never turned
// into a URI of its own (--any-scheme would read "//user:pw@host/p" as the
// URI "user:pw@host/p", which shows the password), and no match ends
// inside one; a scheme after "//" that is followed by "//" is still one.
// In one buffer and as a stream read a byte at a time.
func TestExtractUserinfo(t *testing.T) {
	anyScheme := Extractor{AnyScheme: true, Rejects: true}
	for _, c := range []struct {
		x    Extractor
		in   string
		want []string
	}{
		{anyScheme, "//user:pw@host/p", nil},
		{anyScheme, "see //user:pw@host/p.", nil},
		{anyScheme, "//x@user:pw@host/p", nil},
		{anyScheme, "//abc:def:ghi@host/p", nil}, // every ":" is in the authority
		{anyScheme, "//host:80/p", nil},          // a port, not a scheme
		{anyScheme, "http://user:S3cr3t PW@host/", []string{"http://user"}},
		{anyScheme, "http://user:S3cr3t%PW@host/", []string{"REJECTED http://user:S3cr3t%PW@host/"}}, // "http://user" would end in the userinfo
		{anyScheme, `http://user:S3cr3t\PW@host/`, []string{"http://user"}},
		{anyScheme, "//http://a/b", []string{"http://a/b"}},
		{anyScheme, "/user:pw@h/ mailto:a@b", []string{"user:pw@h/", "mailto:a@b"}}, // one "/" starts no authority
		{anyScheme, "http://x mailto:a@b urn:x:y", []string{"http://x", "mailto:a@b", "urn:x:y"}},
		{anyScheme, "http://h/a//user:pw@x", []string{"http://h/a//user:pw@x"}}, // a path
		// The strict parse stops at the second "@": "http://u:a@b" would
		// show the end of the password "a@b" as its host.
		{anyScheme, "http://u:a@b@h/p", []string{"REJECTED http://u:a@b@h/p"}},
		{Extractor{}, "http://u:a@b@h/p http://u:pw@h/p", []string{"http://u:pw@h/p"}},
		{Extractor{Schemes: []string{"user"}}, "//user:pw@host/p", nil},
	} {
		got := matchStrings(c.in, c.x.Append(nil, []byte(c.in)))
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%v %v %q:\ngot  %q\nwant %q", c.x.AnyScheme, c.x.Schemes, c.in, got, c.want)
		}
		s := NewExtractScanner(&c.x, iotest.OneByteReader(strings.NewReader(c.in)))
		var stream []Match
		for s.Scan() {
			stream = append(stream, s.Matches()...)
		}
		if got := matchStrings(c.in, stream); fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("stream %v %v %q:\ngot  %q\nwant %q", c.x.AnyScheme, c.x.Schemes, c.in, got, c.want)
		}
	}
}

// TestExtractZeroAllocs: finding matches allocates nothing once dst has
// room.
func TestExtractZeroAllocs(t *testing.T) {
	text := []byte(strings.Repeat(`1.2.3.4 - - [x] "GET http://a/b?c HTTP/1.1" 200 1 "https://r/x" "UA (+http://bot/)"`+"\n", 100))
	var x Extractor
	dst := make([]Match, 0, 1000)
	if n := testing.AllocsPerRun(20, func() { dst = x.Append(dst[:0], text) }); n != 0 || len(dst) != 300 {
		t.Fatalf("%v allocs, %d matches", n, len(dst))
	}
}

// carefulRE is RFC 3986's grammar for an http(s) URI with a host, as a
// regexp: scheme not preceded by a letter or digit (unless they are an
// escape \xHH: nginx's '"' in a quoted field), userinfo, host
// (IP-literal or reg-name), port, path-abempty, query, fragment, each with
// the characters Appendix A allows. The IP-literal is §3.2.2's exactly
// (ipLiteralRE), so that a bracketed host the RFC rejects is no match.
var carefulRE = func() *regexp.Regexp {
	const (
		unres = `A-Za-z0-9\-._~`
		sub   = `!$&'()*+,;=`
		pct   = `%[0-9A-Fa-f]{2}`
	)
	pchar := `(?:[` + unres + sub + `:@]|` + pct + `)`
	return regexp.MustCompile(`(?:^|[^A-Za-z0-9]|\\[xX][0-9A-Fa-f]{2})((?i:https?)://` +
		`(?:(?:[` + unres + sub + `:]|` + pct + `)*@)?` +
		`(?:` + ipLiteralRE + `|(?:[` + unres + sub + `]|` + pct + `)+)` +
		`(?::[0-9]*)?` +
		`(?:/` + pchar + `*)*` +
		`(?:\?(?:` + pchar + `|[/?])*)?` +
		`(?:#(?:` + pchar + `|[/?])*)?)`)
}()

// ipLiteralRE is §3.2.2's IP-literal, spelled out from Appendix A:
//
//	IP-literal  = "[" ( IPv6address / IPvFuture  ) "]"
//	IPvFuture   = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
//	IPv6address =                            6( h16 ":" ) ls32
//	            /                       "::" 5( h16 ":" ) ls32
//	            / [               h16 ] "::" 4( h16 ":" ) ls32
//	            / [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32
//	            / [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32
//	            / [ *3( h16 ":" ) h16 ] "::"    h16 ":"   ls32
//	            / [ *4( h16 ":" ) h16 ] "::"              ls32
//	            / [ *5( h16 ":" ) h16 ] "::"              h16
//	            / [ *6( h16 ":" ) h16 ] "::"
//	h16         = 1*4HEXDIG
//	ls32        = ( h16 ":" h16 ) / IPv4address
//	IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
//	dec-octet   = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
//
// TestIPLiteralRE holds its IPv6address to net/netip.
var ipLiteralRE = `\[(?:` + ipv6RE + `|v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+)\]`

var ipv6RE = func() string {
	const (
		h16   = `[0-9A-Fa-f]{1,4}`
		dec   = `(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9][0-9]|[0-9])`
		ipv4  = dec + `\.` + dec + `\.` + dec + `\.` + dec
		ls32  = `(?:` + h16 + `:` + h16 + `|` + ipv4 + `)`
		colon = `(?:` + h16 + `:)`
	)
	// pre(n) is [ *n( h16 ":" ) h16 ], the part before "::".
	pre := func(n int) string {
		if n < 0 {
			return ""
		}
		return `(?:` + colon + `{0,` + fmt.Sprint(n) + `}` + h16 + `)?`
	}
	forms := []string{
		colon + `{6}` + ls32,
		`::` + colon + `{5}` + ls32,
		pre(0) + `::` + colon + `{4}` + ls32,
		pre(1) + `::` + colon + `{3}` + ls32,
		pre(2) + `::` + colon + `{2}` + ls32,
		pre(3) + `::` + colon + ls32,
		pre(4) + `::` + ls32,
		pre(5) + `::` + h16,
		pre(6) + `::`,
	}
	return `(?:` + strings.Join(forms, `|`) + `)`
}()

// TestIPLiteralRE holds the oracle's IPv6address to an independent parser,
// net/netip (which takes exactly RFC 4291's text forms, RFC 3986's
// IPv6address, plus zones, which a bracketed host spells %25 and the
// regexp never sees): on every candidate built from the pieces of an
// address (groups of 1 to 5 hex digits, "::" anywhere, a dotted tail
// with leading zeros and octets over 255, one group too many or too few),
// the regexp matches the whole candidate exactly when netip parses it as
// an IPv6 address.
func TestIPLiteralRE(t *testing.T) {
	whole := regexp.MustCompile(`^` + ipv6RE + `$`)
	good := []string{"0", "1f", "abc", "FFFF"}
	bad := []string{"12345", "", "g"}
	tails := []string{"", "1.2.3.4", "255.255.255.255", "256.1.1.1", "01.2.3.4", "1.2.3", "1:2"}
	seen := map[string]bool{}
	var accepted, rejected int
	check := func(s string) {
		if seen[s] {
			return
		}
		seen[s] = true
		a, err := netip.ParseAddr(s)
		want := err == nil && a.Is6() && a.Zone() == ""
		if got := whole.MatchString(s); got != want {
			t.Errorf("%q: the regexp says %v, netip %v (%v)", s, got, want, err)
		}
		if want {
			accepted++
		} else {
			rejected++
		}
	}
	// Every count of groups up to 9, with "::" at every place (or none),
	// every tail, all groups good or one of them bad.
	for n := 0; n <= 9; n++ {
		for badAt := -1; badAt < n; badAt++ {
			for _, b := range bad {
				parts := make([]string, n)
				for i := range parts {
					parts[i] = good[i%len(good)]
				}
				if badAt >= 0 {
					parts[badAt] = b
				}
				for gap := -1; gap <= n; gap++ {
					for _, tail := range tails {
						var s strings.Builder
						for i, p := range parts {
							if i == gap {
								s.WriteString("::")
							} else if i > 0 {
								s.WriteByte(':')
							}
							s.WriteString(p)
						}
						if gap == n {
							s.WriteString("::")
						}
						if tail != "" {
							if t := s.String(); t != "" && !strings.HasSuffix(t, ":") {
								s.WriteByte(':')
							}
							s.WriteString(tail)
						}
						check(s.String())
					}
				}
			}
		}
	}
	for _, s := range []string{"1:2:3:4:5:6:7:8:9", "::", "::1", "1::", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8",
		"1:2:3:4:5:6:1.2.3.4", "::ffff:1.2.3.4", ":::", "1:::2", "1::2::3", ":1::", "1::2:", "[::1]", "::1%eth0"} {
		check(s)
	}
	if accepted < 100 || rejected < 100 {
		t.Fatalf("%d candidates accepted, %d rejected: the test builds too few of one kind", accepted, rejected)
	}
	t.Logf("%d candidates: %d IPv6 addresses, %d not", len(seen), accepted, rejected)
	// IPvFuture and the brackets.
	lit := regexp.MustCompile(`^` + ipLiteralRE + `$`)
	for s, want := range map[string]bool{
		"[v7.fe80::a+en1]": true, "[vF.x]": true, "[v.x]": false, "[v1.]": false, "[v1.a/b]": false,
		"[::1]": true, "[1:2:3:4:5:6:7:8:9]": false, "::1": false, "[::1": false,
	} {
		if got := lit.MatchString(s); got != want {
			t.Errorf("IP-literal %q: the regexp says %v, want %v", s, got, want)
		}
	}
}

// TestExtractVsRegexp: on the bundled sample (which holds hostile lines
// such as an IP-literal of nine groups) and on the shared access log when
// it is there, every http(s) URI the careful regexp finds, the extractor
// finds at the same offset, the same or shorter only by trailing
// punctuation and unbalanced brackets (Appendix C), and the extractor
// finds nothing else.
func TestExtractVsRegexp(t *testing.T) {
	t.Run("sample", func(t *testing.T) {
		text, err := os.ReadFile("testdata/sample.txt")
		if err != nil {
			t.Fatal(err)
		}
		extractVsRegexp(t, text)
	})
	t.Run("access.log", func(t *testing.T) {
		text, err := os.ReadFile(shareddata.Path(t, "logs/access.log"))
		if err != nil {
			t.Fatal(err)
		}
		extractVsRegexp(t, text)
	})
}

func extractVsRegexp(t *testing.T, text []byte) {
	var x Extractor
	ms := x.Append(nil, text)
	got := map[int64]int64{}
	for _, m := range ms {
		got[m.Start] = m.End
	}
	re := carefulRE.FindAllSubmatchIndex(text, -1)
	if len(re) == 0 {
		t.Fatal("the regexp finds nothing")
	}
	found := 0
	for _, r := range re {
		start, end := int64(r[2]), int64(r[3])
		e, ok := got[start]
		if !ok {
			t.Fatalf("the regexp finds %q at %d, the extractor nothing there", text[start:end], start)
		}
		if e > end || e < end && int64(trimEnd(text[start:end])) < e-start {
			t.Fatalf("at %d: regexp %q, extractor %q", start, text[start:end], text[start:e])
		}
		found++
	}
	if found != len(ms) {
		t.Fatalf("the regexp finds %d URIs, the extractor %d", found, len(ms))
	}
	t.Logf("%d URIs in %d bytes, the same as the regexp's", found, len(text))
}

// BenchmarkExtract: the extractor against Go's regexp (the careful one and
// the common https?://[^ "]+) over the shared access log.
func BenchmarkExtract(b *testing.B) {
	text, err := os.ReadFile(shareddata.Path(b, "logs/access.log"))
	if err != nil {
		b.Fatal(err)
	}
	common := regexp.MustCompile(`https?://[^ "]+`)
	for _, k := range availableKernels() {
		b.Run("impl="+k.String(), func(b *testing.B) {
			x := Extractor{eng: kernelEngine(k)}
			dst := x.Append(nil, text)
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				dst = x.Append(dst[:0], text)
			}
		})
	}
	for name, re := range map[string]*regexp.Regexp{"regexp-common": common, "regexp-careful": carefulRE} {
		b.Run("impl="+name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				re.FindAllIndex(text, -1)
			}
		})
	}
}

// TestExtractScannerReadError: a read error cuts the input short (a
// truncated archive): the URIs delimited before the cut are found, the
// run of URI bytes that reaches it is not (it may be a URI cut short), at
// every cut point, and Err returns the error.
func TestExtractScannerReadError(t *testing.T) {
	text := "GET http://a.example/x and <https://b.example/y?q=1> then http://c.example/zzz\n"
	cutErr := fmt.Errorf("unexpected EOF (test)")
	var x Extractor
	for cut := 0; cut <= len(text); cut++ {
		var want []string
		for _, m := range x.Append(nil, []byte(text)) {
			// Found whole only if a byte that ends a URI comes before the cut.
			if m.End < int64(cut) {
				want = append(want, text[m.Start:m.End])
			}
		}
		r := io.MultiReader(strings.NewReader(text[:cut]), iotest.ErrReader(cutErr))
		s := NewExtractScanner(&x, iotest.OneByteReader(r))
		var got []string
		for s.Scan() {
			for _, m := range s.Matches() {
				got = append(got, string(s.Bytes(m)))
			}
		}
		if s.Err() != cutErr {
			t.Fatalf("cut %d: Err = %v", cut, s.Err())
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("cut %d (%q): got %q, want %q", cut, text[:cut], got, want)
		}
	}
}

// TestExtractCol: each match's Col is its offset in its line, with lines
// that begin in an earlier block, an earlier chunk of the extractor, or
// an earlier read of an ExtractScanner, and lines that hold several URIs;
// with every kernel.
func TestExtractCol(t *testing.T) {
	var b strings.Builder
	for i := range 400 {
		// Lines of 0 to ~9 KiB: some end in the block they start in, some
		// span blocks and the extractor's 4 KiB chunks.
		b.WriteString(strings.Repeat("x ", (i*i*37)%4600))
		fmt.Fprintf(&b, "http://h%d.example/a and https://k.example/%d", i, i)
		if i%3 != 0 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	text := b.String()
	check := func(name string, ms []Match) {
		t.Helper()
		if len(ms) != 800 {
			t.Fatalf("%s: %d matches", name, len(ms))
		}
		for _, m := range ms {
			if col := m.Start - int64(strings.LastIndexByte(text[:m.Start], '\n')+1); m.Col != col {
				t.Fatalf("%s: match %+v: Col %d, want %d", name, m, m.Col, col)
			}
		}
	}
	for _, k := range availableKernels() {
		x := Extractor{eng: kernelEngine(k)}
		check(k.String()+" Append", x.Append(nil, []byte(text)))
		for _, r := range []io.Reader{iotest.HalfReader(strings.NewReader(text)), iotest.OneByteReader(strings.NewReader(text))} {
			s := NewExtractScanner(&x, r)
			var ms []Match
			for s.Scan() {
				ms = append(ms, s.Matches()...)
			}
			check(k.String()+" ExtractScanner", ms)
		}
	}
}
