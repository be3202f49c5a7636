package fuzz

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// seeds covers every component, host type and error kind; the fuzzer
// mutates from here.
var seeds = []string{
	"", "a:b", "./a:b", "1a:b", ":", "//", "?", "#", "http://h?", "http://h:", "file:///etc",
	"foo://example.com:8042/over/there?name=ferret#nose", "urn:example:animal:ferret:nose",
	"http://u:p@[2001:db8::7]:80/a?b#c", "http://[v7.a:b]/", "http://[::ffff:1.2.3.4]/",
	"http://1.2.3.4/", "http://01.2.3.4/", "http://1.2.3.4.5/", "http://a b", "a%zz", "http://[::1",
	"http://[1:2:3:4:5:6:7:8:9]/", "http://h:8o/", "x[y", "#a#b", "http://a@b@c/", "mailto:Joe@Example.COM",
	"../../g;x?y#s", "http://%41%42/%7e?%2f#%23",
}

func FuzzParseVsOracle(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d := Diff(s); d != "" {
			t.Fatalf("%q: %s", s, d)
		}
	})
}

func TestSeedsAgree(t *testing.T) {
	for _, s := range seeds {
		if d := Diff(s); d != "" {
			t.Errorf("%q: %s", s, d)
		}
	}
}

// TestRandomAgree builds references from URI-shaped pieces, then breaks
// some of them, and checks the scanner agrees with the oracle on each.
func TestRandomAgree(t *testing.T) {
	pieces := []string{
		"http", "a", "A1+.-", "1", ":", "//", "/", "?", "#", "@", "[", "]", "%", "%4", "%41", "%zz",
		"::", "1.2.3.4", "255", "256", "01", ".", "..", "v1.x", "V", "ffff", "12345", "80", "-", "_", "~",
		"!", "$", "&", "'", "(", ")", "*", "+", ",", ";", "=", " ", "\"", "<", ">", "\\", "^", "`", "{", "|", "}",
		"\x00", "\x7f", "\xc3\xa9", "\n", "\r",
	}
	shapes := []string{
		"%s://%s@[%s]:%s/%s?%s#%s", "%s:%s%s", "//%s%s:%s/%s", "%s/%s?%s", "[%s:%s::%s]", "%s%s%s%s",
	}
	n := 200000
	if testing.Short() {
		n = 20000
	}
	rng := rand.New(rand.NewPCG(3, 4))
	fails := 0
	for i := 0; i < n; i++ {
		var b strings.Builder
		if rng.IntN(2) == 0 {
			shape := shapes[rng.IntN(len(shapes))]
			for _, part := range strings.Split(shape, "%s") {
				b.WriteString(part)
				for k := rng.IntN(3); k > 0; k-- {
					b.WriteString(pieces[rng.IntN(len(pieces))])
				}
			}
		} else {
			for k := rng.IntN(12); k > 0; k-- {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		s := b.String()
		if d := Diff(s); d != "" {
			t.Errorf("%q: %s", s, d)
			if fails++; fails > 20 {
				t.Fatal("too many disagreements")
			}
		}
	}
}

// TestSharedCorpusAgree runs every line of the shared URL lists through both.
func TestSharedCorpusAgree(t *testing.T) {
	files := shareddata.URLFiles()
	if len(files) == 0 {
		t.Skipf("shared URL lists absent: set %s", shareddata.Env)
	}
	lines, invalid := 0, 0
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			s := strings.TrimSuffix(sc.Text(), "\r")
			lines++
			if d := Diff(s); d != "" {
				t.Errorf("%s:%d %q: %s", filepath.Base(name), lines, s, d)
			}
			if _, err := parseForCount(s); err != nil {
				invalid++
			}
		}
	}
	t.Logf("%d lines, %d invalid, all agree with the oracle", lines, invalid)
}
