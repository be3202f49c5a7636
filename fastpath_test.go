package uriscan

import (
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/pagetest"
)

// TestGoFastPorts: the Go fast path takes an authority with a port of
// digits (empty, and over 16 bits, too), with the components and port
// value ParseString gives, and leaves every other authority with a ':'
// or other structural byte to the walk.
func TestGoFastPorts(t *testing.T) {
	long := strings.Repeat("p", 80)
	take := []string{"http://h:8080/", "http://h:/", "https://h:65536/x?y", "http://h:0#f", "http://1.2.3.4:80/",
		"http://example.com:8002/antex/?a=%41", "https://h:443", "file://h:1/" + long + "?q"}
	decline := []string{"http://h:8a/", "http://h:8:9/", "http://u@h:80/", "http://[::1]:80/", "http://h:%38/", "http://h%41:80/", "http://h:80:/"}
	forEachKernel(t, func(t *testing.T, e *engine) {
		fast := func(rec string) (URI, bool) {
			s := newLineScannerBytes([]byte(rec+"\n"), e)
			s.w.refillAt(0)
			u := URI{src: s.w.src}
			end, ok := s.w.fast(&u, 0)
			u.start, u.end = 0, int32(end)
			return u, ok && end == len(rec)
		}
		for _, rec := range take {
			want, err := parseWalkOnly(rec)
			if err != nil {
				t.Fatalf("%q: %v", rec, err)
			}
			u, ok := fast(rec)
			if !ok {
				t.Errorf("%q: the Go fast path declined it", rec)
				continue
			}
			if got, want := render(u, nil)+extras(&u), render(want, nil)+extras(&want); got != want {
				t.Errorf("%q:\ngot  %s\nwant %s", rec, got, want)
			}
		}
		for _, rec := range decline {
			if _, ok := fast(rec); ok {
				t.Errorf("%q: the Go fast path took it", rec)
			}
		}
	})
}

// TestParseFast: Parse's fast path takes every fast shape (at lengths
// around the block boundaries too) and, on every parse case, takes only
// inputs the walk accepts, with the walk's components.
func TestParseFast(t *testing.T) {
	walkOnly := func(s string) (URI, bool) {
		var w walker
		var m [winBlocks + 1]blockMasks
		w.m, w.eng = m[:], *walkEngine()
		var u URI
		w.walkAll(&u, s)
		return u, w.errOff == noError
	}
	// fast is Parse's fast paths alone, as the engine e has them: the
	// batch assembly where parse tries it, then the Go fast path.
	fast := func(e *engine, s string) (URI, bool) {
		var u URI
		if e.fastBatch && len(s) < 2*blockSize && len(s)%blockSize != 0 {
			var m [3]blockMasks
			if parseAsm(&u, s, &m, e.kernel) {
				return u, true
			}
		}
		var w walker
		var m [winBlocks + 1]blockMasks
		w.m, w.eng = m[:], *e
		w.init(s, 0)
		ok := w.parseFast(&u, s)
		return u, ok
	}
	type mode struct {
		name      string
		asm, fast bool
	}
	modes := []mode{{"gofast", false, true}}
	if dispatch.fastBatch {
		// The assembly alone must take every record of its shape
		// (batchShape); with the Go fast path behind it, every shape.
		modes = append(modes, mode{"batchasm", true, false}, mode{"both", true, true})
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		var recs []string
		for _, rec := range fastShapes() {
			recs = append(recs, rec)
			for _, n := range []int{63, 64, 65, 127, 128, 129} {
				if pad := n - len(rec); pad > 0 && !strings.ContainsAny(rec, "?#") && strings.LastIndexByte(rec, '/') > len("file://") { // padding in the path, not the host
					recs = append(recs, rec+strings.Repeat("p", pad))
				}
			}
		}
		for _, md := range modes {
			t.Run("path="+md.name, func(t *testing.T) {
				e := withPaths(e, md.asm, md.fast)
				for _, rec := range recs {
					u, ok := fast(e, rec)
					want, _ := walkOnly(rec)
					// A length that is a whole number of blocks puts the end in the
					// zero block after the window's: the walk takes those.
					mustTake := len(rec)%blockSize != 0 && len(rec) < winBlocks*blockSize
					if !md.fast { // the assembly alone: its shape, in parse's short inputs
						mustTake = mustTake && batchShape(&want) && len(rec) < 2*blockSize
					}
					if !ok && mustTake {
						t.Errorf("%q (%d bytes): Parse's fast path declined it", rec, len(rec))
						continue
					}
					if ok && render(u, nil)+extras(&u) != render(want, nil)+extras(&want) {
						t.Errorf("%q: fast %s, walk %s", rec, render(u, nil)+extras(&u), render(want, nil)+extras(&want))
					}
				}
				took := 0
				for _, c := range parseCases {
					u, ok := fast(e, c.in)
					if !ok {
						continue
					}
					took++
					want, valid := walkOnly(c.in)
					if !valid {
						t.Errorf("%q: Parse's fast path took an input the walk refuses", c.in)
					} else if render(u, nil)+extras(&u) != render(want, nil)+extras(&want) {
						t.Errorf("%q: fast %s, walk %s", c.in, render(u, nil)+extras(&u), render(want, nil)+extras(&want))
					}
				}
				if took < 20 {
					t.Errorf("Parse's fast path took only %d parse cases", took)
				}
			})
		}
	})
}

// FuzzParseFast: whatever Parse's fast path takes, the walk accepts with
// the same components, with Parse's own masks (3 blocks under 128 bytes).
func FuzzParseFast(f *testing.F) {
	for _, rec := range fastShapes() {
		f.Add(rec)
	}
	f.Add("http://h:80/%41?q#f")
	f.Add("file:///" + strings.Repeat("p", 55) + "%4")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseString(s)
		want, werr := parseWalkOnly(s)
		if (err == nil) != (werr == nil) {
			t.Fatalf("%q: Parse %v, the walk %v", s, err, werr)
		}
		if err != nil {
			if err.Error() != werr.Error() {
				t.Fatalf("%q: Parse %v, the walk %v", s, err, werr)
			}
			return
		}
		if g, w := render(got, nil)+extras(&got), render(want, nil)+extras(&want); g != w {
			t.Fatalf("%q:\nParse %s\nwalk  %s", s, g, w)
		}
	})
}

// TestParseNoOverread parses inputs that end flush against a PROT_NONE
// page, on every path Parse has: nothing past the input may be read (the
// batch assembly reads the "//" after a scheme only inside the record).
func TestParseNoOverread(t *testing.T) {
	mem := pagetest.BeforeGuard(t)
	ins := []string{"a:", "ab:", "abc:", "a:/", "ab:b", "http:", "https:", "file:", "http:/", "https:/", "http://", "http://h", "http://h/p?q#", "http://h/%", "http://h/%4",
		"http://h/p?%41#%4", "file:///" + strings.Repeat("p", 55) + "%4", "file:///" + strings.Repeat("p", 70) + "%"}
	for _, rec := range fastShapes() {
		ins = append(ins, rec, rec+"%", rec+"%4")
	}
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, s := range ins {
			in := mem[len(mem)-len(s):]
			copy(in, s)
			u, err := parse(bytesToString(in), true, e) // Parse(in)
			want, werr := parseWalkOnly(s)
			if (err == nil) != (werr == nil) || err == nil && render(u, nil)+extras(&u) != render(want, nil)+extras(&want) {
				t.Errorf("%q: Parse %s %v, walk %s %v", s, render(u, nil), err, render(want, nil), werr)
			}
		}
	})
}
