package normalize

import (
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/urlcorpus"
	"github.com/uriscan/uriscan/normalize/compat"
)

// BenchmarkLevels runs every level, and the SURT key, over the valid lines
// of each shared list in one run (for benchstat ratios): the RFC levels
// on parsed URIs, the Raw levels and SURT on the lines' bytes, as the
// command reads them. ns/URL is per line. The owners' figures: w3lib's
// with TestW3libPythonSpeed (URISCAN_BENCH_W3LIB=1), in the README.
func BenchmarkLevels(b *testing.B) {
	for _, name := range []string{"kasztp", "isaacs_files", "node_files"} {
		b.Run("corpus="+name, func(b *testing.B) {
			uris, lines, size := corpus(b, name)
			run := func(b *testing.B, f func(dst []byte, i int) []byte) {
				var buf []byte
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for i := range lines {
						buf = f(buf[:0], i)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(lines)), "ns/URL")
			}
			for _, lv := range []Level{Syntax, Scheme, Crawler} {
				b.Run("level="+lv.String(), func(b *testing.B) {
					var n Normalizer
					run(b, func(dst []byte, i int) []byte { return n.Append(dst, &uris[i], lv) })
				})
			}
			for _, lv := range []Level{SafeBrowsing, W3lib} {
				b.Run("level="+lv.String(), func(b *testing.B) {
					var n Normalizer
					run(b, func(dst []byte, i int) []byte {
						out, _ := n.AppendRaw(dst, lines[i], lv)
						return out
					})
				})
			}
			b.Run("level=surt", func(b *testing.B) {
				run(b, func(dst []byte, i int) []byte {
					out, _ := compat.AppendSURT(dst, lines[i], compat.SURTOptions{})
					return out
				})
			})
		})
	}
}

// corpus loads the valid lines of a shared URL list, parsed.
func corpus(tb testing.TB, name string) ([]uriscan.URI, [][]byte, int) {
	tb.Helper()
	return urlcorpus.Valid(tb, name)
}
