package uriscan

import (
	"bytes"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// loadLines reads the shared list urls/NAME.txt as lines (without "\r\n"),
// skipping the test or benchmark when the data is absent.
func loadLines(tb testing.TB, name string) (lines [][]byte, size int) {
	tb.Helper()
	data := shareddata.URLList(tb, name)
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // kasztp starts with a BOM
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) > 0 {
			lines = append(lines, l)
			size += len(l)
		}
	}
	return lines, size
}

// BenchmarkParse parses every line of each shared URL list per op, one
// Parse call per line, per kernel, with net/url.Parse on the same lines in
// the same run. ns/URL is reported so they can be compared directly.
func BenchmarkParse(b *testing.B) {
	for _, name := range shareddata.URLLists {
		b.Run("corpus="+name, func(b *testing.B) {
			lines, size := loadLines(b, name)
			strs := make([]string, len(lines))
			for i, l := range lines {
				strs[i] = string(l)
			}
			for _, k := range availableKernels() {
				b.Run("impl="+k.String(), func(b *testing.B) {
					e := kernelEngine(k)
					b.SetBytes(int64(size))
					b.ReportAllocs()
					for b.Loop() {
						for _, l := range lines {
							parse(bytesToString(l), true, e) // Parse(l)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/URL")
				})
			}
			b.Run("impl=net-url", func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for _, s := range strs {
						url.Parse(s)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/URL")
			})
		})
	}
}

// BenchmarkClassify measures stage 1 alone, per kernel and input size, on
// URL-like bytes, with bytes.IndexByte over the same bytes as the
// memory-speed line. Compare kernels with: benchstat -col /impl.
func BenchmarkClassify(b *testing.B) {
	const url = "https://www.example.com/a/b/c.html?x=1&y=%20z#frag\n"
	src := bytes.Repeat([]byte(url), (1<<20)/len(url)+1)
	dst := make([]blockMasks, len(src)/blockSize+1)
	for _, k := range availableKernels() {
		for _, size := range []int{16, 32, 64, 128, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20} {
			b.Run("impl="+k.String()+"/size="+sizeName(size), func(b *testing.B) {
				in := src[:size]
				nb := (size + blockSize - 1) / blockSize
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					classifyBlocks(dst[:nb], in, k)
				}
			})
		}
	}
	// The memory-speed line: bytes.IndexByte (the runtime's SIMD scan) of
	// a byte the buffer lacks, over the same bytes.
	for _, size := range []int{64, 1 << 10, 4 << 10, 64 << 10, 1 << 20} {
		b.Run("impl=indexbyte/size="+sizeName(size), func(b *testing.B) {
			in := src[:size]
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if bytes.IndexByte(in, 0xff) >= 0 {
					b.Fatal("0xff in the input")
				}
			}
		})
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return strconv.Itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return strconv.Itoa(n>>10) + "KiB"
	}
	return strconv.Itoa(n) + "B"
}

// BenchmarkScanLines validates and splits every line of each shared URL
// list per op with a LineScanner over the whole file (batch mode), per
// kernel, with net/url.Parse on the same lines in the same run.
func BenchmarkScanLines(b *testing.B) {
	for _, name := range shareddata.URLLists {
		b.Run("corpus="+name, func(b *testing.B) {
			data := shareddata.URLList(b, name)
			nlines := bytes.Count(data, []byte("\n")) + 1
			for _, k := range availableKernels() {
				b.Run("impl="+k.String(), func(b *testing.B) {
					s := newLineScannerBytes(data, kernelEngine(k))
					b.SetBytes(int64(len(data)))
					b.ReportAllocs()
					for b.Loop() {
						s.ResetBytes(data)
						for s.Scan() {
						}
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nlines), "ns/URL")
				})
			}
			b.Run("impl=net-url", func(b *testing.B) {
				lines := strings.Split(string(data), "\n")
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for b.Loop() {
					for _, l := range lines {
						url.Parse(l)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nlines), "ns/URL")
			})
		})
	}
}
