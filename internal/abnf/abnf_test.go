package abnf

import (
	"math/rand"
	"strings"
	"testing"
)

// spec renders the defined components of r compactly, e.g.
// "scheme=http host=h hosttype=reg-name path=/x query=". Undefined
// components are left out; path is always present.
func spec(r Result) string {
	var b []string
	add := func(has bool, k, v string) {
		if has {
			b = append(b, k+"="+v)
		}
	}
	add(r.HasScheme, "scheme", r.Scheme)
	add(r.HasUserinfo, "userinfo", r.Userinfo)
	add(r.HasHost, "host", r.Host)
	add(r.HostType != "", "hosttype", r.HostType)
	add(r.HasPort, "port", r.Port)
	add(true, "path", r.Path)
	add(r.HasQuery, "query", r.Query)
	add(r.HasFragment, "fragment", r.Fragment)
	return strings.Join(b, " ")
}

// Valid references and their components.
var validCases = []struct{ in, want string }{
	// Empty components vs undefined ones.
	{"", "path="},
	{"http:", "scheme=http path="},
	{"http://h", "scheme=http host=h hosttype=reg-name path="},
	{"http://h?", "scheme=http host=h hosttype=reg-name path= query="},
	{"http://h#", "scheme=http host=h hosttype=reg-name path= fragment="},
	{"http://h:", "scheme=http host=h hosttype=reg-name port= path="},
	{"http://@h", "scheme=http userinfo= host=h hosttype=reg-name path="},
	{"file:///x", "scheme=file host= hosttype=reg-name path=/x"},
	{"//", "host= hosttype=reg-name path="},
	{"//@:", "userinfo= host= hosttype=reg-name port= path="},
	{"?", "path= query="},
	{"#", "path= fragment="},
	{"?#", "path= query= fragment="},
	{"a://", "scheme=a host= hosttype=reg-name path="},
	{"http:///", "scheme=http host= hosttype=reg-name path=/"},
	// Full references.
	{"http://user:pw@example.com:8080/a/b?q=1&r#frag",
		"scheme=http userinfo=user:pw host=example.com hosttype=reg-name port=8080 path=/a/b query=q=1&r fragment=frag"},
	{"HTTP://EXAMPLE.COM/", "scheme=HTTP host=EXAMPLE.COM hosttype=reg-name path=/"},
	{"a+b-c.d://h", "scheme=a+b-c.d host=h hosttype=reg-name path="},
	{"http://h:80@x", "scheme=http userinfo=h:80 host=x hosttype=reg-name path="},
	{"mailto:a@b", "scheme=mailto path=a@b"},
	{"urn:a:b", "scheme=urn path=a:b"},
	{"http:/a", "scheme=http path=/a"},
	{"http:a", "scheme=http path=a"},
	{"?a?b/c:@", "path= query=a?b/c:@"},
	{"#a?b/c:@", "path= fragment=a?b/c:@"},
	{"/a//b", "path=/a//b"},
	{"http://h//a", "scheme=http host=h hosttype=reg-name path=//a"},
	// The path-noscheme colon rule.
	{"a:b", "scheme=a path=b"},
	{"./a:b", "path=./a:b"},
	{"a/b:c", "path=a/b:c"},
	{"/a:b", "path=/a:b"},
	// pct-encoded.
	{"%41%4a%4A", "path=%41%4a%4A"},
	{"http://%7Eu@%41:1/%2F?%3F#%23", "scheme=http userinfo=%7Eu host=%41 hosttype=reg-name port=1 path=/%2F query=%3F fragment=%23"},
	// IPv4address vs reg-name; dec-octet boundaries.
	{"//0.9.10.99", "host=0.9.10.99 hosttype=ipv4 path="},
	{"//100.199.200.249", "host=100.199.200.249 hosttype=ipv4 path="},
	{"//250.255.0.0", "host=250.255.0.0 hosttype=ipv4 path="},
	{"//1.2.3.4:80/x", "host=1.2.3.4 hosttype=ipv4 port=80 path=/x"},
	{"//256.1.1.1", "host=256.1.1.1 hosttype=reg-name path="},
	{"//1.2.3.256", "host=1.2.3.256 hosttype=reg-name path="},
	{"//01.2.3.4", "host=01.2.3.4 hosttype=reg-name path="},
	{"//1.2.3.04", "host=1.2.3.04 hosttype=reg-name path="},
	{"//1.2.3.4.5", "host=1.2.3.4.5 hosttype=reg-name path="},
	{"//1.2.3", "host=1.2.3 hosttype=reg-name path="},
	{"//1.2.3.4.", "host=1.2.3.4. hosttype=reg-name path="},
	{"//300.1.1.1", "host=300.1.1.1 hosttype=reg-name path="},
	{"//1.2.3.4%41", "host=1.2.3.4%41 hosttype=reg-name path="},
	// IP-literals.
	{"http://[::1]:80/", "scheme=http host=[::1] hosttype=ipv6 port=80 path=/"},
	{"//[::1]:", "host=[::1] hosttype=ipv6 port= path="},
	{"//u@[::1]", "userinfo=u host=[::1] hosttype=ipv6 path="},
	{"//[v1.x]", "host=[v1.x] hosttype=ipvfuture path="},
	{"//[vF.a:b!$&'()*+,;=-._~]", "host=[vF.a:b!$&'()*+,;=-._~] hosttype=ipvfuture path="},
	{"//[v1a.1.2]", "host=[v1a.1.2] hosttype=ipvfuture path="},
	{"//[V1.x]", "host=[V1.x] hosttype=ipvfuture path="}, // "v" is case-insensitive
	{"//[v1..]", "host=[v1..] hosttype=ipvfuture path="},
}

// IPv6address texts: each of the nine forms, valid and invalid.
var ipv6Valid = []string{
	"1:2:3:4:5:6:7:8",     // 6( h16 ":" ) ls32
	"1:2:3:4:5:6:1.2.3.4", // 6( h16 ":" ) ls32(IPv4)
	"::2:3:4:5:6:7:8",     // "::" 5( h16 ":" ) ls32
	"::2:3:4:5:6:1.2.3.4",
	"1::3:4:5:6:7:8", // [ h16 ] "::" 4( h16 ":" ) ls32
	"::3:4:5:6:7:8",
	"1::3:4:5:6:1.2.3.4",
	"1:2::4:5:6:7:8", // [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32
	"1::4:5:6:7:8",
	"1:2:3::5:6:7:8", // [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32
	"::5:6:7:8",
	"1:2:3:4::6:7:8", // [ *3( h16 ":" ) h16 ] "::" h16 ":" ls32
	"::6:7:8",
	"1:2:3:4:5::7:8", // [ *4( h16 ":" ) h16 ] "::" ls32
	"1:2:3:4:5::1.2.3.4",
	"::7:8",
	"::1.2.3.4",
	"::ffff:192.168.0.1",
	"1:2:3:4:5:6::8", // [ *5( h16 ":" ) h16 ] "::" h16
	"::1",
	"1::8",
	"1:2:3:4:5:6:7::", // [ *6( h16 ":" ) h16 ] "::"
	"1::",
	"::",
	"FFFF:abcd:0:00:000:0000:AbCd:fFfF",
	"fe80::1",
	"::255.255.255.255",
	"::0.0.0.0",
}

var ipv6Invalid = []string{
	"1:2:3:4:5:6:7:8:9",
	"1:2:3:4:5:6:7",
	"1:2:3:4:5:6:7:8::",
	"::1:2:3:4:5:6:7:8",
	"1::2:3:4:5:6:7:8",
	"1:2:3:4:5::6:7:8",
	"1:2:3:4:5:6:7:1.2.3.4",
	":1:2:3:4:5:6:7",
	"1:2:3:4:5:6:7:",
	"12345::",
	"::12345",
	":::",
	"1:::2",
	"1::2::3",
	":",
	"1",
	"",
	"::1.2.3",
	"::1.2.3.256",
	"::01.2.3.4",
	"::1.2.3.4:5",
	"1.2.3.4",
	"1.2.3.4::",
	"::1.2.3.4.5",
	"1:2:3:4:5:6:7:8.",
}

// Invalid references and their error offsets per doc.go's rules.
var invalidCases = []struct {
	in  string
	off int
}{
	{"1a:b", 0},
	{":", 0},
	{":a", 0},
	{"-a:b", 0},
	{"a_b:c", 1},
	{"a%41:b", 1},
	{"ab*:c", 2},
	{"@a:b", 0},
	{"a b", 1},
	{"\x7f", 0},
	{"a\xff", 1},
	{"a\"b", 1},
	{"a<b>", 1},
	{"a\\b", 1},
	{"%", 0},
	{"%4", 0},
	{"%4g", 0},
	{"%%41", 0},
	{"http://h/%zz", 9},
	{"http://h/%4", 9},
	{"http://[::1", 11},
	{"http://[::1]x", 12},
	{"http://[::1]:8a", 14},
	{"http://[::1]:80:", 15},
	{"http://[::1]]", 12},
	{"http://[::1]@h", 7},
	{"http://a@b@c", 10},
	{"a#b#c", 3},
	{"##", 1},
	{"a[b", 1},
	{"a]b", 1},
	{"?#[", 2},
	{"?[", 1},
	{"[::1]", 0},
	{"http://h/a]", 10},
	{"http://u[@h", 8},
	{"http://h:8x", 10},
	{"http://h:-1", 9},
	{"http://h:1:2", 10},
	{"http://[v1]", 10},
	{"http://[v]", 9},
	{"http://[v.x]", 9},
	{"http://[v1.]", 11},
	{"http://[v1.x%41]", 12},
	{"http://[v1.x/]", 12},
	{"http://[vg.x]", 9},
	{"http://[1::2::3]", 8},
	{"http://[::g]", 10},
	{"http://[]", 8},
	{"http://[::1%25eth0]", 11},
	{"x://[1.2.3.4]", 5},
	{"//[x", 3},
	{"//[1", 3},
	{"//[v1", 5},
	{"//[::1]:80:", 10},
	{"//h h", 3},
	{"/a?b#c d", 6},
}

func TestValid(t *testing.T) {
	for _, c := range validCases {
		r := Parse(c.in)
		if !r.Valid || r.ErrOffset != -1 {
			t.Errorf("Parse(%q): valid=%v off=%d, want valid", c.in, r.Valid, r.ErrOffset)
			continue
		}
		if got := spec(r); got != c.want {
			t.Errorf("Parse(%q):\n got  %s\n want %s", c.in, got, c.want)
		}
	}
}

func TestIPv6(t *testing.T) {
	for _, a := range ipv6Valid {
		in := "//[" + a + "]"
		r := Parse(in)
		if want := "host=[" + a + "] hosttype=ipv6 path="; !r.Valid || spec(r) != want {
			t.Errorf("Parse(%q) = valid=%v off=%d %s, want %s", in, r.Valid, r.ErrOffset, spec(r), want)
		}
	}
	for _, a := range ipv6Invalid {
		in := "//[" + a + "]"
		r := Parse(in)
		if r.Valid || r.ErrOffset != 3 {
			t.Errorf("Parse(%q) = valid=%v off=%d, want invalid at 3", in, r.Valid, r.ErrOffset)
		}
	}
}

func TestInvalid(t *testing.T) {
	for _, c := range invalidCases {
		r := Parse(c.in)
		if r.Valid || r.ErrOffset != c.off {
			t.Errorf("Parse(%q) = valid=%v off=%d, want invalid at %d", c.in, r.Valid, r.ErrOffset, c.off)
		}
		if r != (Result{ErrOffset: r.ErrOffset}) {
			t.Errorf("Parse(%q): invalid result carries components: %+v", c.in, r)
		}
	}
}

// TestRules checks a few rules on their own.
func TestRules(t *testing.T) {
	full := func(r func(p *parser) rule, s string) bool { return matchesRule(s, r) }
	decOctet := func(p *parser) rule { return p.decOctet }
	for _, s := range []string{"0", "9", "10", "99", "100", "199", "200", "249", "250", "255"} {
		if !full(decOctet, s) {
			t.Errorf("dec-octet should match %q", s)
		}
	}
	for _, s := range []string{"", "00", "01", "09", "256", "260", "300", "999", "1000", "0255", "a"} {
		if full(decOctet, s) {
			t.Errorf("dec-octet should not match %q", s)
		}
	}
	pct := func(p *parser) rule { return p.pctEncoded }
	for _, s := range []string{"%00", "%ff", "%FF", "%aF"} {
		if !full(pct, s) {
			t.Errorf("pct-encoded should match %q", s)
		}
	}
	for _, s := range []string{"%", "%f", "%fg", "%%00", "%0001"} {
		if full(pct, s) {
			t.Errorf("pct-encoded should not match %q", s)
		}
	}
	pathAbs := func(p *parser) rule { return p.pathAbsolute }
	if full(pathAbs, "//a") || !full(pathAbs, "/") || !full(pathAbs, "/a//") {
		t.Error("path-absolute")
	}
	nc := func(p *parser) rule { return p.pathNoscheme }
	if full(nc, "a:b") || !full(nc, "a/b:c") || full(nc, "") {
		t.Error("path-noscheme")
	}
	abs := func(p *parser) rule { return p.absoluteURI }
	if !full(abs, "a:b?c") || full(abs, "a:b#c") {
		t.Error("absolute-URI")
	}
	path := func(p *parser) rule { return p.path }
	if !full(path, "") || !full(path, "a:b") || !full(path, "//a") {
		t.Error("path")
	}
	res := func(p *parser) rule { return p.reserved }
	for _, c := range ":/?#[]@!$&'()*+,;=" {
		if !full(res, string(c)) {
			t.Errorf("reserved should match %q", c)
		}
	}
}

// consistent checks that the doc.go offset rules find a violation exactly
// when the ABNF matcher rejects s, and that the offset is in range.
func consistent(t *testing.T, s string) {
	t.Helper()
	_, ok := match(s)
	off := errOffset(s)
	if ok != (off < 0) {
		t.Errorf("disagreement on %q: ABNF valid=%v, offset rules give %d", s, ok, off)
	}
	if off > len(s) {
		t.Errorf("offset %d beyond end of %q", off, s)
	}
}

func TestSelfConsistencyHandWritten(t *testing.T) {
	for _, c := range validCases {
		consistent(t, c.in)
	}
	for _, c := range invalidCases {
		consistent(t, c.in)
	}
	for _, a := range append(ipv6Valid, ipv6Invalid...) {
		for _, f := range []string{"//[%s]", "x://u@[%s]:1/p", "//[%s", "[%s]", "/[%s]"} {
			consistent(t, strings.Replace(f, "%s", a, 1))
		}
	}
}

func TestSelfConsistencyRandom(t *testing.T) {
	const alphabet = "a1:/?#[]@%.vF-_~!$&'()*+,;= "
	invalid := []string{"\x00", "\x7f", "\xff", "\"", "<", "\\", "^", "{", "|", "`"}
	pieces := []string{
		"http:", "a:", "//", "/", "?", "#", "@", ":", "[", "]", "::", "1", "12", "255",
		"256", "01", ".", "1.2.3.4", "v1.", "vF.x", "%", "%4", "%41", "%zz", "f", "ab",
		"ffff:", "1:2:3:4:5:6:", "[::1]", "[v1.a]", "[", "]:", ":80", "u@", "A", "-", "~",
	}
	rnd := rand.New(rand.NewSource(3986))
	randText := func(maxLen int) string {
		var b strings.Builder
		for j, length := 0, rnd.Intn(maxLen+1); j < length; j++ {
			switch x := rnd.Intn(100); {
			case x < 2:
				b.WriteString(invalid[rnd.Intn(len(invalid))])
			case x < 40:
				b.WriteString(pieces[rnd.Intn(len(pieces))])
			default:
				b.WriteByte(alphabet[rnd.Intn(len(alphabet))])
			}
		}
		return b.String()
	}
	hosts := []string{
		"", "h", "a.b", "1.2.3.4", "01.2.3.4", "1.2.3.4.5", "256.1.1.1", "%41",
		"[::1]", "[1:2:3:4:5:6:7:8]", "[::ffff:1.2.3.4]", "[1::]", "[v1.a:b]", "[V2.~]",
		"[::1", "[]", "[v1]", "[1:2]",
	}
	// structured builds scheme ":" "//" userinfo "@" host ":" port path "?"
	// query "#" fragment with random parts left out, then mutates a byte or
	// two, so that authorities and IP-literals are well represented.
	structured := func() string {
		var b strings.Builder
		if rnd.Intn(2) == 0 {
			b.WriteString([]string{"http", "a", "a+b.-1", "1a", ""}[rnd.Intn(5)] + ":")
		}
		if rnd.Intn(4) != 0 {
			b.WriteString("//")
			if rnd.Intn(3) == 0 {
				b.WriteString(randText(3) + "@")
			}
			b.WriteString(hosts[rnd.Intn(len(hosts))])
			if rnd.Intn(3) == 0 {
				b.WriteString(":" + []string{"", "80", "8a", "65536"}[rnd.Intn(4)])
			}
		}
		b.WriteString([]string{"", "/", "/a/b", "a", "a:b", "./a:b", "//x"}[rnd.Intn(7)])
		if rnd.Intn(3) == 0 {
			b.WriteString("?" + randText(3))
		}
		if rnd.Intn(3) == 0 {
			b.WriteString("#" + randText(3))
		}
		out := []byte(b.String())
		for m := rnd.Intn(3); m > 0 && len(out) > 0; m-- {
			out[rnd.Intn(len(out))] = alphabet[rnd.Intn(len(alphabet))]
		}
		return string(out)
	}
	n := 200000
	if testing.Short() {
		n = 20000
	}
	var b strings.Builder
	for iter := 0; iter < n; iter++ {
		var s string
		switch iter % 3 {
		case 0: // plain random bytes over the alphabet
			b.Reset()
			for j, length := 0, rnd.Intn(20); j < length; j++ {
				if rnd.Intn(50) == 0 {
					b.WriteString(invalid[rnd.Intn(len(invalid))])
				} else {
					b.WriteByte(alphabet[rnd.Intn(len(alphabet))])
				}
			}
			s = b.String()
		case 1: // random pieces
			s = randText(12)
		default:
			s = structured()
		}
		consistent(t, s)
		if t.Failed() {
			return
		}
	}
}

// TestIPLiteralExhaustive enumerates short IP-literal contents over a small
// alphabet, where the offset rules lean hardest on the grammar.
func TestIPLiteralExhaustive(t *testing.T) {
	const alpha = "1:.v]x"
	var rec func(prefix string, depth int)
	rec = func(prefix string, depth int) {
		consistent(t, "//["+prefix+"]")
		consistent(t, "//["+prefix)
		if depth == 0 {
			return
		}
		for i := 0; i < len(alpha); i++ {
			rec(prefix+alpha[i:i+1], depth-1)
		}
	}
	rec("", 6)
}
