package uriscan

import (
	"bytes"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/pagetest"
)

// dispatchEngine is a copy of the public API's engine (dispatch), for a
// test to pass on or change.
func dispatchEngine() *engine {
	e := dispatch
	return &e
}

// kernelEngine is dispatch's engine (its fast paths) with the kernel k.
func kernelEngine(k kernelID) *engine {
	e := dispatchEngine()
	e.kernel = k
	return e
}

// walkEngine is the scalar reference: the generic kernel and the walk
// alone, no fast path.
func walkEngine() *engine { return &engine{kernel: kernelGeneric} }

// forEachKernel runs f once per kernel this CPU offers, with the engine
// that uses it (kernelEngine): f passes it to what it tests.
func forEachKernel(t *testing.T, f func(t *testing.T, e *engine)) {
	for _, k := range availableKernels() {
		t.Run("impl="+k.String(), func(t *testing.T) {
			f(t, kernelEngine(k))
		})
	}
}

// checkMasks runs kernel k over src and compares with the scalar
// reference, printing the masks as bit strings under the input on failure.
func checkMasks(t *testing.T, k kernelID, src []byte) {
	t.Helper()
	nb := (len(src) + blockSize - 1) / blockSize
	got := make([]blockMasks, nb+1)
	canary := blockMasks{0xdead, 0xbeef, 0xf00d, 0xcafe, 0xface}
	got[nb] = canary
	classifyBlocks(got[:nb], src, k)
	want := make([]blockMasks, nb)
	classifyGeneric(want, src)
	if d := diffMasks(got[:nb], want, src); d != "" {
		t.Fatalf("%s: %s", k, d)
	}
	if got[nb] != canary {
		t.Fatalf("%s: len %d: kernel wrote past its %d blocks", k, len(src), nb)
	}
}

// diffMasks describes the first block where got and want (the masks of
// src) differ, each mask as a bit string under the block's bytes, or
// returns "" when they are equal.
func diffMasks(got, want []blockMasks, src []byte) string {
	for i := range want {
		if got[i] == want[i] {
			continue
		}
		g, w := got[i], want[i]
		return fmt.Sprintf("len %d block %d differs\ninput      %q\ninvalid    got %s\n           want %s\nstructural got %s\n           want %s\nnewline    got %s\n           want %s\ntail       got %s\n           want %s\ndelim      got %s\n           want %s",
			len(src), i, src[i*blockSize:min(len(src), (i+1)*blockSize)],
			bitString(g.invalid), bitString(w.invalid), bitString(g.structural), bitString(w.structural),
			bitString(g.newline), bitString(w.newline), bitString(g.tail), bitString(w.tail),
			bitString(g.delim), bitString(w.delim))
	}
	return ""
}

// bitString prints a mask with bit 0 first, so it lines up with the input.
func bitString(m uint64) string {
	return fmt.Sprintf("%064b", bits.Reverse64(m))
}

func TestKernelEveryByteEveryLane(t *testing.T) {
	forEachKernel(t, func(t *testing.T, e *engine) {
		for c := 0; c < 256; c++ {
			for _, n := range []int{1, 63, 64, 65, 128} {
				for pos := 0; pos < n; pos++ {
					src := bytes.Repeat([]byte("a"), n)
					src[pos] = byte(c)
					checkMasks(t, e.kernel, src)
				}
			}
		}
	})
}

func TestKernelAllBytesEveryRotation(t *testing.T) {
	forEachKernel(t, func(t *testing.T, e *engine) {
		all := make([]byte, 256)
		for i := range all {
			all[i] = byte(i)
		}
		for r := 0; r < 256; r++ {
			checkMasks(t, e.kernel, append(all[r:], all[:r]...))
		}
	})
}

func TestKernelLengthsAndAlignments(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 4*blockSize+64+blockSize)
	for i := range buf {
		// URI-ish bytes with structurals, invalid bytes and newlines mixed in.
		const alphabet = "ab/:%?#[]@\n\r \x00\x80\xff\"{}|~-_."
		buf[i] = alphabet[rng.IntN(len(alphabet))]
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		for align := 0; align < 64; align++ {
			for n := 0; n <= 4*blockSize+1 && align+n <= len(buf); n++ {
				checkMasks(t, e.kernel, buf[align:align+n])
			}
		}
	})
}

func TestKernelRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	forEachKernel(t, func(t *testing.T, e *engine) {
		for i := 0; i < 2000; i++ {
			src := make([]byte, rng.IntN(1500))
			for j := range src {
				src[j] = byte(rng.UintN(256))
			}
			checkMasks(t, e.kernel, src)
		}
	})
}

// TestKernelNoOverread puts inputs of every short length flush against a
// PROT_NONE page: a kernel that reads one byte too many faults.
func TestKernelNoOverread(t *testing.T) {
	mem := pagetest.BeforeGuard(t)
	page := len(mem)
	for i := 0; i < page; i++ {
		mem[i] = "http://h/%41?q#f"[i%16]
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		for n := 0; n <= 4*blockSize+1; n++ {
			src := mem[page-n : page]
			checkMasks(t, e.kernel, src)
			parse(string(src), false, e)       // copies; the next line does not
			parse(bytesToString(src), true, e) // Parse(src)
		}
	})
}

// TestKernelParseIdentity parses the same references with every kernel and
// checks the results are identical, including error offsets and reasons.
func TestKernelParseIdentity(t *testing.T) {
	inputs := []string{}
	for _, c := range parseCases {
		inputs = append(inputs, c.in)
	}
	for _, at := range []int{60, 62, 63, 64, 65, 127, 128} {
		pad := strings.Repeat("a", at)
		inputs = append(inputs, "http://h/"+pad+"%41x", "http://h/"+pad+"%4", "http://h/"+pad+"%", pad+":x", "http://"+pad+"[::1]/")
	}
	want := make([]string, len(inputs))
	for i, in := range inputs {
		want[i] = renderFull(parse(in, false, kernelEngine(kernelGeneric)))
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		for i, in := range inputs {
			if got := renderFull(parse(in, false, e)); got != want[i] {
				t.Errorf("%q: %s\ngeneric: %s", in, got, want[i])
			}
		}
	})
}

func renderFull(u URI, err error) string {
	if err != nil {
		return err.Error()
	}
	return render(u, nil)
}

func TestAgreeCatchesBrokenKernel(t *testing.T) {
	if kernelAgrees(func(d []blockMasks, s []byte) {
		classifyGeneric(d, s)
		if len(s) > 100 {
			d[1].structural ^= 1
		}
	}) {
		t.Fatal("kernelAgrees accepted a kernel that is wrong on long inputs")
	}
	if !kernelAgrees(classifyGeneric) {
		t.Fatal("kernelAgrees rejected the reference")
	}
}

// forEachScanPath runs f for every kernel and every way LineScanner can
// take records: the batch assembly first (where it runs), the Go fast
// path first, and the walk alone, each with the engine f passes on.
func forEachScanPath(t *testing.T, f func(t *testing.T, e *engine)) {
	type mode struct {
		name      string
		asm, fast bool
	}
	modes := []mode{{"walk", false, false}, {"gofast", false, true}}
	if dispatch.fastBatch {
		modes = append(modes, mode{"batchasm", true, true})
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		for _, m := range modes {
			t.Run("path="+m.name, func(t *testing.T) {
				f(t, withPaths(e, m.asm, m.fast))
			})
		}
	})
}

// withPaths is e with the batch assembly and the Go fast path as given.
func withPaths(e *engine, asm, fast bool) *engine {
	p := *e
	p.fastBatch, p.goFast = asm, fast
	return &p
}
