package uriscan

import (
	"errors"
	"strings"
	"testing"
)

const rfcBase = "http://a/b/c/d;p?q" // RFC 3986 §5.4

type resolveCase struct {
	base, ref, want string
	flags           ResolveFlags
}

// §5.4.1 Normal Examples.
var rfcNormal = []resolveCase{
	{rfcBase, "g:h", "g:h", 0},
	{rfcBase, "g", "http://a/b/c/g", 0},
	{rfcBase, "./g", "http://a/b/c/g", 0},
	{rfcBase, "g/", "http://a/b/c/g/", 0},
	{rfcBase, "/g", "http://a/g", 0},
	{rfcBase, "//g", "http://g", 0},
	{rfcBase, "?y", "http://a/b/c/d;p?y", 0},
	{rfcBase, "g?y", "http://a/b/c/g?y", 0},
	{rfcBase, "#s", "http://a/b/c/d;p?q#s", 0},
	{rfcBase, "g#s", "http://a/b/c/g#s", 0},
	{rfcBase, "g?y#s", "http://a/b/c/g?y#s", 0},
	{rfcBase, ";x", "http://a/b/c/;x", 0},
	{rfcBase, "g;x", "http://a/b/c/g;x", 0},
	{rfcBase, "g;x?y#s", "http://a/b/c/g;x?y#s", 0},
	{rfcBase, "", "http://a/b/c/d;p?q", 0},
	{rfcBase, ".", "http://a/b/c/", 0},
	{rfcBase, "./", "http://a/b/c/", 0},
	{rfcBase, "..", "http://a/b/", 0},
	{rfcBase, "../", "http://a/b/", 0},
	{rfcBase, "../g", "http://a/b/g", 0},
	{rfcBase, "../..", "http://a/", 0},
	{rfcBase, "../../", "http://a/", 0},
	{rfcBase, "../../g", "http://a/g", 0},
}

// §5.4.2 Abnormal Examples.
var rfcAbnormal = []resolveCase{
	{rfcBase, "../../../g", "http://a/g", 0},
	{rfcBase, "../../../../g", "http://a/g", 0},

	{rfcBase, "/./g", "http://a/g", 0},
	{rfcBase, "/../g", "http://a/g", 0},
	{rfcBase, "g.", "http://a/b/c/g.", 0},
	{rfcBase, ".g", "http://a/b/c/.g", 0},
	{rfcBase, "g..", "http://a/b/c/g..", 0},
	{rfcBase, "..g", "http://a/b/c/..g", 0},

	{rfcBase, "./../g", "http://a/b/g", 0},
	{rfcBase, "./g/.", "http://a/b/c/g/", 0},
	{rfcBase, "g/./h", "http://a/b/c/g/h", 0},
	{rfcBase, "g/../h", "http://a/b/c/h", 0},
	{rfcBase, "g;x=1/./y", "http://a/b/c/g;x=1/y", 0},
	{rfcBase, "g;x=1/../y", "http://a/b/c/y", 0},

	{rfcBase, "g?y/./x", "http://a/b/c/g?y/./x", 0},
	{rfcBase, "g?y/../x", "http://a/b/c/g?y/../x", 0},
	{rfcBase, "g#s/./x", "http://a/b/c/g#s/./x", 0},
	{rfcBase, "g#s/../x", "http://a/b/c/g#s/../x", 0},

	{rfcBase, "http:g", "http:g", 0},                      // for strict parsers
	{rfcBase, "http:g", "http://a/b/c/g", NonStrict},      // for backward compatibility
	{rfcBase, "HTTP:g", "http://a/b/c/g", NonStrict},      // schemes are case-insensitive (§3.1)
	{rfcBase, "https:g", "https:g", NonStrict},            // a different scheme stays
	{rfcBase, "http://x/./y", "http://x/y", NonStrict},    // authority taken from R
	{rfcBase, "http:/./g/../h", "http://a/h", NonStrict},  // absolute path against base authority
	{rfcBase, "http:?z", "http://a/b/c/d;p?z", NonStrict}, // empty path: base path, R query
}

// Cases beyond §5.4.
var resolveExtra = []resolveCase{
	// Defined-but-empty query and fragment are kept (§5.3).
	{rfcBase, "?", "http://a/b/c/d;p?", 0},
	{rfcBase, "#", "http://a/b/c/d;p?q#", 0},
	{rfcBase, "?#", "http://a/b/c/d;p?#", 0},
	{rfcBase, "g?", "http://a/b/c/g?", 0},
	{rfcBase, "g#", "http://a/b/c/g#", 0},
	{rfcBase, "g?#", "http://a/b/c/g?#", 0},
	{"http://a/b?", "", "http://a/b?", 0},
	{"http://a/b?", "#f", "http://a/b?#f", 0},
	{"http://a/b?q", "c", "http://a/c", 0},

	// Empty authority: "//" is still written.
	{"file:///a/b", "c", "file:///a/c", 0},
	{"file:///a/b", "", "file:///a/b", 0},
	{"file:///a/b", "?q", "file:///a/b?q", 0},
	{"file:///a/b", "#f", "file:///a/b#f", 0},
	{"file:///a/b", "../../../x", "file:///x", 0},
	{"file:///a/b", "/x/./y", "file:///x/y", 0},
	{"file:///a/b", "//h/x", "file://h/x", 0},
	{"file:///a/b", "///y", "file:///y", 0},
	{"file:///a/b", ".", "file:///a/", 0},
	{"file:///a/b", "..", "file:///", 0},
	{"file://", "x", "file:///x", 0},
	{"file://", "", "file://", 0},
	{rfcBase, "//", "http://", 0},
	{rfcBase, "//?", "http://?", 0},
	{rfcBase, "s://", "s://", 0},

	// Base with an authority and an empty path: merge gives "/" + R.path.
	{"http://a", "g", "http://a/g", 0},
	{"http://a", ".", "http://a/", 0},
	{"http://a", "..", "http://a/", 0},
	{"http://a", "", "http://a", 0},
	{"http://a?q", "", "http://a?q", 0},
	{"http://a?q", "#f", "http://a?q#f", 0},
	{"http://a?q", "?", "http://a?", 0},

	// Userinfo, port, IP literals are copied as written.
	{"http://u:p@a:8080/b/c", "d", "http://u:p@a:8080/b/d", 0},
	{"http://u@a:/b/c", "?x", "http://u@a:/b/c?x", 0},
	{"http://[::1]:80/a/b", "c", "http://[::1]:80/a/c", 0},
	{"http://[v7.x]/a", "//[::ffff:1.2.3.4]/./z", "http://[::ffff:1.2.3.4]/z", 0},
	{"http://a/b/c", "//u@h:1", "http://u@h:1", 0},

	// Base without authority.
	{"foo:a/b", "c", "foo:a/c", 0},
	{"foo:a/b", "../c", "foo:/c", 0}, // "a/../c" -> "/c", literally per §5.2.4
	{"foo:a/b", "./c:d", "foo:a/c:d", 0},
	{"foo:a", "b", "foo:b", 0},
	{"foo:a", "", "foo:a", 0},
	{"foo:", "b", "foo:b", 0},
	{"foo:", "?q", "foo:?q", 0},
	{"foo:../x", "g", "foo:g", 0},
	{"foo:./x/y", "g", "foo:x/g", 0},
	{"foo:/a/b", "../../../g", "foo:/g", 0},
	{"mailto:x@y", "#f", "mailto:x@y#f", 0},
	{"urn:isbn:0451450523", "?q", "urn:isbn:0451450523?q", 0},

	// The base's fragment is ignored (§5.1).
	{"http://a/b#f", "", "http://a/b", 0},
	{"http://a/b#f", "#g", "http://a/b#g", 0},
	{"http://a/b?q#f", "c", "http://a/c", 0},

	// §5.2.2: an empty R.path keeps Base.path as is, without
	// remove_dot_segments.
	{"http://a/b/../c/./d", "", "http://a/b/../c/./d", 0},
	{"http://a/b/../c/./d", "?y", "http://a/b/../c/./d?y", 0},
	// ...but any non-empty path goes through merge and remove_dot_segments.
	{"http://a/b/../c/./d", "e", "http://a/c/e", 0},

	// A reference with a scheme has its own dot segments removed.
	{rfcBase, "https://x/./y/../z?a#b", "https://x/z?a#b", 0},
	{rfcBase, "g:./h/..", "g:/", 0},
	{rfcBase, "//g/./h/../i?j", "http://g/i?j", 0},

	// Nothing is decoded: %2E is not a dot.
	{rfcBase, "%2E%2E/g", "http://a/b/c/%2E%2E/g", 0},
	{rfcBase, "./%2e/../g", "http://a/b/c/g", 0},

	// Empty segments are kept.
	{rfcBase, "g//h", "http://a/b/c/g//h", 0},
	{rfcBase, "g//../h", "http://a/b/c/g/h", 0},
	{"http://a/b//c", "d", "http://a/b//d", 0},
	{"http://a/b//c", "../d", "http://a/b/d", 0},

	// A path that begins with "//" in a target without authority gets
	// "/." in front (AppendPath's rule), not "s://b", which reparses
	// with the authority "b".
	{"s:/a", "..//b", "s:/.//b", 0},
}

func mustParseResolve(t *testing.T, s string) URI {
	t.Helper()
	u, err := ParseString(s)
	if err != nil {
		t.Fatalf("ParseString(%q): %v", s, err)
	}
	return u
}

func runResolveCases(t *testing.T, cases []resolveCase) {
	t.Helper()
	for _, c := range cases {
		base := mustParseResolve(t, c.base)
		ref := mustParseResolve(t, c.ref)
		got, err := Resolve(nil, &base, &ref, c.flags)
		if err != nil {
			t.Errorf("Resolve(%q, %q, %d): %v", c.base, c.ref, c.flags, err)
			continue
		}
		if string(got) != c.want {
			t.Errorf("Resolve(%q, %q, %d) = %q, want %q", c.base, c.ref, c.flags, got, c.want)
		}
		// Appending after existing bytes (with "/" in them, which popping
		// a segment must not reach) gives the same result.
		const prefix = "x/y/"
		got2, _ := Resolve([]byte(prefix), &base, &ref, c.flags)
		if string(got2) != prefix+c.want {
			t.Errorf("Resolve(%q, %q, %q, %d) = %q, want %q", prefix, c.base, c.ref, c.flags, got2, prefix+c.want)
		}
		// The bound documented on Resolve holds.
		if n := len(c.base) + len(c.ref) + 1; len(got) > n {
			t.Errorf("Resolve(%q, %q): %d bytes, more than %d", c.base, c.ref, len(got), n)
		}
		// Parsing the base from []byte gives the same result.
		bb := []byte(c.base)
		base2, err := Parse(bb)
		if err != nil {
			t.Fatalf("Parse(%q): %v", c.base, err)
		}
		if got3, _ := Resolve(nil, &base2, &ref, c.flags); string(got3) != c.want {
			t.Errorf("Resolve(Parse(%q), %q) = %q, want %q", c.base, c.ref, got3, c.want)
		}
		if c.flags == 0 {
			s, err := ResolveString(c.base, c.ref)
			if err != nil || s != c.want {
				t.Errorf("ResolveString(%q, %q) = %q, %v, want %q", c.base, c.ref, s, err, c.want)
			}
		}
	}
}

func TestResolveRFCNormal(t *testing.T)   { runResolveCases(t, rfcNormal) }
func TestResolveRFCAbnormal(t *testing.T) { runResolveCases(t, rfcAbnormal) }
func TestResolveExtra(t *testing.T)       { runResolveCases(t, resolveExtra) }

// Resolution against the RFC base with no flags and with NonStrict differs
// only for "http:g"-like references.
func TestResolveNonStrictSameOtherwise(t *testing.T) {
	base := mustParseResolve(t, rfcBase)
	for _, c := range append(append([]resolveCase{}, rfcNormal...), rfcAbnormal...) {
		if c.base != rfcBase || c.flags != 0 || strings.HasPrefix(c.ref, "http:") {
			continue
		}
		ref := mustParseResolve(t, c.ref)
		got, err := Resolve(nil, &base, &ref, NonStrict)
		if err != nil || string(got) != c.want {
			t.Errorf("Resolve(%q, %q, NonStrict) = %q, %v, want %q", rfcBase, c.ref, got, err, c.want)
		}
	}
}

// Resolving a target against any base gives the target back, for the
// targets of all table cases: they are absolute URIs, and those whose path
// has no dot segments are fixed points of Resolve.
func TestResolveTargetIsFixedPoint(t *testing.T) {
	base := mustParseResolve(t, rfcBase)
	all := append(append(append([]resolveCase{}, rfcNormal...), rfcAbnormal...), resolveExtra...)
	for _, c := range all {
		target := mustParseResolve(t, c.want)
		if !target.IsAbsolute() {
			t.Errorf("target %q of %q against %q has no scheme", c.want, c.ref, c.base)
			continue
		}
		if p := target.Path(); string(AppendPath(nil, p, target.HasAuthority())) != p {
			continue // base path kept as is for an empty reference
		}
		got, err := Resolve(nil, &base, &target, 0)
		if err != nil || string(got) != c.want {
			t.Errorf("Resolve(%q, %q) = %q, %v, want it unchanged", rfcBase, c.want, got, err)
		}
	}
}

func TestResolveBaseNotAbsolute(t *testing.T) {
	ref := mustParseResolve(t, "g")
	for _, b := range []string{"", "/a/b", "//a/b", "a/b", "?q", "#f", "./a:b"} {
		base := mustParseResolve(t, b)
		dst := []byte("keep")
		got, err := Resolve(dst, &base, &ref, 0)
		if !errors.Is(err, ErrBaseNotAbsolute) {
			t.Errorf("Resolve(%q, \"g\"): err = %v, want ErrBaseNotAbsolute", b, err)
		}
		if string(got) != "keep" {
			t.Errorf("Resolve(%q, \"g\"): dst = %q, want it unchanged", b, got)
		}
		if _, err := ResolveString(b, "g"); !errors.Is(err, ErrBaseNotAbsolute) {
			t.Errorf("ResolveString(%q, \"g\"): err = %v, want ErrBaseNotAbsolute", b, err)
		}
	}
	// The zero URI is the empty relative reference: not a base...
	var zero URI
	if _, err := Resolve(nil, &zero, &ref, 0); !errors.Is(err, ErrBaseNotAbsolute) {
		t.Errorf("Resolve(zero URI, \"g\"): err = %v, want ErrBaseNotAbsolute", err)
	}
	// ...but a fine reference.
	base := mustParseResolve(t, "http://a/b?q#f")
	if got, err := Resolve(nil, &base, &zero, 0); err != nil || string(got) != "http://a/b?q" {
		t.Errorf("Resolve(%q, zero URI) = %q, %v, want %q", "http://a/b?q#f", got, err, "http://a/b?q")
	}
}

func TestResolveStringParseErrors(t *testing.T) {
	for _, c := range []struct{ base, ref string }{
		{"http://a b/", "g"},
		{"http://a/", "g h"},
		{"http://[::1/", "g"},
		{"http://a/", "%zz"},
		{"1http:/", "g"},
	} {
		s, err := ResolveString(c.base, c.ref)
		var perr *Error
		if !errors.As(err, &perr) {
			t.Errorf("ResolveString(%q, %q) = %q, %v, want a *Error", c.base, c.ref, s, err)
		}
	}
}

var dotCases = []struct{ in, want string }{
	// The two worked examples of §5.2.4.
	{"/a/b/c/./../../g", "/a/g"},
	{"mid/content=5/../6", "mid/6"},

	{"", ""},
	{".", ""},
	{"..", ""},
	{"./", ""},
	{"../", ""},
	{"/", "/"},
	{"/.", "/"},
	{"/..", "/"},
	{"/./", "/"},
	{"/../", "/"},
	{"/../..", "/"},
	{"/../../a", "/a"},
	{"//", "//"},
	{"/a/b/..", "/a/"},
	{"/a/b/../", "/a/"},
	{"/a/b/.", "/a/b/"},
	{"/a/./b/", "/a/b/"},
	{"/a/b/../../..", "/"},
	{"/a//../b", "/a/b"},
	{"//a/../b", "//b"},
	{"/a/b/c/../../../../d", "/d"},

	// Rootless paths.
	{"a", "a"},
	{"a/", "a/"},
	{"a/b/../c", "a/c"},
	{"a/b/./c", "a/b/c"},
	{"a/.", "a/"},
	{"a/..", "/"}, // E "a", C "/.." -> "/" and pop "a", E "/"
	{"a/../b", "/b"},
	{"a/b/c/../../../..", "/"},
	{"../a", "a"},
	{"../../a/b", "a/b"},
	{"./a:b", "a:b"},
	{"./../.././a", "a"},
	{".././", ""},
	{"./.", ""},
	{"./..", ""},

	// Not complete dot segments.
	{"...", "..."},
	{".../a", ".../a"},
	{"/...", "/..."},
	{"/.a", "/.a"},
	{"/a.", "/a."},
	{"/..a/", "/..a/"},
	{"/a../b", "/a../b"},
	{"g..", "g.."},
	{"..g", "..g"},
	{".g/.", ".g/"},
	{"/%2e%2e/a", "/%2e%2e/a"},
}

func TestRemoveDotSegments(t *testing.T) {
	for _, c := range dotCases {
		if got := RemoveDotSegments(nil, c.in); string(got) != c.want {
			t.Errorf("RemoveDotSegments(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := refRemoveDotSegments(c.in); got != c.want {
			t.Errorf("refRemoveDotSegments(%q) = %q, want %q (test table or reference is wrong)", c.in, got, c.want)
		}
		// Appending to a non-empty dst: popping must stop at the start of
		// the path even when dst already holds "/".
		const prefix = "p/q/"
		if got := RemoveDotSegments([]byte(prefix), c.in); string(got) != prefix+c.want {
			t.Errorf("RemoveDotSegments(%q, %q) = %q, want %q", prefix, c.in, got, prefix+c.want)
		}
	}
}

// refRemoveDotSegments is §5.2.4 transcribed with two strings, for
// comparison.
func refRemoveDotSegments(in string) string {
	out := ""
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = "/" + in[3:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"), in == "/..":
			in = "/" + in[min(len(in), 4):]
			if i := strings.LastIndexByte(out, '/'); i >= 0 {
				out = out[:i]
			} else {
				out = ""
			}
		case in == "." || in == "..":
			in = ""
		default:
			n := len(in)
			if i := strings.IndexByte(in[1:], '/'); i >= 0 {
				n = i + 1
			}
			out += in[:n]
			in = in[n:]
		}
	}
	return out
}

// Every string over {'/', '.', 'a'} up to length 8, split at every point
// into the two parts of the input buffer as Resolve feeds it, gives what
// the two-string transcription of §5.2.4 gives.
func TestRemoveDotSegmentsExhaustive(t *testing.T) {
	const alphabet = "/.a"
	buf := make([]byte, 0, 8)
	var out []byte
	var walk func()
	walk = func() {
		s := string(buf)
		want := refRemoveDotSegments(s)
		for i := 0; i <= len(s); i++ {
			out = removeDotSegments(out[:0], s[:i], s[i:])
			if string(out) != want {
				t.Fatalf("removeDotSegments(%q, %q) = %q, want %q", s[:i], s[i:], out, want)
			}
		}
		if len(buf) == cap(buf) {
			return
		}
		for j := 0; j < len(alphabet); j++ {
			buf = append(buf, alphabet[j])
			walk()
			buf = buf[:len(buf)-1]
		}
	}
	walk()
}

// noAuthorityCases are resolutions whose target has no authority and whose
// path after remove_dot_segments begins with "//": Resolve writes "/."
// in front of it (§3: "When authority is not present, the path cannot
// begin with two slash characters"). path is the target's path.
var noAuthorityCases = []struct {
	base, ref string
	flags     ResolveFlags
	want      string
	path      string
}{
	{"f:/a", ".//g", 0, "f:/.//g", "/.//g"},
	{"s:/a", "..//b", 0, "s:/.//b", "/.//b"},
	{"f:/a/b", "../..//g", 0, "f:/.//g", "/.//g"},
	{"f:/a", "/.//g", 0, "f:/.//g", "/.//g"},          // absolute-path reference
	{"f:/a", "/..//g", 0, "f:/.//g", "/.//g"},         // ... with ".."
	{"x:/a", "f:/.//g", 0, "f:/.//g", "/.//g"},        // a reference with a scheme
	{"x:/a", "f:a/..//g", 0, "f:/.//g", "/.//g"},      // ... and a rootless path
	{"f:a/b", "..//g", 0, "f:/.//g", "/.//g"},         // a rootless base
	{"f:/a", ".//g?q#h", 0, "f:/.//g?q#h", "/.//g"},   // query and fragment follow
	{"f:/a", ".//", 0, "f:/.//", "/.//"},              // nothing after the "//"
	{"f:/a", "f:.//g", NonStrict, "f:/.//g", "/.//g"}, // non-strict: relative
	{"f:/a", ".///g", 0, "f:/.///g", "/.///g"},        // more slashes
	{"f:a", ".//g", 0, "f:/g", "/g"},                  // no "//" left: no "/."
	{"http://h/a", ".//g", 0, "http://h//g", "//g"},   // an authority: no "/."
	{"f:/a", "./g//h", 0, "f:/g//h", "/g//h"},         // "//" not at the start
	{"f:/.//a", "?y", 0, "f:/.//a?y", "/.//a"},        // base path copied as is
	{"f:/.//a/b", "c", 0, "f:/.//a/c", "/.//a/c"},     // merge of a guarded base
	{"f:/.//a/b", "..", 0, "f:/.//", "/.//"},          // ... back to the "//"
	{"f:/.//a/b", "../..", 0, "f:/", "/"},             // ... and past it
}

// TestResolveNoAuthorityDoubleSlash: a target without an authority never
// has a path beginning with "//", so it reads back with the components it
// was built with (no authority, the path written), Resolve and
// ResolveString agree, the target resolved against any base is itself,
// and the bound on Resolve's output holds.
func TestResolveNoAuthorityDoubleSlash(t *testing.T) {
	for _, c := range noAuthorityCases {
		base := mustParseResolve(t, c.base)
		ref := mustParseResolve(t, c.ref)
		got, err := Resolve(nil, &base, &ref, c.flags)
		if err != nil || string(got) != c.want {
			t.Errorf("Resolve(%q, %q, %d) = %q, %v, want %q", c.base, c.ref, c.flags, got, err, c.want)
			continue
		}
		if c.flags == 0 {
			if s, err := ResolveString(c.base, c.ref); err != nil || s != c.want {
				t.Errorf("ResolveString(%q, %q) = %q, %v, want %q", c.base, c.ref, s, err, c.want)
			}
		}
		if n := len(c.base) + len(c.ref) + 1; len(got) > n {
			t.Errorf("Resolve(%q, %q): %d bytes, more than %d", c.base, c.ref, len(got), n)
		}
		target := mustParseResolve(t, string(got))
		if target.HasAuthority() != base.HasAuthority() && !ref.HasAuthority() || target.Path() != c.path {
			t.Errorf("Resolve(%q, %q) = %q reads back with authority %v %q, path %q; want path %q", c.base, c.ref, got, target.HasAuthority(), target.Authority(), target.Path(), c.path)
		}
		if again, err := Resolve(nil, &base, &target, 0); err != nil || string(again) != c.want {
			t.Errorf("Resolve(%q, %q) = %q, %v: the target is not a fixed point", c.base, c.want, again, err)
		}
	}
}

// TestAppendPath: AppendPath is RemoveDotSegments, with "/." in front of
// a result beginning with "//" when there is no authority; its output is
// a fixed point, and it stays within the documented bound.
func TestAppendPath(t *testing.T) {
	for _, c := range []struct {
		in           string
		auth, noAuth string
	}{
		{"/.//x", "//x", "/.//x"},
		{"/..//x", "//x", "/.//x"},
		{".//x", "/x", "/x"},
		{"a/..//x", "//x", "/.//x"},
		{"//x", "//x", "/.//x"}, // the one input that grows
		{"/a//x", "/a//x", "/a//x"},
		{"a/../b", "/b", "/b"},
		{"./a", "a", "a"},
		{"..", "", ""},
		{"/.//", "//", "/.//"},
		{"", "", ""},
	} {
		for _, auth := range []bool{true, false} {
			want := c.noAuth
			if auth {
				want = c.auth
			}
			got := string(AppendPath([]byte("p/q"), c.in, auth))
			if got != "p/q"+want {
				t.Errorf("AppendPath(%q, %v) = %q, want %q", c.in, auth, got[3:], want)
				continue
			}
			if again := string(AppendPath(nil, want, auth)); again != want {
				t.Errorf("AppendPath(%q, %v) = %q, not a fixed point", want, auth, again)
			}
			if len(want) > len(c.in) && c.in != "//x" {
				t.Errorf("AppendPath(%q, %v) = %q: longer than its input", c.in, auth, want)
			}
		}
	}
	dst := make([]byte, 0, 16)
	if n := testing.AllocsPerRun(100, func() { dst = AppendPath(dst[:0], "/a/..//x", false) }); n != 0 {
		t.Errorf("AppendPath into a pre-sized dst: %v allocs", n)
	}
}

func TestResolveZeroAllocs(t *testing.T) {
	base := mustParseResolve(t, "http://user@example.com:8080/a/b/c/d;p?q#frag")
	refs := []string{
		"g:h", "g", "../../../g/./h/../i?y#s", "", "?y", "#s", "//x/./y",
		"/./g", "./", "..", "http:g",
	}
	dst := make([]byte, 0, 256)
	// The "/." guard moves bytes within dst, allocating nothing either.
	noAuth := mustParseResolve(t, "f:/a/b")
	for _, r := range []string{"../..//g?q", ".//g", "/..//g"} {
		ref := mustParseResolve(t, r)
		if n := testing.AllocsPerRun(100, func() { dst, _ = Resolve(dst[:0], &noAuth, &ref, 0) }); n != 0 {
			t.Errorf("Resolve(%q, %q) with the \"/.\" guard: %v allocs", "f:/a/b", r, n)
		}
	}
	for _, r := range refs {
		ref := mustParseResolve(t, r)
		for _, flags := range []ResolveFlags{0, NonStrict} {
			var err error
			allocs := testing.AllocsPerRun(100, func() {
				dst, err = Resolve(dst[:0], &base, &ref, flags)
			})
			if err != nil {
				t.Fatal(err)
			}
			if allocs != 0 {
				t.Errorf("Resolve(%q, %d) into a pre-sized dst: %v allocs, want 0", r, flags, allocs)
			}
		}
	}
	for _, c := range dotCases {
		allocs := testing.AllocsPerRun(100, func() {
			dst = RemoveDotSegments(dst[:0], c.in)
		})
		if allocs != 0 {
			t.Errorf("RemoveDotSegments(%q) into a pre-sized dst: %v allocs, want 0", c.in, allocs)
		}
	}
}

func BenchmarkResolve(b *testing.B) {
	base, _ := ParseString("http://a/b/c/d;p?q")
	ref, _ := ParseString("../../g/./h/../i?y#s")
	dst := make([]byte, 0, 64)
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = Resolve(dst[:0], &base, &ref, 0)
	}
}
