package fuzz

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/kerneltest"
)

// parseAll renders what the scanner makes of s, as one URI and as batch
// records, with the named kernel: components, host type and port, or the
// error with its offset and reason.
func parseAll(kernel, s string) string {
	var b strings.Builder
	kerneltest.With(kernel, func() {
		u, err := uriscan.ParseString(s)
		b.WriteString(describe(&u, err))
		sc := uriscan.NewLineScannerBytes([]byte(s))
		for sc.Scan() {
			b.WriteString("\n")
			if sc.Valid() {
				b.WriteString(describe(sc.URI(), nil))
			} else {
				b.WriteString(describe(nil, sc.ParseError()))
			}
		}
	})
	return b.String()
}

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

// FuzzKernels diffs every kernel this CPU offers against the scalar
// reference: the masks of the input, and what Parse and LineScanner make
// of it. Run it per kernel with GODEBUG (cpu.avx512f=off, cpu.avx2=off)
// to fuzz the one below, or as is to cover all of them at once.
func FuzzKernels(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Add(strings.Repeat("http://h/%41?q#f\n", 10) + "http://a b\r\nx\r")
	f.Add(strings.Repeat("a", 62) + "%4" + strings.Repeat("/", 70) + "\xff")
	f.Fuzz(func(t *testing.T, s string) {
		kernels := kerneltest.Kernels()
		want := kerneltest.Masks("generic", []byte(s))
		wantParse := parseAll("generic", s)
		for _, k := range kernels[:len(kernels)-1] {
			got := kerneltest.Masks(k, []byte(s))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s: block %d masks %x, generic %x", k, i, got[i], want[i])
				}
			}
			if got := parseAll(k, s); got != wantParse {
				t.Fatalf("%s parse:\n%s\ngeneric:\n%s", k, got, wantParse)
			}
		}
	})
}

func TestKernelsListed(t *testing.T) {
	ks := kerneltest.Kernels()
	if len(ks) == 0 || ks[len(ks)-1] != "generic" {
		t.Fatalf("Kernels() = %v, want the scalar reference last", ks)
	}
	if ks[0] != uriscan.Kernel() {
		t.Errorf("best kernel %q, Kernel() = %q", ks[0], uriscan.Kernel())
	}
	t.Logf("kernels: %v", ks)
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
