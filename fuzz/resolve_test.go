package fuzz

import (
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
)

// FuzzResolve checks RFC 3986 §5.2 reference resolution on every pair of
// a valid absolute base and a valid reference:
//   - Resolve succeeds (strict and NonStrict), appends after dst's bytes,
//     and the target parses, with an authority exactly when it was built
//     with one: a path that begins with "//" without an authority gets
//     "/." in front (uriscan.AppendPath), so it never reads back as one
//     (before, "A:.///:A/" and "0" gave "A://:A/0", which does not
//     parse: found by the campaign, in testdata/fuzz);
//   - a target with an authority has no "." or ".." segment left in its
//     path (§5.2.4 ran), except where §5.2.2 copies the base path as it
//     is (a reference with an empty path and no scheme or authority); a
//     target without one has none either but the "/." in front of "//";
//   - resolving an absolute reference gives the reference back with
//     remove_dot_segments applied to its path (§5.2.2, first case), and
//     "/." in front when that path begins with "//" and the reference has
//     no authority;
//   - resolution is deterministic, and the target does not depend on the
//     base's fragment.
func FuzzResolve(f *testing.F) {
	base := "http://a/b/c/d;p?q"
	for _, r := range []string{
		"g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "g;x?y#s",
		"", ".", "./", "..", "../", "../g", "../..", "../../", "../../g", "../../../g", "../../../../g",
		"/./g", "/../g", "g.", ".g", "g..", "..g", "./../g", "./g/.", "g/./h", "g/../h", "g;x=1/./y",
		"g;x=1/../y", "g?y/./x", "g?y/../x", "g#s/./x", "g#s/../x", "http:g", "..//g", "s:/.//x",
		"s:a/..//x",
	} {
		f.Add(base, r)
	}
	f.Add("s:/a", "..//b")
	f.Add("s:/.//a/b", "..")
	f.Add("foo:a/b", "../../x")
	f.Add("file:///etc/passwd", "..%2F..%2Fx")
	f.Add("http://u@h:1/", "//v@w:2/./x/../y?z#f")
	f.Add("s:", "./x:y")
	f.Fuzz(func(t *testing.T, bs, rs string) {
		b, err := uriscan.ParseString(bs)
		if err != nil || !b.IsAbsolute() {
			return
		}
		r, err := uriscan.ParseString(rs)
		if err != nil {
			return
		}
		dst := []byte("prefix")
		out, err := uriscan.Resolve(dst, &b, &r, 0)
		if err != nil {
			t.Fatalf("Resolve(%q, %q): %v", bs, rs, err)
		}
		if string(out[:6]) != "prefix" {
			t.Fatalf("Resolve(%q, %q) overwrote dst: %q", bs, rs, out)
		}
		target := string(out[6:])
		again, _ := uriscan.Resolve(nil, &b, &r, 0)
		if string(again) != target {
			t.Fatalf("Resolve(%q, %q) not deterministic: %q then %q", bs, rs, target, again)
		}
		if _, err := uriscan.Resolve(nil, &b, &r, uriscan.NonStrict); err != nil {
			t.Fatalf("Resolve(%q, %q, NonStrict): %v", bs, rs, err)
		}
		// The authority the target was built with: the reference's or the
		// base's (§5.2.2).
		builtWithAuthority := r.HasAuthority() || !r.Has(uriscan.Scheme) && b.HasAuthority()
		tu, err := uriscan.ParseString(target)
		if err != nil {
			t.Fatalf("Resolve(%q, %q) = %q, which does not parse: %v", bs, rs, target, err)
		}
		if !tu.IsAbsolute() {
			t.Fatalf("Resolve(%q, %q) = %q has no scheme", bs, rs, target)
		}
		if tu.HasAuthority() != builtWithAuthority {
			t.Fatalf("Resolve(%q, %q) = %q reads back with authority %v, built with %v", bs, rs, target, tu.HasAuthority(), builtWithAuthority)
		}
		copiedBasePath := !r.Has(uriscan.Scheme) && !r.HasAuthority() && r.Path() == ""
		if !copiedBasePath {
			p := tu.Path()
			if !tu.HasAuthority() && strings.HasPrefix(p, "/.//") {
				p = p[2:] // the "/." that keeps "//" from reading as an authority
			}
			for _, seg := range strings.Split(p, "/") {
				if seg == "." || seg == ".." {
					t.Fatalf("Resolve(%q, %q) = %q: a dot segment is left in the path", bs, rs, target)
				}
			}
		}
		if r.IsAbsolute() {
			want := r.Scheme() + ":"
			if r.HasAuthority() {
				want += "//" + r.Authority()
			}
			path := string(uriscan.RemoveDotSegments(nil, r.Path()))
			if !r.HasAuthority() && strings.HasPrefix(path, "//") {
				path = "/." + path // §3: without an authority, no "//" at the start
			}
			want += path
			if r.Has(uriscan.Query) {
				want += "?" + r.Query()
			}
			if r.Has(uriscan.Fragment) {
				want += "#" + r.Fragment()
			}
			if target != want {
				t.Fatalf("Resolve(%q, %q) = %q, want the reference with its dot segments removed: %q", bs, rs, target, want)
			}
		}
		if !b.Has(uriscan.Fragment) {
			bf, err := uriscan.ParseString(bs + "#frag")
			if err == nil {
				if o, _ := uriscan.Resolve(nil, &bf, &r, 0); string(o) != target {
					t.Fatalf("Resolve(%q, %q) = %q, but %q with a fragment gives %q", bs, rs, target, bs, o)
				}
			}
		}
	})
}
