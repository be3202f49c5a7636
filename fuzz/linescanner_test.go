package fuzz

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
)

// describe renders what the scanner made of a reference: components,
// host type and port, or the error with its offset and reason.
func describe(u *uriscan.URI, err error) string {
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for c := uriscan.Scheme; c <= uriscan.Fragment; c++ {
		if s, e, ok := u.Span(c); ok {
			fmt.Fprintf(&b, "%v[%d:%d]=%q ", c, s, e, u.Get(c))
		}
	}
	p, ok := u.PortNumber()
	fmt.Fprintf(&b, "%v %d %v", u.HostType(), p, ok)
	return b.String()
}

// FuzzLineScanner checks that batch scanning (with its mask-only fast
// path) gives, record for record, what ParseString gives for the line
// alone: validity, every span, host type and port, error offset and reason.
func FuzzLineScanner(f *testing.F) {
	for _, s := range seeds {
		f.Add(s + "\n" + s + "\r\n")
	}
	f.Add("http://a/\nhttps://www.example.com/x?y#z\nnode:url\nfile:///a/b\n\n//h\n?q\n#f\n")
	// Records of 64 bytes and more (the batch paths follow them word by
	// word), a scheme ending near the 64th byte, near-miss shapes.
	f.Add("https://www.example.com/" + strings.Repeat("a/", 40) + "?q=" + strings.Repeat("v", 30) + "#f\n" +
		"file:///Users/x/" + strings.Repeat("d", 90) + ".js?tapmock=1\n" +
		"a" + strings.Repeat("b", 61) + "://host/path\n" +
		"http://" + strings.Repeat("h", 70) + "/p\nhttp_://h/\nhttp:/h/p\nhttp://h/p#a#b\nhttp://1.2.3.4/\nhttp:")
	f.Fuzz(func(t *testing.T, s string) {
		lines := strings.Split(s, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		sc := uriscan.NewLineScannerBytes([]byte(s))
		i := 0
		for sc.Scan() {
			if i >= len(lines) {
				t.Fatalf("record %d past the %d lines", i+1, len(lines))
			}
			line := strings.TrimSuffix(lines[i], "\r")
			u, err := uriscan.ParseString(line)
			want := describe(&u, err)
			var got string
			if sc.Valid() {
				got = describe(sc.URI(), nil)
			} else {
				got = describe(nil, sc.ParseError())
			}
			if got != want {
				t.Fatalf("line %d %q:\nbatch  %s\nsingle %s", i+1, line, got, want)
			}
			i++
		}
		if i != len(lines) {
			t.Fatalf("%d records for %d lines", i, len(lines))
		}
	})
}
