package normalize

import (
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
)

func TestCrawler(t *testing.T) {
	cases := []struct {
		in   string
		h    Heuristics
		want string
	}{
		{"http://www.Example.com:80/a//b/index.html?b=2&utm_source=x&a=1&a=0&JSESSIONID=9#top", 0, "http://example.com/a/b/?a=1&a=0&b=2"},
		{"http://h/?", DropEmptyQuery, "http://h/"},
		{"http://h/?utm_medium=m", StripParams | DropEmptyQuery, "http://h/"},
		{"http://h/?utm_medium=m", StripParams, "http://h/?"},
		{"http://h/p#f", DropFragment, "http://h/p"},
		{"http://h/p#f", SortQuery, "http://h/p#f"},
		{"http://www./", StripWWW, "http://www./"},
		{"http://www.www.0/", StripWWW, "http://0/"},
		{"http://www.www./", StripWWW, "http://www./"},
		{"http://u@www.h.com:8080//x", StripWWW | RemoveDuplicateSlashes, "http://u@h.com:8080/x"},
		{"http://h/a/Default.ASPX", DropIndexPages, "http://h/a/"},
		{"http://h/index.html.bak", DropIndexPages, "http://h/index.html.bak"},
		{"http://[::1]/x?z=1&y=2", SortQuery, "http://[::1]/x?y=2&z=1"},
		{"mailto:a@b?subject=x&body=y", SortQuery, "mailto:a@b?body=y&subject=x"},
		{"/rel//path?q=1", RemoveDuplicateSlashes, "/rel/path?q=1"},
		{"http://B%C3%BCcher.example/", IDNA, "http://xn--bcher-kva.example/"},
		{"http://u@www.B%C3%9Ccher.example:8080/x", IDNA | StripWWW, "http://u@xn--bcher-kva.example:8080/x"},
		{"http://%E2%98%83.net/", 0, "http://xn--n3h.net/"},
		{"http://B%C3%BCcher.example/", StripWWW, "http://b%C3%BCcher.example/"},
		{"http://h%FF.example/", IDNA, "http://h%FF.example/"},               // not UTF-8: kept
		{"http://a%E2%80%AEb.example/", IDNA, "http://a%E2%80%AEb.example/"}, // U+202E, disallowed by UTS #46: kept
		{"http://xn--bcher-kva.example/", IDNA, "http://xn--bcher-kva.example/"},
		{"http://[::1]/", IDNA, "http://[::1]/"},
	}
	for _, c := range cases {
		n := Normalizer{Heuristics: c.h}
		u, err := uriscan.ParseString(c.in)
		if err != nil {
			t.Fatal(err)
		}
		got := string(n.Append(nil, &u, Crawler))
		if got != c.want {
			t.Errorf("%#x %q = %q, want %q", c.h, c.in, got, c.want)
		}
		checkStable(t, &n, got, Crawler)
	}
	n := Normalizer{Heuristics: StripParams, StripParams: []string{"ref", "x-*"}}
	u, _ := uriscan.ParseString("http://h/?ref=1&X-Trace=2&keep=3&utm_source=4")
	if got := string(n.Append(nil, &u, Crawler)); got != "http://h/?keep=3&utm_source=4" {
		t.Errorf("custom StripParams: %q", got)
	}
}

func TestCrawlerZeroAllocs(t *testing.T) {
	for _, in := range []string{
		"http://www.Example.com:80/a//b/index.html?b=2&utm_source=x&a=1#top",
		"file://benchmark/async_hooks/async-local-storage-getstore-nested-run.js", // a last segment over 32 bytes
	} {
		u, _ := uriscan.ParseString(in)
		var n Normalizer
		buf := n.Append(nil, &u, Crawler)
		if a := testing.AllocsPerRun(100, func() { buf = n.Append(buf[:0], &u, Crawler) }); a != 0 {
			t.Errorf("%q: %v allocations per crawler Append", in, a)
		}
	}
}

// TestMatchGlob: StripParams names match case-insensitively, with "*"
// anywhere standing for any run of bytes.
func TestMatchGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"utm_*", "utm_source", true}, {"utm_*", "UTM_", true}, {"utm_*", "xutm_a", false},
		{"*_id", "session_id", true}, {"*_id", "session_idx", false}, {"*sess*", "PHPSESSID", true},
		{"sid", "SID", true}, {"sid", "sids", false}, {"a*b*c", "aXbYc", true}, {"a*b*c", "aXcYb", false},
		{"*", "", true}, {"", "", true}, {"", "a", false},
	} {
		if got := matchGlob(c.pattern, []byte(c.name)); got != c.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// TestHeuristicNames: every heuristic has a name String gives and
// ParseHeuristic reads back, and the names of a set are in order.
func TestHeuristicNames(t *testing.T) {
	seenNames := map[string]bool{}
	for h := Heuristics(1); h&AllHeuristics != 0; h <<= 1 {
		name := h.String()
		if name == "" || strings.Contains(name, ",") || seenNames[name] {
			t.Fatalf("heuristic %#x: name %q", uint32(h), name)
		}
		seenNames[name] = true
		if g, ok := ParseHeuristic(name); !ok || g != h {
			t.Fatalf("ParseHeuristic(%q) = %#x, %v, want %#x", name, uint32(g), ok, uint32(h))
		}
	}
	if got := (StripWWW | DropFragment).String(); got != "drop-fragment,strip-www" {
		t.Errorf("(StripWWW|DropFragment).String() = %q", got)
	}
	if _, ok := ParseHeuristic("www"); ok {
		t.Error("ParseHeuristic(\"www\") succeeded")
	}
}
