package normalize

import (
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/ports"
)

func TestRFCExamples(t *testing.T) {
	cases := []struct {
		in    string
		level Level
		want  string
	}{
		// §6.2.2: these two are equivalent.
		{"example://a/b/c/%7Bfoo%7D", Syntax, "example://a/b/c/%7Bfoo%7D"},
		{"eXAMPLE://a/./b/../b/%63/%7bfoo%7d", Syntax, "example://a/b/c/%7Bfoo%7D"},
		// §6.2.2.1
		{"HTTP://www.EXAMPLE.com/", Syntax, "http://www.example.com/"},
		{"http://a/%3a%3A", Syntax, "http://a/%3A%3A"},
		// §6.2.3: the four are equivalent; the second is the normal form.
		{"http://example.com", Scheme, "http://example.com/"},
		{"http://example.com/", Scheme, "http://example.com/"},
		{"http://example.com:/", Scheme, "http://example.com/"},
		{"http://example.com:80/", Scheme, "http://example.com/"},
		{"http://example.com/?", Scheme, "http://example.com/?"},
		{"http://example.com/#", Scheme, "http://example.com/#"},
		{"http://example.com", Syntax, "http://example.com"},
		{"http://example.com:80/", Syntax, "http://example.com:80/"},
		// §6.2.2.2: only unreserved characters are decoded.
		{"http://h/%41%2F%7e%2e%5F%2D%30", Syntax, "http://h/A%2F~._-0"},
		{"http://%41%42.example/", Syntax, "http://ab.example/"},
		{"http://EX%2Dample.COM/", Syntax, "http://ex-ample.com/"},
		{"http://h/%c3%a9", Syntax, "http://h/%C3%A9"},
		// Dot segments, encoded ones too: decoded (§6.2.2.2), then
		// removed (§6.2.2.3), in the order §6.2.2 gives.
		{"http://h/a/%2E%2E/b", Syntax, "http://h/b"},
		{"http://a/b/%2E%2E/c", Syntax, "http://a/c"},
		{"http://h/a/%2e./%2E/b/%2Ex", Syntax, "http://h/b/.x"},
		{"http://h/a/%2E", Syntax, "http://h/a/"},
		{"foo:a/%2E%2E/b", Syntax, "foo:/b"}, // rootless: decoded, removed
		{"http://h/a/./b/../../c", Syntax, "http://h/c"},
		{"foo:a/../b", Syntax, "foo:/b"}, // rootless with a scheme: §6.2.2.3 too
		{"foo:/a/../b", Syntax, "foo:/b"},
		{"/a/./b", Syntax, "/a/b"},
		{"a/./b", Syntax, "a/./b"}, // relative path: dot segments mean something
		{"../x", Syntax, "../x"},
		// Userinfo, query and fragment keep their case.
		{"HTTP://User:PW@Host:8080/P?Q=%7a#F", Scheme, "http://User:PW@host:8080/P?Q=z#F"},
		{"https://h:443", Scheme, "https://h/"},
		{"https://h:0443/", Scheme, "https://h:0443/"},
		{"ws://h:80", Scheme, "ws://h/"},
		{"ftp://h:21/x", Scheme, "ftp://h/x"},
		{"tftp://h:69/f", Scheme, "tftp://h/f"}, // RFC 3617: see DefaultPort
		{"TFTP://h:69/f", Scheme, "tftp://h/f"},
		{"tftp://h:69/f", Syntax, "tftp://h:69/f"},
		{"tftp://h:6969/f", Scheme, "tftp://h:6969/f"},
		{"ssh://h:22", Scheme, "ssh://h"},
		{"foo://h:80", Scheme, "foo://h:80"},
		{"foo://h", Scheme, "foo://h"},
		{"http://[2001:DB8::A]:80/", Scheme, "http://[2001:db8::a]/"},
		{"http://[V1.AbC]/", Syntax, "http://[v1.abc]/"},
		{"mailto:Joe@Example.COM", Scheme, "mailto:Joe@Example.COM"},
		{"file:///etc/./hosts", Scheme, "file:///etc/hosts"},
		{"foo:/a/..//x", Syntax, "foo:/.//x"},
		{"/a/..//x", Syntax, "/.//x"},
		{"http://h/a/..//x", Syntax, "http://h//x"},
		{"", Scheme, ""},
		{"?q", Scheme, "?q"},
	}
	var n Normalizer
	for _, c := range cases {
		u, err := uriscan.ParseString(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		got := string(n.Append(nil, &u, c.level))
		if got != c.want {
			t.Errorf("%v %q = %q, want %q", c.level, c.in, got, c.want)
		}
		checkStable(t, &n, got, c.level)
	}
}

// TestKeepEncodedDots: with KeepEncodedDots a segment that would decode to
// "." or ".." keeps its encoding (hex digits uppercased), and the normal
// form resolves references as the original does; without it the RFC's
// normal form does not, for such a path (the documented trade-off).
func TestKeepEncodedDots(t *testing.T) {
	keep := Normalizer{KeepEncodedDots: true}
	var rfc Normalizer
	for _, c := range []struct{ in, keep, rfc string }{
		{"http://a/b/%2E%2E/c", "http://a/b/%2E%2E/c", "http://a/c"},
		{"http://h/a/%2e./%2E/b/%2Ex", "http://h/a/%2E./%2E/b/.x", "http://h/b/.x"},
		{"http://h/a/%2E%2E%2E/b", "http://h/a/.../b", "http://h/a/.../b"}, // not a dot segment
		{"http://h/a/./b", "http://h/a/b", "http://h/a/b"},
	} {
		u, _ := uriscan.ParseString(c.in)
		if got := string(keep.Append(nil, &u, Syntax)); got != c.keep {
			t.Errorf("KeepEncodedDots %q = %q, want %q", c.in, got, c.keep)
		}
		checkStable(t, &keep, c.keep, Syntax)
		if got := string(rfc.Append(nil, &u, Syntax)); got != c.rfc {
			t.Errorf("%q = %q, want %q", c.in, got, c.rfc)
		}
		// (*Normalizer).String uses n's options; String the zero value's.
		if got, err := keep.String(c.in, Syntax); got != c.keep || err != nil {
			t.Errorf("keep.String(%q) = %q, %v, want %q", c.in, got, err, c.keep)
		}
		if got, err := String(c.in, Syntax); got != c.rfc || err != nil {
			t.Errorf("String(%q) = %q, %v, want %q", c.in, got, err, c.rfc)
		}
	}
	if got, err := keep.String("http://a b/", Syntax); err == nil {
		t.Errorf("keep.String of an invalid reference = %q, nil error", got)
	}
	// The trade-off, with the package doc's example.
	base, _ := uriscan.ParseString("http://a/b/%2E%2E/c")
	ref, _ := uriscan.ParseString("g")
	orig, _ := uriscan.Resolve(nil, &base, &ref, 0)
	for _, tc := range []struct {
		n    *Normalizer
		want string
	}{{&keep, "http://a/b/%2E%2E/g"}, {&rfc, "http://a/g"}} {
		v, _ := uriscan.ParseString(string(tc.n.Append(nil, &base, Syntax)))
		got, _ := uriscan.Resolve(nil, &v, &ref, 0)
		if string(got) != tc.want {
			t.Errorf("KeepEncodedDots %v: g against the normal form = %q, want %q", tc.n.KeepEncodedDots, got, tc.want)
		}
	}
	if string(orig) != "http://a/b/%2E%2E/g" {
		t.Errorf("g against the original = %q", orig)
	}
}

// TestIPv6RFC5952: with IPv6RFC5952 an IPv6 host takes RFC 5952's text
// form (§4: lower case, no leading zeros, the longest run of two or more
// zero groups as "::", the first of equal runs; §5: an IPv4-mapped
// address in dotted form); off, it is only lowercased.
func TestIPv6RFC5952(t *testing.T) {
	on := Normalizer{IPv6RFC5952: true}
	var off Normalizer
	for _, c := range []struct{ in, on, off string }{
		{"http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:db8::1]/", "http://[2001:db8:0:0:0:0:0:1]/"},
		{"http://[2001:0db8::0001]:8080/p", "http://[2001:db8::1]:8080/p", "http://[2001:0db8::0001]:8080/p"},
		{"http://[2001:db8:0:0:1:0:0:1]/", "http://[2001:db8::1:0:0:1]/", "http://[2001:db8:0:0:1:0:0:1]/"},        // §4.2.3: the first of equal runs
		{"http://[2001:db8:0:1:1:1:1:1]/", "http://[2001:db8:0:1:1:1:1:1]/", "http://[2001:db8:0:1:1:1:1:1]/"},     // §4.2.2: one zero group stays
		{"http://[2001:0:0:1:0:0:0:1]/", "http://[2001:0:0:1::1]/", "http://[2001:0:0:1:0:0:0:1]/"},                // §4.2.3: the longest run
		{"http://[0:0:0:0:0:FFFF:192.0.2.1]/", "http://[::ffff:192.0.2.1]/", "http://[0:0:0:0:0:ffff:192.0.2.1]/"}, // §5
		{"http://[::1]/", "http://[::1]/", "http://[::1]/"},
		{"http://[v1.X]/", "http://[v1.x]/", "http://[v1.x]/"}, // IPvFuture: only lowercased
		{"http://Example.COM/", "http://example.com/", "http://example.com/"},
	} {
		u, err := uriscan.ParseString(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got := string(on.Append(nil, &u, Scheme)); got != c.on {
			t.Errorf("IPv6RFC5952 %q = %q, want %q", c.in, got, c.on)
		}
		checkStable(t, &on, c.on, Scheme)
		if got := string(off.Append(nil, &u, Scheme)); got != c.off {
			t.Errorf("%q = %q, want %q", c.in, got, c.off)
		}
	}
	u, _ := uriscan.ParseString("http://[2001:db8::1]/")
	buf := make([]byte, 0, 64)
	if a := testing.AllocsPerRun(100, func() { buf = on.Append(buf[:0], &u, Scheme) }); a != 0 {
		t.Errorf("%v allocations", a)
	}
}

// checkStable asserts the normal form parses and is a fixed point.
func checkStable(t *testing.T, n *Normalizer, norm string, level Level) {
	t.Helper()
	u, err := uriscan.ParseString(norm)
	if err != nil {
		t.Fatalf("normal form %q does not parse: %v", norm, err)
	}
	if again := string(n.Append(nil, &u, level)); again != norm {
		t.Errorf("not idempotent: %q -> %q", norm, again)
	}
}

// rootlessCases are the normal forms at level Syntax of rootless paths
// (and "//" ones) by the default Normalizer (rfc) and with
// KeepRootlessDots (keep).
var rootlessCases = []struct{ in, rfc, keep string }{
	// With a scheme: remove_dot_segments (§6.2.2.3), as Resolve does.
	{"foo:a/../b", "foo:/b", "foo:a/../b"},
	{"scheme:foo/../p%61th", "scheme:/path", "scheme:foo/../path"},
	{"f:./a", "f:a", "f:./a"},
	{"f:../a", "f:a", "f:../a"},
	{"f:.", "f:", "f:."},
	{"f:..", "f:", "f:.."},
	{"f:./", "f:", "f:./"},
	{"f:a/.", "f:a/", "f:a/."},
	{"f:a/./b", "f:a/b", "f:a/./b"},
	{"f:a/..", "f:/", "f:a/.."},
	{"f:a/../../b", "f:/b", "f:a/../../b"},
	{"f:%2E/a", "f:a", "f:./a"}, // decoded (§6.2.2.2), then removed
	{"f:%2e%2E", "f:", "f:.."},
	{"f:./a:b?q#f", "f:a:b?q#f", "f:./a:b?q#f"},
	{"F:./A", "f:A", "f:./A"},
	{"f:.a/..b", "f:.a/..b", "f:.a/..b"}, // no dot segment
	{"f:a/b", "f:a/b", "f:a/b"},
	// "//" without an authority gets "/." (uriscan.AppendPath's rule).
	{"f:a/..//g", "f:/.//g", "f:a/..//g"},
	{"f:.//g", "f:/g", "f:.//g"},
	{"f:/.//g", "f:/.//g", "f:/.//g"},
	{"f:/..//g", "f:/.//g", "f:/.//g"},
	// Without a scheme: a rootless path keeps its dot segments either
	// way ("a/../../b" as "/b" would resolve elsewhere); an absolute one
	// loses them.
	{"a/../../b", "a/../../b", "a/../../b"},
	{"./a", "./a", "./a"},
	{"..", "..", ".."},
	{"a/./b", "a/./b", "a/./b"},
	{"%2E%2E/x", "../x", "../x"},
	{"/a/../b", "/b", "/b"},
	{"/a/..//b", "/.//b", "/.//b"},
	// With an authority the path is absolute or empty: no change.
	{"http://h/a/./b", "http://h/a/b", "http://h/a/b"},
	{"http://h/a/..//b", "http://h//b", "http://h//b"},
}

// TestRootlessDots: a URI with a scheme loses the dot segments of a
// rootless path too (§6.2.2.3), unless KeepRootlessDots; a relative
// reference keeps them; no normal form without an authority has a path
// beginning with "//". Every normal form parses to the same authority
// (none, or the one it had) and is a fixed point, and the fast path
// (unchanged) agrees with the full one.
func TestRootlessDots(t *testing.T) {
	rfc, keep := &Normalizer{}, &Normalizer{KeepRootlessDots: true}
	for _, c := range rootlessCases {
		u, err := uriscan.ParseString(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		for _, tc := range []struct {
			n    *Normalizer
			want string
		}{{rfc, c.rfc}, {keep, c.keep}} {
			for _, level := range []Level{Syntax, Scheme} {
				got := string(tc.n.Append(nil, &u, level))
				if got != tc.want {
					t.Errorf("KeepRootlessDots %v, %v %q = %q, want %q", tc.n.KeepRootlessDots, level, c.in, got, tc.want)
					continue
				}
				checkStable(t, tc.n, got, level)
				v, _ := uriscan.ParseString(got)
				if v.HasAuthority() != u.HasAuthority() {
					t.Errorf("%q: the normal form %q reads back with authority %v", c.in, got, v.HasAuthority())
				}
				if full := string(tc.n.appendChanged(nil, &u, level, uriHints(&u))); full != got {
					t.Errorf("KeepRootlessDots %v, %v %q: Append %q, appendChanged %q", tc.n.KeepRootlessDots, level, c.in, got, full)
				}
			}
		}
	}
}

// TestCheck: AppendChecked after Check appends what Append does, and
// Check finds a URI normal only at Syntax and Scheme and only when its
// text is the normal form (as most URIs' text is).
func TestCheck(t *testing.T) {
	inputs := []string{"http://example.com/a", "HTTP://example.com/a", "http://example.com:80/a", "http://[::1]/", "http://[0:0::1]/", "p?q#f", ""}
	for _, c := range rootlessCases {
		inputs = append(inputs, c.in)
	}
	for _, in := range inputs {
		u, err := uriscan.ParseString(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, n := range []*Normalizer{{}, {KeepRootlessDots: true}, {IPv6RFC5952: true}} {
			for _, level := range []Level{Syntax, Scheme, Crawler, SafeBrowsing, W3lib, Shape} {
				want := string(n.Append(nil, &u, level))
				c := n.Check(&u, level)
				if c.Normal() && (u.String() != want || level > Scheme) {
					t.Errorf("%+v, %v %q: Check says normal, the normal form is %q", *n, level, in, want)
				}
				if got := string(n.AppendChecked([]byte("dst"), &u, level, c)); got != "dst"+want {
					t.Errorf("%+v, %v %q: AppendChecked %q, want %q", *n, level, in, got, "dst"+want)
				}
			}
		}
	}
	var n Normalizer
	u, _ := uriscan.ParseString("http://example.com/a")
	if !n.Check(&u, Syntax).Normal() || !n.Check(&u, Scheme).Normal() {
		t.Errorf("Check: %q is not normal", u.String())
	}
}

// TestUnchangedRootless: the fast check never passes a rootless path with
// a dot segment at its start or after a "/" when the path's dots are
// removed, and passes one without (so most URIs stay one copy).
func TestUnchangedRootless(t *testing.T) {
	rfc, keep := &Normalizer{}, &Normalizer{KeepRootlessDots: true}
	for _, c := range []struct {
		in        string
		rfc, keep bool
	}{
		{"f:./x", false, true},
		{"f:../x", false, true},
		{"f:.", false, true},
		{"f:..", false, true},
		{"f:a/./x", false, true},
		{"f:a/..", false, true},
		{"f:.x", true, true},
		{"f:a/.x", true, true},
		{"f:a/b", true, true},
		{"./x", true, true}, // no scheme: kept
		{"a/../x", true, true},
		{"/./x", false, false},
		{"mailto:a@b.example", true, true},
	} {
		u, _ := uriscan.ParseString(c.in)
		if got, _ := rfc.unchanged(&u, Syntax); got != c.rfc {
			t.Errorf("unchanged(%q) = %v, want %v", c.in, got, c.rfc)
		}
		if got, _ := keep.unchanged(&u, Syntax); got != c.keep {
			t.Errorf("KeepRootlessDots: unchanged(%q) = %v, want %v", c.in, got, c.keep)
		}
	}
}

// TestResolveIsNormal: a Resolve target without an authority whose path
// begins with "/.//" (uriscan.AppendPath's rule) is a fixed point of
// normalization, and normalization and resolution write the same form.
func TestResolveIsNormal(t *testing.T) {
	for _, c := range []struct{ base, ref, want string }{
		{"f:/a", ".//g", "f:/.//g"},
		{"f:/a/b", "../..//g", "f:/.//g"},
		{"f:a/b", "..//g", "f:/.//g"},
		{"f:/a", "f:a/..//g", "f:/.//g"},
		{"f:/.//a/b", "c", "f:/.//a/c"},
	} {
		target, err := uriscan.ResolveString(c.base, c.ref)
		if err != nil || target != c.want {
			t.Errorf("ResolveString(%q, %q) = %q, %v, want %q", c.base, c.ref, target, err, c.want)
			continue
		}
		for _, level := range []Level{Syntax, Scheme} {
			if got, err := String(target, level); err != nil || got != target {
				t.Errorf("%v %q = %q, %v: not a fixed point", level, target, got, err)
			}
		}
		// The reference itself, made absolute, normalizes to the target.
		if ref, _ := uriscan.ParseString(c.ref); ref.IsAbsolute() {
			if got, _ := String(c.ref, Syntax); got != c.want {
				t.Errorf("Syntax %q = %q, want %q (Resolve's target)", c.ref, got, c.want)
			}
		}
	}
}

func TestZeroAllocs(t *testing.T) {
	u, _ := uriscan.ParseString("HTTP://www.Example.COM:80/a/./b/../%7ec?x=%2f#F")
	var n Normalizer
	buf := make([]byte, 0, 256)
	n.Append(buf, &u, Scheme)
	if a := testing.AllocsPerRun(100, func() { buf = n.Append(buf[:0], &u, Scheme) }); a != 0 {
		t.Errorf("%v allocations per Append", a)
	}
	if string(buf) != "http://www.example.com/a/~c?x=%2F#F" {
		t.Errorf("got %q", buf)
	}
}

// TestRootlessZeroAllocs: removing a rootless path's dot segments, with
// the "/." guard, allocates nothing once the scratch buffer has grown.
func TestRootlessZeroAllocs(t *testing.T) {
	buf := make([]byte, 0, 256)
	for _, in := range []string{"F:a/../b%41", "f:a/..//g?q", "f:./x", "f:%2E/x"} {
		u, _ := uriscan.ParseString(in)
		for _, n := range []*Normalizer{{}, {KeepRootlessDots: true}} {
			n.Append(buf, &u, Scheme)
			if a := testing.AllocsPerRun(100, func() { buf = n.Append(buf[:0], &u, Scheme) }); a != 0 {
				t.Errorf("%q (KeepRootlessDots %v): %v allocations per Append", in, n.KeepRootlessDots, a)
			}
		}
	}
}

// TestDefaultPortTable: the one table (DefaultPort) has tftp 69, and
// Append drops each of its ports. (SURT's subset of it:
// compat.TestSURTDefaultPortTable; the Hasher: urikey's.)
func TestDefaultPortTable(t *testing.T) {
	if p, ok := DefaultPort("tftp"); !ok || p != "69" {
		t.Errorf("DefaultPort(tftp) = %q, %v", p, ok)
	}
	schemes := 0
	ports.Each(func(scheme, port string) {
		schemes++
		u, err := uriscan.ParseString(scheme + "://h:" + port + "/x")
		if err != nil {
			t.Fatal(err)
		}
		var n Normalizer
		if got := string(n.Append(nil, &u, Scheme)); got != scheme+"://h/x" {
			t.Errorf("Scheme %q = %q, want the port dropped", u.String(), got)
		}
	})
	if schemes != 19 {
		t.Errorf("the table has %d schemes, DefaultPort's doc names 19", schemes)
	}
}
