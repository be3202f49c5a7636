package urikey

import (
	"bytes"
	"sort"
	"testing"
	"time"

	"github.com/minio/highwayhash"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/highway"
	"github.com/uriscan/uriscan/internal/urlcorpus"
	"github.com/uriscan/uriscan/normalize"
)

// corpus loads the valid lines of a shared URL list, parsed.
func corpus(tb testing.TB, name string) ([]uriscan.URI, [][]byte, int) {
	tb.Helper()
	return urlcorpus.Valid(tb, name)
}

// BenchmarkNormalizeHash measures normalize (scheme level) plus the keyed
// HighwayHash-128 per URL of each shared list, and the hash alone (ours,
// and highwayhash.Sum128 with the same key and digests).
func BenchmarkNormalizeHash(b *testing.B) {
	key := bytes.Repeat([]byte{1}, KeySize)
	for _, name := range []string{"kasztp", "isaacs_files", "node_files"} {
		b.Run("corpus="+name, func(b *testing.B) {
			uris, lines, size := corpus(b, name)
			b.Run("impl=normalize-scheme", func(b *testing.B) {
				var n normalize.Normalizer
				var buf []byte
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for i := range uris {
						buf = n.Append(buf[:0], &uris[i], normalize.Scheme)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(uris)), "ns/URL")
			})
			b.Run("impl=normalize-scheme+hash", func(b *testing.B) {
				h, _ := NewHasher(key, normalize.Scheme)
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for i := range uris {
						h.Sum(&uris[i])
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(uris)), "ns/URL")
			})
			b.Run("impl=hash-only", func(b *testing.B) {
				k := highway.NewKey((*[KeySize]byte)(key))
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for _, l := range lines {
						k.Sum128(l)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(uris)), "ns/URL")
			})
			b.Run("impl=hash-only-minio", func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				for b.Loop() {
					for _, l := range lines {
						highwayhash.Sum128(l, key)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(uris)), "ns/URL")
			})
		})
	}
}

// BenchmarkNormalizeHashMedian reports the median time per URL of
// normalize + hash over kasztp, timed in batches of 256 URLs, as the
// median-ns/URL metric (the figure is a median).
func BenchmarkNormalizeHashMedian(b *testing.B) {
	uris, _, size := corpus(b, "kasztp")
	h, _ := NewHasher(bytes.Repeat([]byte{1}, KeySize), normalize.Scheme)
	var per []float64
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		for i := 0; i+256 <= len(uris); i += 256 {
			start := time.Now()
			for j := i; j < i+256; j++ {
				h.Sum(&uris[j])
			}
			per = append(per, float64(time.Since(start).Nanoseconds())/256)
		}
	}
	sort.Float64s(per)
	b.ReportMetric(per[len(per)/2], "median-ns/URL")
}
