package fuzz

import (
	"errors"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
)

var seeds2396 = []string{
	"", "#f", "?y", "s:", "s:#f", "g:h", "mailto:a@b?x", "s:[x", "s:a[b]", "http://a/b/c/d;p?q",
	"file:///etc", "//", "//u:p@h.example.:8080/p", "//@h", "//h:", "//1.2.3.4:80", "//999.01.2.300",
	"//1234.1.1.1:80", "//123:80", "//a_b.c:80", "//u@", "//a@b@c", "//h:8a", "//[::1]:80/x",
	"//[::1.2.3.256]", "//[v1.x]", "//[::1", "//[::1]x", "//[1::2::3]", "//a[::1]", "//[::1]@h",
	"a?b[c]#d[e]", "a#b#c", "%", "a%g0", "é", "../../../g", "g;x=1/../y", "g?y/./x", ".//g", "..//g",
}

// reassemble2396 writes u's components back in the order RFC 2396 §5.2
// step 7 does (an opaque_part is the path).
func reassemble2396(u *uriscan.URI) string {
	var b strings.Builder
	if u.Has(uriscan.Scheme) {
		b.WriteString(u.Scheme() + ":")
	}
	if u.HasAuthority() {
		b.WriteString("//")
		if u.Has(uriscan.Userinfo) {
			b.WriteString(u.Userinfo() + "@")
		}
		b.WriteString(u.Host())
		if u.Has(uriscan.Port) {
			b.WriteString(":" + u.Port())
		}
	}
	b.WriteString(u.Path())
	if u.Has(uriscan.Query) {
		b.WriteString("?" + u.Query())
	}
	if u.Has(uriscan.Fragment) {
		b.WriteString("#" + u.Fragment())
	}
	return b.String()
}

func check2396(t *testing.T, s string) {
	u, err := uriscan.RFC2396.ParseString(s)
	ub, errb := uriscan.RFC2396.Parse([]byte(s))
	if (err == nil) != (errb == nil) {
		t.Fatalf("%q: ParseString %v, Parse %v", s, err, errb)
	}
	if err != nil {
		var e *uriscan.Error
		if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(s) || e.Input != s || e.Reason() == "" {
			t.Fatalf("%q: bad error %#v", s, err)
		}
		if eb := errb.(*uriscan.Error); eb.Offset != e.Offset || eb.Reason() != e.Reason() {
			t.Fatalf("%q: Parse error %v, ParseString error %v", s, errb, err)
		}
		return
	}
	if u.Grammar() != uriscan.RFC2396 || u.String() != s || ub.String() != s {
		t.Fatalf("%q: Grammar %v, String %q", s, u.Grammar(), u.String())
	}
	for c := uriscan.Scheme; c <= uriscan.Fragment; c++ {
		a, b, ok := u.Span(c)
		if ok != u.Has(c) || ok && (a < 0 || a > b || b > len(s) || s[a:b] != u.Get(c)) {
			t.Fatalf("%q: %v span %d %d %v, Get %q", s, c, a, b, ok, u.Get(c))
		}
		if ub.Has(c) != u.Has(c) || ub.Get(c) != u.Get(c) {
			t.Fatalf("%q: Parse and ParseString differ on %v", s, c)
		}
	}
	if !u.Has(uriscan.Path) {
		t.Fatalf("%q: no path", s)
	}
	r := reassemble2396(&u)
	if r != s {
		t.Fatalf("%q: reassembled as %q", s, r)
	}
	v, err := uriscan.RFC2396.ParseString(r)
	if err != nil {
		t.Fatalf("%q: the reassembled %q does not parse: %v", s, r, err)
	}
	for c := uriscan.Scheme; c <= uriscan.Fragment; c++ {
		if v.Has(c) != u.Has(c) || v.Get(c) != u.Get(c) {
			t.Fatalf("%q: re-parse differs on %v", s, c)
		}
	}
	if v.HostType() != u.HostType() || v.RegistryBased() != u.RegistryBased() {
		t.Fatalf("%q: re-parse differs on the host type", s)
	}
}

func FuzzParse2396(f *testing.F) {
	for _, s := range seeds2396 {
		f.Add(s)
	}
	f.Fuzz(check2396)
}

func TestSeeds2396(t *testing.T) {
	for _, s := range seeds2396 {
		check2396(t, s)
	}
}

func check2396Resolve(t *testing.T, base, ref string) {
	b, err := uriscan.RFC2396.ParseString(base)
	if err != nil {
		return
	}
	r, err := uriscan.RFC2396.ParseString(ref)
	if err != nil {
		return
	}
	out, err := uriscan.ResolveRFC2396([]byte("x"), &b, &r)
	switch {
	case !b.IsAbsolute():
		if !errors.Is(err, uriscan.ErrBaseNotAbsolute) || string(out) != "x" {
			t.Fatalf("%q + %q: relative base gave %q, %v", base, ref, out, err)
		}
		return
	case errors.Is(err, uriscan.ErrBaseOpaque):
		if b.HasAuthority() || strings.HasPrefix(b.Path(), "/") || r.IsAbsolute() || string(out) != "x" {
			t.Fatalf("%q + %q: ErrBaseOpaque for a hierarchical base or an absolute reference (%q)", base, ref, out)
		}
		return
	case err != nil:
		t.Fatalf("%q + %q: %v", base, ref, err)
	}
	if !strings.HasPrefix(string(out), "x") || len(out)-1 > len(base)+len(ref)+1 {
		t.Fatalf("%q + %q: %q", base, ref, out)
	}
	got := string(out[1:])
	if r.IsAbsolute() && got != ref {
		t.Fatalf("%q + %q: an absolute reference resolved to %q", base, ref, got)
	}
	u, err := uriscan.RFC2396.ParseString(got)
	if err != nil {
		t.Fatalf("%q + %q = %q, which does not parse: %v", base, ref, got, err)
	}
	if !u.IsAbsolute() || r.Has(uriscan.Fragment) != u.Has(uriscan.Fragment) || u.Fragment() != r.Fragment() {
		t.Fatalf("%q + %q = %q: scheme or fragment lost", base, ref, got)
	}
	// A merged path that begins with "//" without an authority gets "/."
	// in front (uriscan.AppendPath's rule): the target reads back with an
	// authority exactly when it was built with one.
	if built := r.HasAuthority() || !r.Has(uriscan.Scheme) && b.HasAuthority(); u.HasAuthority() != built {
		t.Fatalf("%q + %q = %q reads back with authority %v, built with %v", base, ref, got, u.HasAuthority(), built)
	}
}

func FuzzResolve2396(f *testing.F) {
	bases := []string{"http://a/b/c/d;p?q", "http://a", "s:/a/b", "mailto:a@b", "//h/p", "file:///", "http://u@h_1:80/x/"}
	for i, s := range seeds2396 {
		f.Add(bases[i%len(bases)], s)
	}
	f.Fuzz(check2396Resolve)
}

func TestSeeds2396Resolve(t *testing.T) {
	for _, b := range []string{"http://a/b/c/d;p?q", "http://a", "s:/a/b", "mailto:a@b"} {
		for _, s := range seeds2396 {
			check2396Resolve(t, b, s)
		}
	}
}
