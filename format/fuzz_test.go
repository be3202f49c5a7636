package format

import (
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/domain"
)

// FuzzFormat: Compile never panics, and a Format compiled from any
// template appends to any valid URI without panicking, and the same text
// twice (the host cache changes nothing).
func FuzzFormat(f *testing.F) {
	f.Add("{scheme}://{host}{path}", "https://www.example.co.uk/a/b?x=1&y=%20#f")
	f.Add(`[query-all:x]\t[path:-2]\n{rdn`, "http://h/a/b/c?x=1&x=2")
	f.Add("{:query:a+b}{query-keys}{default:port}{subdomain}{etld}", "HTTP://a.b.github.io:?a+b=%41&&=&c")
	f.Add(`\\{{url}\[`, "//h")
	f.Fuzz(func(t *testing.T, spec, uri string) {
		fm, err := Compile(spec, func() SplitFunc { return domain.NewSplitFunc(domain.Private) })
		if err != nil {
			return
		}
		u, err := uriscan.ParseString(uri)
		if err != nil {
			return
		}
		a := fm.Append(nil, &u)
		b := fm.Append(nil, &u)
		if string(a) != string(b) {
			t.Fatalf("%q on %q: %q, then %q", spec, uri, a, b)
		}
	})
}
