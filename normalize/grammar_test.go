package normalize

import (
	"testing"

	"github.com/uriscan/uriscan"
)

// TestRFC2396Marks: under the RFC 2396 profile, mark characters are
// unreserved (RFC 2396 §2.3), so their percent-encodings decode at the
// syntax level (RFC 3986 Appendix D.2 moved them to sub-delims, which
// keep their encoding); the rest is RFC 3986's §6.2.2. (urikey's
// TestRFC2396Marks: Hasher.Sum is the digest of these forms.)
func TestRFC2396Marks(t *testing.T) {
	for _, c := range []struct{ in, rfc3986, rfc2396 string }{
		{"http://a/%21%2a%27%28%29x?%28q%29#%2A", "http://a/%21%2A%27%28%29x?%28q%29#%2A", "http://a/!*'()x?(q)#*"},
		{"HTTP://A/%7e%2Fb/./c", "http://a/~%2Fb/c", "http://a/~%2Fb/c"},
		{"http://u%21@a/", "http://u%21@a/", "http://u!@a/"},
		{"mailto:x%28y%29", "mailto:x%28y%29", "mailto:x(y)"},
	} {
		for _, g := range []uriscan.Grammar{uriscan.RFC3986, uriscan.RFC2396} {
			u, err := g.ParseString(c.in)
			if err != nil {
				t.Fatalf("%v %q: %v", g, c.in, err)
			}
			want := c.rfc3986
			if g == uriscan.RFC2396 {
				want = c.rfc2396
			}
			var n Normalizer
			if got := string(n.Append(nil, &u, Syntax)); got != want {
				t.Errorf("%v %q = %q, want %q", g, c.in, got, want)
			}
		}
	}
}
