package uriscan

import (
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/classify"
)

// naiveMasks computes the masks of src bit by bit from the class table: the
// definition the scalar kernel (and so every kernel) must meet.
func naiveMasks(src []byte) []blockMasks {
	out := make([]blockMasks, (len(src)+blockSize-1)/blockSize)
	for i, c := range src {
		k := classify.Table[c]
		m := &out[i/blockSize]
		bit := uint64(1) << (i % blockSize)
		if k&classify.Invalid != 0 {
			m.invalid |= bit
		}
		if k&classify.Structural != 0 {
			m.structural |= bit
		}
		if k&classify.Newline != 0 {
			m.newline |= bit
		}
		if k&classify.Structural != 0 && strings.IndexByte("/:@", c) < 0 {
			m.tail |= bit
		}
		if c == '/' || c == '?' || c == '#' {
			m.delim |= bit
		}
	}
	return out
}

func TestClassifyGenericEveryByteEveryLane(t *testing.T) {
	for n := 1; n <= blockSize; n++ {
		for pos := 0; pos < n; pos++ {
			for c := 0; c < 256; c++ {
				src := []byte(strings.Repeat("a", n))
				src[pos] = byte(c)
				dst := make([]blockMasks, 1)
				classifyGeneric(dst, src)
				if want := naiveMasks(src); dst[0] != want[0] {
					t.Fatalf("n=%d pos=%d byte=%#02x: got %+v want %+v", n, pos, c, dst[0], want[0])
				}
			}
		}
	}
}

func TestClassifyGenericLengths(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 4*blockSize+1; n++ {
		src := make([]byte, n)
		for i := range src {
			src[i] = byte(rng.UintN(256))
		}
		dst := make([]blockMasks, (n+blockSize-1)/blockSize+1)
		canary := blockMasks{1, 2, 3, 4, 5}
		dst[len(dst)-1] = canary
		classifyGeneric(dst, src)
		want := naiveMasks(src)
		for i := range want {
			if dst[i] != want[i] {
				t.Fatalf("n=%d block %d: got %+v want %+v", n, i, dst[i], want[i])
			}
		}
		if dst[len(dst)-1] != canary {
			t.Fatalf("n=%d: kernel wrote past its blocks", n)
		}
	}
}

// TestParseLongInputs puts every kind of event at and around the window and
// block boundaries of the cursor.
func TestParseLongInputs(t *testing.T) {
	for _, at := range []int{0, 1, 62, 63, 64, 65, 127, 128, 511, 512, 513, 1023, 1024, 1025, 3000} {
		pad := strings.Repeat("a", at)
		cases := []struct{ in, want string }{
			{"http://h/" + pad + "%41?q#f", "scheme=http host=h type=reg-name path=/" + pad + "%41 query=q fragment=f"},
			{"http://" + pad + "h:80/x", "scheme=http host=" + pad + "h type=reg-name port=80 path=/x"},
			{"http://h/" + pad + "%4", "err@" + strconv.Itoa(9+at) + " pct"},
			{"http://h/" + pad + "%", "err@" + strconv.Itoa(9+at) + " pct"},
			{"http://h/" + pad + " x", "err@" + strconv.Itoa(9+at) + " char"},
			{pad + "x:y", "scheme=" + pad + "x path=y"},
			{"/" + pad + "[", "err@" + strconv.Itoa(1+at) + " char"},
			{"?" + pad + "#" + pad + "#", "err@" + strconv.Itoa(2+2*at) + " char"},
		}
		for _, c := range cases {
			u, err := ParseString(c.in)
			if got := render(u, err); got != c.want {
				t.Errorf("at=%d %.40q...: got %q\nwant %q", at, c.in, got, c.want)
			}
		}
	}
}

func TestParseZeroAllocs(t *testing.T) {
	inputs := []string{
		"http://user:pw@www.example.com:8080/a/b/c.html?x=1&y=%20#frag",
		"https://[2001:db8::7]/c=GB?objectClass?one",
		"urn:oasis:names:specification:docbook:dtd:xml:4.1.2",
		"../a/b?c",
		"file:///" + strings.Repeat("x/", 400),
	}
	for _, in := range inputs {
		b := []byte(in)
		if n := testing.AllocsPerRun(100, func() {
			if _, err := ParseString(in); err != nil {
				t.Fatal(err)
			}
			if _, err := Parse(b); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%.30q: %v allocs per Parse, want 0", in, n)
		}
	}
}

func TestParseAliasesInput(t *testing.T) {
	b := []byte("http://h/path?q")
	u, err := Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	s, e, ok := u.Span(Path)
	if !ok || string(b[s:e]) != "/path" {
		t.Fatalf("Span(Path) = %d,%d,%v", s, e, ok)
	}
	b[10] = 'P' // documented: the URI aliases b
	if u.Path() != "/pPth" {
		t.Errorf("Path() = %q after modifying the input; want the aliased bytes", u.Path())
	}
	if _, _, ok := u.Span(Fragment); ok {
		t.Error("Span(Fragment) ok for an undefined fragment")
	}
}

func TestErrorDetails(t *testing.T) {
	cases := []struct {
		in     string
		cause  error
		off    int
		comp   Component
		reason string
	}{
		{"http://a b", ErrInvalidChar, 8, Host, "invalid character ' ' in host"},
		{"http://h/%zz", ErrPercentEncoding, 9, Path, `percent-encoding "%zz" is not '%' followed by two hex digits`},
		{"http://[1:2:3:4:5:6:7:8:9]/", ErrIPv6, 8, Host, "IPv6 address has 9 groups"},
		{"http://[1:2:3:4:5:6:7]/", ErrIPv6, 8, Host, "IPv6 address has 7 groups and no '::'"},
		{"http://[1::2::3]/", ErrIPv6, 8, Host, "IPv6 address has more than one '::'"},
		{"1a:b", ErrScheme, 0, Scheme, `scheme must begin with a letter, not '1' (use "./" before a relative path containing ':')`},
		{":b", ErrScheme, 0, Scheme, "missing scheme before ':'"},
		{"http://h:8o/", ErrInvalidChar, 10, Port, "invalid character 'o' in port"},
		{"http://[::1", ErrIPLiteral, 11, Host, "IP-literal has no closing ']'"},
		{"http://[::1]x/", ErrIPLiteral, 12, Host, "unexpected 'x' after IP-literal (want ':' port or end of authority)"},
		{"http://[vz.x]/", ErrIPvFuture, 9, Host, "IPvFuture must be 'v' 1*HEXDIG '.' 1*( unreserved / sub-delims / ':' )"},
		{"a\x00b", ErrInvalidChar, 1, Path, "invalid character byte 0x00 in path"},
		{"ht\xc3\xa9://x", ErrInvalidChar, 2, Scheme, "invalid character byte 0xc3 in scheme"},
		{"http://u[@h/", ErrInvalidChar, 8, Userinfo, "invalid character '[' in userinfo (brackets are allowed only around an IP-literal host)"},
	}
	for _, c := range cases {
		_, err := ParseString(c.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%q: err = %v, want *Error", c.in, err)
			continue
		}
		if !errors.Is(err, c.cause) || e.Offset != c.off || e.Component != c.comp || e.Reason() != c.reason {
			t.Errorf("%q: got cause %v offset %d comp %v reason %q\nwant cause %v offset %d comp %v reason %q",
				c.in, e.Err, e.Offset, e.Component, e.Reason(), c.cause, c.off, c.comp, c.reason)
		}
		if got := string(e.AppendReason([]byte("> "))); got != "> "+c.reason {
			t.Errorf("%q: AppendReason = %q, want %q", c.in, got, "> "+c.reason)
		}
		if !strings.HasPrefix(err.Error(), "uriscan: ") || !strings.Contains(err.Error(), c.reason) {
			t.Errorf("%q: Error() = %q", c.in, err.Error())
		}
	}
}

func TestPortNumber(t *testing.T) {
	cases := []struct {
		in   string
		port uint16
		ok   bool
	}{
		{"http://h:80", 80, true}, {"http://h:0080", 80, true}, {"http://h:65535", 65535, true},
		{"http://h:65536", 0, false}, {"http://h:", 0, false}, {"http://h", 0, false},
		{"http://h:99999999999999999999", 0, false}, {"http://[::1]:443/", 443, true},
	}
	for _, c := range cases {
		u, err := ParseString(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if p, ok := u.PortNumber(); p != c.port || ok != c.ok {
			t.Errorf("%q: PortNumber() = %d, %v; want %d, %v", c.in, p, ok, c.port, c.ok)
		}
	}
}

func TestAuthority(t *testing.T) {
	for in, want := range map[string]string{
		"http://u@h:1/x": "u@h:1", "http://h/x": "h", "file:///x": "", "mailto:x": "", "//[::1]:": "[::1]:",
	} {
		u, err := ParseString(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Authority(); got != want {
			t.Errorf("%q: Authority() = %q, want %q", in, got, want)
		}
	}
}
