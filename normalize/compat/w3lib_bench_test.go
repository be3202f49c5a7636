package compat

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// BenchmarkW3lib canonicalizes every http(s) line of the shared URL lists
// once per op (48k lines with the usual data); ns/url is per URL.
func BenchmarkW3lib(b *testing.B) {
	lines := w3libSharedHTTPLines(b)
	if len(lines) == 0 {
		b.Skipf("shared URL lists absent or without http(s) lines: set %s", shareddata.Env)
	}
	n := 0
	for _, l := range lines {
		n += len(l)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	dst := make([]byte, 0, 4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, l := range lines {
			dst, _ = AppendW3lib(dst[:0], l, W3libOptions{})
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/url")
}

// TestW3libPythonSpeed (with URISCAN_BENCH_W3LIB=1) times w3lib's
// canonicalize_url in the Python subprocess over the same lines (the
// helper's --bench: in-process, start-up and I/O excluded) and AppendW3lib
// in this process, and logs ns per URL and the ratio.
func TestW3libPythonSpeed(t *testing.T) {
	if os.Getenv("URISCAN_BENCH_W3LIB") != "1" {
		t.Skip("set URISCAN_BENCH_W3LIB=1 to time Python's w3lib against AppendW3lib")
	}
	script := w3libNeedPython(t)
	lines := w3libSharedHTTPLines(t)
	if len(lines) == 0 {
		t.Skipf("shared URL lists absent or without http(s) lines: set %s", shareddata.Env)
	}
	f, err := os.CreateTemp(t.TempDir(), "urls*.txt")
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.Write(l)
		w.WriteByte('\n')
	}
	w.Flush()
	f.Close()
	const passes = 3
	start := time.Now()
	out, err := w3libCommand(script, "--bench", strconv.Itoa(passes), f.Name()).Output()
	wall := time.Since(start)
	if err != nil {
		t.Fatalf("%s --bench: %v", script, err)
	}
	fields := strings.Fields(string(out))
	if len(fields) != 3 {
		t.Fatalf("helper printed %q", out)
	}
	pyNS, err := strconv.ParseFloat(fields[2], 64)
	if err != nil {
		t.Fatal(err)
	}
	res := testing.Benchmark(BenchmarkW3lib)
	goNS := float64(res.T.Nanoseconds()) / float64(res.N) / float64(len(lines))
	t.Logf("%d URLs x %d passes: python w3lib %.0f ns/url (subprocess wall %v incl. start-up), Go AppendW3lib %.0f ns/url (%d allocs/op for %d URLs): Go is %.1fx faster",
		len(lines), passes, pyNS, wall.Round(time.Millisecond), goNS, res.AllocsPerOp(), len(lines), pyNS/goNS)
}
