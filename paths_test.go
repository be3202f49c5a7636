//go:build uriscan_pathstats

package uriscan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/pathstats"
	"github.com/uriscan/uriscan/internal/shareddata"
)

// These tests count, through internal/pathstats (compiled in only with the
// uriscan_pathstats tag), which path took each LineScanner record: the
// batch assembly, the Go fast path or the walk. A fast path that stops
// taking records leaves every result the same and only costs speed; here
// it fails a test. The Makefile runs them in every leg.

// filler returns n bytes (n >= 10) of records in the common shape.
func filler(n int) string {
	var b strings.Builder
	for n > 0 {
		k := min(n, 40)
		if n-k < 10 && n > k {
			k = n - 10
		}
		b.WriteString("http://f/")
		b.WriteString(strings.Repeat("x", k-10))
		b.WriteByte('\n')
		n -= k
	}
	return b.String()
}

// placements puts rec at a window's start, across the first window's end
// (winBlocks*blockSize bytes in) at several offsets, with its "\n" as the
// window's last byte and as the next window's first, and among copies of
// itself (more records than one batch call returns).
func placements(rec string) []string {
	line := rec + "\n"
	win := winBlocks * blockSize
	out := []string{line, strings.Repeat(line, 2*fastBatchLen+3)}
	for _, start := range []int{win - len(line), win - len(line) + 1, win - len(line)/2, win - 1, win - blockSize} {
		if start >= 10 {
			out = append(out, filler(start)+line+"http://after/\n")
		}
	}
	return out
}

// scanCounted scans in with the engine e and returns the records
// rendered and what each path took.
func scanCounted(t *testing.T, e *engine, in string) ([]string, pathstats.Counts) {
	t.Helper()
	before := pathstats.Snapshot()
	got := scanAll(t, newLineScannerBytes([]byte(in), e))
	return got, pathstats.Snapshot().Since(before)
}

// TestFastPathShapes asserts that every record in fastShapes, wherever it
// lies in the window, is taken by the batch assembly where it runs, and by
// the Go fast path with the assembly off, with the results ParseString
// gives.
func TestFastPathShapes(t *testing.T) {
	type leg struct {
		name string
		asm  bool
		path pathstats.Path
	}
	legs := []leg{{"gofast", false, pathstats.GoFast}}
	if dispatch.fastBatch {
		legs = append(legs, leg{"batchasm", true, pathstats.BatchAsm})
	} else {
		t.Logf("no batch assembly on this build or CPU (BatchPath %q): the Go fast path only", BatchPath())
	}
	forEachKernel(t, func(t *testing.T, e *engine) {
		for _, l := range legs {
			t.Run("path="+l.name, func(t *testing.T) {
				e := withPaths(e, l.asm, true)
				for _, rec := range fastShapes() {
					for i, in := range placements(rec) {
						got, c := scanCounted(t, e, in)
						if want := wantAll(in); strings.Join(got, "\n") != strings.Join(want, "\n") {
							t.Fatalf("%q placement %d: records differ from ParseString's", rec, i)
						}
						if n := uint64(len(got)); c[l.path] != n {
							t.Errorf("%q placement %d (%d bytes): %s took %d of %d records (go-fast %d, walk %d)",
								rec, i, len(in), l.path, c[l.path], n, c[pathstats.GoFast], c[pathstats.Walk])
						}
					}
				}
			})
		}
	})
}

// shareFloors are the least share of records each fast path must take
// from each list (batch assembly on; Go fast path with it off), a little
// under what it took when the floors were set (2026-12-03, after both
// fast paths took pct-encoded paths, queries and fragments, and the Go
// fast path ports; the measured shares are in the comments; the counts do
// not depend on the machine). With the assembly off, what the Go fast
// path leaves goes to the walk, so its floor also caps the slow walk's
// share (under 2% on every list). A change in shape coverage that sends
// records to a slower path fails here. "sample" is the bundled
// testdata/sample.txt, so the test runs without the shared data.
var shareFloors = map[string]struct{ asm, fast float64 }{
	"sample":       {0.980, 0.984}, // 98.14%, 98.54% of 1,236 (was 97.65%, 97.90%)
	"kasztp":       {0.991, 0.992}, // 99.22%, 99.28% of 48,010 (was 99.22%, 99.23%; the walk's 0.72% are invalid records but one)
	"isaacs_files": {0.990, 0.999}, // 99.07%, 100.00% of 6,207 (was 99.07%, 99.37%)
	"node_files":   {0.999, 0.999}, // 100.00%, 100.00% of 43,415 (was 97.61%, 97.61%)
}

// TestFastPathShares scans the bundled sample and each shared list whole
// and checks the share of records the batch assembly takes (where it runs)
// and, with the assembly off, the share the Go fast path takes.
func TestFastPathShares(t *testing.T) {
	for _, l := range shareddata.SampleAndLists(t, "testdata/sample.txt") {
		name, data := l.Name, l.Data
		floor, ok := shareFloors[name]
		if !ok {
			t.Errorf("%s: no floor in shareFloors: measure one and add it", name)
			continue
		}
		share := func(asm bool) pathstats.Counts {
			before := pathstats.Snapshot()
			s := newLineScannerBytes(data, withPaths(dispatchEngine(), asm, true))
			for s.Scan() {
			}
			return pathstats.Snapshot().Since(before)
		}
		report := func(c pathstats.Counts) string {
			total := float64(c[pathstats.BatchAsm] + c[pathstats.GoFast] + c[pathstats.Walk])
			return fmt.Sprintf("%.0f records: batch-asm %.2f%%, go-fast %.2f%%, walk %.2f%%", total,
				100*float64(c[pathstats.BatchAsm])/total, 100*float64(c[pathstats.GoFast])/total, 100*float64(c[pathstats.Walk])/total)
		}
		frac := func(c pathstats.Counts, p pathstats.Path) float64 {
			return float64(c[p]) / float64(c[pathstats.BatchAsm]+c[pathstats.GoFast]+c[pathstats.Walk])
		}
		if dispatch.fastBatch {
			c := share(true)
			t.Logf("%s, batch assembly on: %s", name, report(c))
			if f := frac(c, pathstats.BatchAsm); f < floor.asm {
				t.Errorf("%s: the batch assembly took %.2f%% of the records, the floor is %.2f%% (%s)", name, 100*f, 100*floor.asm, report(c))
			}
		}
		c := share(false)
		t.Logf("%s, batch assembly off: %s", name, report(c))
		if f := frac(c, pathstats.GoFast); f < floor.fast {
			t.Errorf("%s: the Go fast path took %.2f%% of the records, the floor is %.2f%% (%s)", name, 100*f, 100*floor.fast, report(c))
		}
	}
}
