package urikey

import (
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/ports"
	"github.com/uriscan/uriscan/normalize"
)

// The Hasher's side of normalize's tests of each option: Sum keys the
// form Normalizer.Append writes with the Hasher's options (normalize's
// tests check the forms), and Clone keeps the options.

// TestRFC2396Marks: under either grammar Sum is the digest of the syntax
// normal form, the marks RFC 2396 calls unreserved decoded under it.
func TestRFC2396Marks(t *testing.T) {
	for _, in := range []string{"http://a/%21%2a%27%28%29x?%28q%29#%2A", "HTTP://A/%7e%2Fb/./c", "http://u%21@a/", "mailto:x%28y%29"} {
		for _, g := range []uriscan.Grammar{uriscan.RFC3986, uriscan.RFC2396} {
			u, err := g.ParseString(in)
			if err != nil {
				t.Fatalf("%v %q: %v", g, in, err)
			}
			var n normalize.Normalizer
			want := n.Append(nil, &u, normalize.Syntax)
			h, _ := NewHasher(make([]byte, KeySize), normalize.Syntax)
			if sum, want := h.Sum(&u), h.SumBytes(want); sum != want {
				t.Errorf("%v %q: Hasher.Sum is not the digest of the normal form", g, in)
			}
		}
	}
}

// TestKeepEncodedDots: Clone keeps KeepEncodedDots and Sum uses it.
func TestKeepEncodedDots(t *testing.T) {
	base, _ := uriscan.ParseString("http://a/b/%2E%2E/c")
	h, _ := NewHasher(nil, normalize.Syntax)
	h.Config().KeepEncodedDots = true
	a, b := h.Sum(&base), h.Clone().Sum(&base)
	rfcH := h.Clone()
	rfcH.Config().KeepEncodedDots = false
	if a != b || string(h.Canonical()) != "http://a/b/%2E%2E/c" || rfcH.Sum(&base) == a {
		t.Errorf("Hasher: KeepEncodedDots not kept by Clone or not used")
	}
}

// TestIPv6RFC5952: with IPv6RFC5952 the Hasher keys RFC 5952's form,
// and its Clone writes it too.
func TestIPv6RFC5952(t *testing.T) {
	on := normalize.Normalizer{IPv6RFC5952: true}
	for _, in := range []string{
		"http://[2001:DB8:0:0:0:0:0:1]/", "http://[2001:0db8::0001]:8080/p", "http://[2001:db8:0:0:1:0:0:1]/",
		"http://[2001:db8:0:1:1:1:1:1]/", "http://[2001:0:0:1:0:0:0:1]/", "http://[0:0:0:0:0:FFFF:192.0.2.1]/",
		"http://[::1]/", "http://[v1.X]/", "http://Example.COM/",
	} {
		u, err := uriscan.ParseString(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		want := string(on.Append(nil, &u, normalize.Scheme))
		h, _ := NewHasher(nil, normalize.Scheme)
		h.Config().IPv6RFC5952 = true
		h.Sum(&u)
		if got := string(h.Clone().Config().Append(nil, &u, normalize.Scheme)); got != want || string(h.Canonical()) != want {
			t.Errorf("Hasher %q: canonical %q, clone %q, want %q", in, h.Canonical(), got, want)
		}
	}
}

// TestRootlessDots: with KeepRootlessDots or without, at Syntax and
// Scheme, the Hasher (and its Clone) keys a URI as its normal form, and
// as the normal form read back (the inputs of normalize's rootlessCases).
func TestRootlessDots(t *testing.T) {
	for _, in := range []string{
		"foo:a/../b", "scheme:foo/../p%61th", "f:./a", "f:../a", "f:.", "f:..", "f:./", "f:a/.", "f:a/./b",
		"f:a/..", "f:a/../../b", "f:%2E/a", "f:%2e%2E", "f:./a:b?q#f", "F:./A", "f:.a/..b", "f:a/b",
		"f:a/..//g", "f:.//g", "f:/.//g", "f:/..//g",
		"a/../../b", "./a", "..", "a/./b", "%2E%2E/x", "/a/../b", "/a/..//b",
		"http://h/a/./b", "http://h/a/..//b",
	} {
		u, err := uriscan.ParseString(in)
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		for _, keep := range []bool{false, true} {
			n := normalize.Normalizer{KeepRootlessDots: keep}
			for _, level := range []normalize.Level{normalize.Syntax, normalize.Scheme} {
				want := string(n.Append(nil, &u, level))
				v, err := uriscan.ParseString(want)
				if err != nil {
					t.Fatalf("%q: the normal form %q does not parse: %v", in, want, err)
				}
				h, _ := NewHasher(make([]byte, KeySize), level)
				*h.Config() = normalize.Normalizer{KeepRootlessDots: keep}
				h2 := h.Clone()
				if h.Sum(&u) != h2.Sum(&v) || string(h.Canonical()) != want {
					t.Errorf("KeepRootlessDots %v, %v %q: the Hasher (or its Clone) keys %q, want %q", keep, level, in, h.Canonical(), want)
				}
			}
		}
	}
}

// TestDefaultPortTable: the Hasher drops every default port of the one
// table (normalize.DefaultPort), as Append does.
func TestDefaultPortTable(t *testing.T) {
	ports.Each(func(scheme, port string) {
		u, err := uriscan.ParseString(scheme + "://h:" + port + "/x")
		if err != nil {
			t.Fatal(err)
		}
		h, _ := NewHasher(make([]byte, KeySize), normalize.Scheme)
		if h.Sum(&u); string(h.Canonical()) != scheme+"://h/x" {
			t.Errorf("Hasher %q: canonical %q", u.String(), h.Canonical())
		}
	})
}

// TestShape: two URIs of one shape have one key at level Shape, and
// Settings names the level.
func TestShape(t *testing.T) {
	u, _ := uriscan.ParseString("https://Example.com/users/123/posts/550e8400-e29b-41d4-a716-446655440000?page=2&sort=new&b=1#top")
	h, err := NewHasher(make([]byte, 32), normalize.Shape)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := uriscan.ParseString("https://example.com/users/9/posts/00000000-0000-0000-0000-000000000000?sort=old&page=1&b=")
	if h.Sum(&u) != h.Sum(&v) {
		t.Errorf("one shape, two keys")
	}
	if p := h.Settings(); p["level"] != "shape" {
		t.Errorf("Settings: %v", p)
	}
}
