package uriscan

import (
	"fmt"
	"strings"
	"testing"
)

// The kernels' fuzz target lives beside them, so that tests reach every
// kernel without a hook in production binaries (make fuzz-arm64 runs it
// for NEON under qemu).

// parseAll renders what the scanner makes of s, as one URI and as batch
// records, with kernel k: components, host type and port, or the error
// with its offset and reason.
func parseAll(k kernelID, s string) string {
	e := kernelEngine(k)
	var b strings.Builder
	u, err := parse(s, false, e)
	b.WriteString(describeURI(&u, err))
	sc := newLineScannerBytes([]byte(s), e)
	for sc.Scan() {
		b.WriteString("\n")
		if sc.Valid() {
			b.WriteString(describeURI(sc.URI(), nil))
		} else {
			b.WriteString(describeURI(nil, sc.ParseError()))
		}
	}
	return b.String()
}

func describeURI(u *URI, err error) string {
	if err != nil {
		return err.Error()
	}
	var b strings.Builder
	for c := Scheme; c <= Fragment; c++ {
		if s, e, ok := u.Span(c); ok {
			fmt.Fprintf(&b, "%v[%d:%d]=%q ", c, s, e, u.Get(c))
		}
	}
	p, ok := u.PortNumber()
	fmt.Fprintf(&b, "%v %d %v", u.HostType(), p, ok)
	return b.String()
}

// masksOf classifies src with kernel k.
func masksOf(k kernelID, src []byte) []blockMasks {
	dst := make([]blockMasks, (len(src)+blockSize-1)/blockSize)
	classifyBlocks(dst, src, k)
	return dst
}

// FuzzKernels diffs every kernel this CPU offers against the scalar
// reference: the masks of the input, and what Parse and LineScanner make
// of it. Run it per kernel with GODEBUG (cpu.avx512f=off, cpu.avx2=off)
// to fuzz the one below, or as is to cover all of them at once.
func FuzzKernels(f *testing.F) {
	for _, c := range parseCases {
		f.Add(c.in)
	}
	f.Add(strings.Repeat("http://h/%41?q#f\n", 10) + "http://a b\r\nx\r")
	f.Add(strings.Repeat("a", 62) + "%4" + strings.Repeat("/", 70) + "\xff")
	f.Fuzz(func(t *testing.T, s string) {
		kernels := availableKernels()
		want := masksOf(kernelGeneric, []byte(s))
		wantParse := parseAll(kernelGeneric, s)
		for _, k := range kernels[:len(kernels)-1] {
			got := masksOf(k, []byte(s))
			for i := range want {
				if got[i] != want[i] {
					t.Fatalf("%s: block %d masks %+v, generic %+v", k, i, got[i], want[i])
				}
			}
			if got := parseAll(k, s); got != wantParse {
				t.Fatalf("%s parse:\n%s\ngeneric:\n%s", k, got, wantParse)
			}
		}
	})
}

// TestKernelsListed: the kernels FuzzKernels diffs are the best first,
// the scalar reference last.
func TestKernelsListed(t *testing.T) {
	ks := availableKernels()
	if len(ks) == 0 || ks[len(ks)-1] != kernelGeneric {
		t.Fatalf("availableKernels() = %v, want the scalar reference last", ks)
	}
	if ks[0].String() != Kernel() {
		t.Errorf("best kernel %q, Kernel() = %q", ks[0], Kernel())
	}
	t.Logf("kernels: %v", ks)
}
