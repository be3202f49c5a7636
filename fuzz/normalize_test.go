package fuzz

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
)

// FuzzNormalize checks, for every valid reference, that each level's
// normal form parses and is a fixed point (N(N(x)) == N(x)), that Scheme
// on top of Syntax equals Scheme, and, for the RFC levels, that x and N(x)
// resolve references to equivalent targets when x is absolute.
//
// One exception, inherent in RFC 3986 and documented in the README: when
// x's path ends in a ".." segment, §6.2.2.3 removes it with the segment
// before ("/a/b/.." is "/a/"), but §5.2.3's merge drops a base's last
// segment, whatever it is, before dot segments are removed, so a
// relative-path reference resolves differently against the two ("g" gives
// "/a/b/g" against x and "/a/g" against N(x)). No normal form can be both
// RFC-equivalent to x and resolve like it, and the normalizer keeps the
// RFC's; that pair is not checked.
//
// Rootless paths are checked like the others: with a scheme, the default
// normalizer removes their dot segments ("foo:a/../b" is "foo:/b", the
// target Resolve gives too), KeepRootlessDots keeps them, and a relative
// reference (no scheme) keeps them either way. Until issue 23 a target
// with a path "//..." and no authority was skipped (it read back with
// one); Resolve and the normalizer now both write "/." in front of it
// (uriscan.AppendPath), so no reference is skipped for that.
func FuzzNormalize(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add("HTTP://User@Example.COM:80/a/./b/../%7ec/%2E%2E/d?x=%2f#F")
	f.Add("foo:a/..//x")
	f.Add("foo:a/../b")
	f.Add("f:./a:b")
	f.Add("f:../%2E/x?q#f")
	f.Add("a/../../b")
	f.Add("http://a/b/%2E%2E/c/%2e/d")
	f.Add("http://[2001:DB8:0:0:1:0:0:1]:80/")
	f.Add("http://[0:0:0:0:0:ffff:192.0.2.1]/")
	var rfc normalize.Normalizer
	keep := normalize.Normalizer{KeepEncodedDots: true}
	keepRootless := normalize.Normalizer{KeepRootlessDots: true}
	refs := []string{"g", "../g", "./g/..", "?y", "#s", "", "..//g", "//h/p"}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := uriscan.ParseString(s)
		if err != nil {
			return
		}
		for _, tc := range []struct {
			n      *normalize.Normalizer
			levels []normalize.Level
		}{{&rfc, []normalize.Level{normalize.Syntax, normalize.Scheme, normalize.Crawler}}, {&keep, []normalize.Level{normalize.Syntax}}, {&keepRootless, []normalize.Level{normalize.Syntax, normalize.Scheme}}} {
			checkNormal(t, tc.n, &u, s, tc.levels, refs)
		}
		// RFC 5952 IPv6 text: another equivalence (the host's text
		// changes), so only: it parses, it is a fixed point, and it is
		// what net/netip writes.
		v6 := normalize.Normalizer{IPv6RFC5952: true}
		n1 := string(v6.Append(nil, &u, normalize.Scheme))
		v, err := uriscan.ParseString(n1)
		if err != nil {
			t.Fatalf("IPv6RFC5952(%q) = %q does not parse: %v", s, n1, err)
		}
		if n2 := string(v6.Append(nil, &v, normalize.Scheme)); n2 != n1 {
			t.Fatalf("IPv6RFC5952 not idempotent: %q -> %q -> %q", s, n1, n2)
		}
		if v.HostType() == uriscan.IPv6 {
			if a, err := netip.ParseAddr(strings.Trim(v.Host(), "[]")); err != nil || "["+a.String()+"]" != v.Host() {
				t.Fatalf("IPv6RFC5952(%q) host %q, net/netip: %v %v", s, v.Host(), a, err)
			}
		}
		n := &rfc
		sy := string(n.Append(nil, &u, normalize.Syntax))
		w, _ := uriscan.ParseString(sy)
		if a, b := string(n.Append(nil, &w, normalize.Scheme)), string(n.Append(nil, &u, normalize.Scheme)); a != b {
			t.Fatalf("Scheme(Syntax(%q)) = %q, Scheme = %q", s, a, b)
		}
	})
}

// checkNormal checks n's normal forms of u (from s) at levels: they parse,
// they are fixed points, and (at the RFC levels) they resolve references
// as u does, but for the exceptions FuzzNormalize lists.
func checkNormal(t *testing.T, n *normalize.Normalizer, u *uriscan.URI, s string, levels []normalize.Level, refs []string) {
	t.Helper()
	for _, level := range levels {
		n1 := string(n.Append(nil, u, level))
		v, err := uriscan.ParseString(n1)
		if err != nil {
			t.Fatalf("%v(%q) = %q does not parse: %v", level, s, n1, err)
		}
		if n2 := string(n.Append(nil, &v, level)); n2 != n1 {
			t.Fatalf("%v not idempotent: %q -> %q -> %q", level, s, n1, n2)
		}
		if !v.HasAuthority() && strings.HasPrefix(v.Path(), "//") {
			t.Fatalf("%v(%q) = %q: a path beginning with \"//\" and no authority", level, s, n1)
		}
		if level != normalize.Crawler && v.HasAuthority() != u.HasAuthority() {
			t.Fatalf("%v(%q) = %q reads back with authority %v", level, s, n1, v.HasAuthority())
		}
		if !n.KeepRootlessDots && level != normalize.Crawler && u.Has(uriscan.Scheme) && !n.KeepEncodedDots && hasDotSegmentText(v.Path()) && !strings.HasPrefix(v.Path(), "/.//") {
			t.Fatalf("%v(%q) = %q: a dot segment is left in the path", level, s, n1)
		}
		if !u.IsAbsolute() || level == normalize.Crawler { // heuristics are no equivalence
			continue
		}
		if !n.KeepEncodedDots && hasEncodedDotSegment(u.Path()) {
			continue // the RFC's normal form: decoded and removed (the trade-off)
		}
		for _, r := range refs {
			ref, _ := uriscan.ParseString(r)
			if endsInDotDot(u.Path()) && isRelativePath(&ref) {
				continue // the exception above
			}
			t1, err1 := uriscan.Resolve(nil, u, &ref, 0)
			t2, err2 := uriscan.Resolve(nil, &v, &ref, 0)
			if err1 != nil || err2 != nil {
				t.Fatalf("resolve: %v %v", err1, err2)
			}
			// The targets are compared in n's own normal form: with
			// KeepEncodedDots, "%2E" is an ordinary segment ("?y" against
			// "A:/0/%2E/.." keeps that path, which the default normalizer
			// reads as "/" and n as "/0/": found by the campaign).
			a, errA := n.String(string(t1), level)
			b, errB := n.String(string(t2), level)
			if errA != nil || errB != nil || a != b {
				t.Fatalf("%v (KeepEncodedDots %v, KeepRootlessDots %v): %q against %q gives %q (%q), against its normal form %q gives %q (%q)", level, n.KeepEncodedDots, n.KeepRootlessDots, r, s, t1, a, n1, t2, b)
			}
		}
	}
}

// hasEncodedDotSegment reports whether a segment of path is written with
// "%2E" and decodes to "." or "..".
func hasEncodedDotSegment(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if d := strings.ReplaceAll(strings.ReplaceAll(seg, "%2E", "."), "%2e", "."); d != seg && (d == "." || d == "..") {
			return true
		}
	}
	return false
}

// endsInDotDot reports whether path's last segment is "..": the dot
// segment itself, which reference resolution reads (not "%2E%2E", which
// it reads as an ordinary segment and the normalizer keeps encoded).
func endsInDotDot(path string) bool {
	return path == ".." || strings.HasSuffix(path, "/..")
}

// isRelativePath reports whether ref is a relative-path reference (RFC
// 3986 §4.2): no scheme, no authority, and a non-empty path not starting
// with "/", which §5.2.2 merges with the base's path.
func isRelativePath(ref *uriscan.URI) bool {
	p := ref.Path()
	return !ref.Has(uriscan.Scheme) && !ref.HasAuthority() && p != "" && p[0] != '/'
}

// FuzzRepair checks that Repair leaves a valid reference alone but for
// the A-label of a percent-encoded host, is idempotent, and that what it
// returns parses whenever the input's only faults are ones it repairs
// (checked on "http://h/" + input).
func FuzzRepair(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(" http://h\\a b/{x}%zz[1]#a#b ")
	f.Fuzz(func(t *testing.T, s string) {
		out, r := normalize.Repair(nil, []byte(s))
		if u, err := uriscan.ParseString(s); err == nil && (string(out) != s || r.Changed()) && !hostALabeled(&u, out, r) {
			t.Fatalf("valid %q repaired to %q (%+v)", s, out, r)
		}
		if again, r2 := normalize.Repair(nil, out); string(again) != string(out) || r2.Changed() {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
		path, _ := normalize.Repair(nil, []byte("http://h/"+s))
		if _, err := uriscan.Parse(path); err != nil {
			t.Fatalf("Repair(%q) = %q does not parse: %v", "http://h/"+s, path, err)
		}
	})
}

// hostALabeled reports whether out is the valid reference u with only its
// host changed, from a percent-encoded reg-name (which is valid: "//%C2%A1",
// found by the campaign) to the A-label a browser looks up, the one change
// Repair makes to a valid reference.
func hostALabeled(u *uriscan.URI, out []byte, r normalize.Repairs) bool {
	v, err := uriscan.Parse(out)
	if err != nil || r != (normalize.Repairs{IDNA: 1}) || !strings.Contains(u.Host(), "%") || v.Host() == u.Host() {
		return false
	}
	for c := uriscan.Scheme; c <= uriscan.Fragment; c++ {
		if c != uriscan.Host && (u.Has(c) != v.Has(c) || u.Get(c) != v.Get(c)) {
			return false
		}
	}
	return true
}

// hasDotSegmentText reports whether path has a "." or ".." segment as
// written (not "%2E").
func hasDotSegmentText(path string) bool {
	for _, seg := range strings.Split(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}
