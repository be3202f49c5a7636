package uriscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// describeFields renders what uriFields specify: start, end, flags and
// the defined components' spans (the assembly may leave others as it
// likes).
func describeFields(f *uriFields) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%d,%d) defined=%#x host=%v portOK=%v port=%d grammar=%v", f.start, f.end, f.defined, f.hostType, f.portOK, f.port, f.grammar)
	for c := Component(0); c < numComponents; c++ {
		if f.defined&(1<<c) != 0 {
			fmt.Fprintf(&b, " %v=%v", c, f.spans[c])
		}
	}
	return b.String()
}

// diffBatch runs the batch assembly and its Go reference (fastBatchRef)
// from every record start of data, in windows that start where the scan
// would start them and in windows that start earlier, and fails on any
// difference in n, stop or a record. It returns how many records the
// reference took in all. The windows are classified with e's kernel; e
// has the batch assembly on.
func diffBatch(t testing.TB, e *engine, data []byte, rnd *rand.Rand) (took int) {
	t.Helper()
	s := newLineScannerBytes(data, e)
	w := &s.w
	var got, want [fastBatchLen]uriFields
	w.refillAt(0)
	for pos := 0; pos < len(data); {
		// A window from pos now and then, as the scan makes one after a
		// fastStopWindow; otherwise the record lies anywhere in it.
		if pos-w.win >= w.nblk*blockSize || rnd != nil && rnd.IntN(8) == 0 {
			w.refillAt(pos - min(pos, rnd.IntN(2)*rnd.IntN(winBlocks*blockSize)))
			if pos-w.win >= w.nblk*blockSize {
				w.refillAt(pos)
			}
		}
		ng, sg := w.fastBatch(pos, &got)
		nw, sw := w.fastBatchRef(pos, &want)
		if ng != nw || sg != sw {
			t.Fatalf("at %d (window %d, %d blocks): the assembly took %d records (stop %d), the reference %d (stop %d); from %q",
				pos, w.win, w.nblk, ng, sg, nw, sw, data[pos:min(len(data), pos+200)])
		}
		for i := range nw {
			if g, w := describeFields(&got[i]), describeFields(&want[i]); g != w {
				t.Fatalf("at %d, record %d %q:\nassembly  %s\nreference %s", pos, i, data[want[i].start:want[i].end], g, w)
			}
		}
		took += nw
		if nl := bytes.IndexByte(data[pos:], '\n'); nl >= 0 {
			pos += nl + 1
		} else {
			break
		}
	}
	return took
}

// asmDiffInputs are the fast shapes, the bundled sample and the shared
// lists, and near misses of each fast shape: every byte of it replaced by
// a byte that changes its class.
func asmDiffInputs(t testing.TB) [][]byte {
	var in [][]byte
	var all strings.Builder
	for _, rec := range fastShapes() {
		all.WriteString(rec + "\n")
	}
	in = append(in, []byte(all.String()))
	var miss bytes.Buffer
	for _, rec := range fastShapes() {
		for i := range len(rec) {
			for _, c := range []byte("/:?#%[]@\r\x00\x80A9.\n") {
				miss.WriteString(rec[:i] + string(c) + rec[i+1:] + "\n")
			}
		}
	}
	in = append(in, miss.Bytes())
	// pct-encoded at every offset of each fast shape, with HEXDIGs and the
	// bytes either side of their ranges ("/" ":" "@" "G" "`" "g").
	var pct bytes.Buffer
	for _, rec := range fastShapes() {
		for i := range len(rec) + 1 {
			for _, h := range []string{"41", "9f", "0A", "fF", "/0", "0:", "@0", "0G", "`1", "1g", "g1", "G0", "4", ""} {
				pct.WriteString(rec[:i] + "%" + h + rec[i:] + "\n")
			}
		}
	}
	in = append(in, pct.Bytes())
	for _, l := range shareddata.SampleAndLists(t, "testdata/sample.txt") {
		in = append(in, l.Data)
	}
	return in
}

// TestFastBatchRef: the batch assembly takes exactly the records its Go
// reference takes, with the same components and the same stop, from
// every record start of every input, under every kernel.
func TestFastBatchRef(t *testing.T) {
	if !dispatch.fastBatch {
		t.Skipf("no batch assembly on this build or CPU (BatchPath %q)", BatchPath())
	}
	inputs := asmDiffInputs(t)
	forEachKernel(t, func(t *testing.T, e *engine) {
		took := 0
		for i, data := range inputs {
			took += diffBatch(t, e, data, rand.New(rand.NewPCG(uint64(i), 1)))
		}
		if took < 1000 {
			t.Fatalf("the reference took only %d records: the test checks little", took)
		}
		t.Logf("%d records taken by both", took)
	})
}

// FuzzFastBatch compares the batch assembly with its Go reference on
// fuzzed input, from every record start.
func FuzzFastBatch(f *testing.F) {
	for _, rec := range fastShapes() {
		f.Add([]byte(rec + "\n" + rec + "\n"))
	}
	f.Add([]byte("http://a.b/c?d#e\nhttps://1.2.3.4/\nfile:///x\nHTTP://a/\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !dispatch.fastBatch {
			t.Skip("no batch assembly on this build or CPU")
		}
		diffBatch(t, dispatchEngine(), data, rand.New(rand.NewPCG(uint64(len(data)), 2)))
	})
}
