package pebble_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/testfs"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
)

// BenchmarkDiskFootprint fills a Pebble set with N random keys in synced
// batches of 8192 and reports its size on disk per key while open
// (disk-B/key: tables, write-ahead logs as preallocated, MANIFEST) and
// after Close (closed-B/key), and the scan that counts the keys after a
// crash (verify-ns/key). 100,000 keys always; 1 and 10 million with
// URISCAN_BENCH_LARGE=1 (a minute and a few hundred MB of disk).
func BenchmarkDiskFootprint(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000, 10_000_000} {
		name := map[int]string{100_000: "keys=100k", 1_000_000: "keys=1M", 10_000_000: "keys=10M"}[n]
		b.Run(name, func(b *testing.B) {
			if n > 100_000 && os.Getenv("URISCAN_BENCH_LARGE") == "" {
				b.Skipf("%d keys: set URISCAN_BENCH_LARGE=1", n)
			}
			b.ReportAllocs()
			b.SetBytes(int64(n) * int64(len(seen.Key{})))
			for range b.N {
				dir := filepath.Join(b.TempDir(), "set")
				d, err := pebble.Open(dir, anyParams)
				if err != nil {
					b.Fatal(err)
				}
				keys := make([]seen.Key, 8192)
				for i := 0; i < n; i += len(keys) {
					keys = keys[:min(len(keys), n-i)]
					for j := range keys {
						keys[j] = damageKey(i + j)
					}
					if err := d.Insert(keys); err != nil {
						b.Fatal(err)
					}
				}
				open := testfs.DirBytes(b, dir)
				b.StopTimer()
				start := time.Now()
				if err := d.Verify(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Nanoseconds())/float64(n), "verify-ns/key")
				if err := d.Close(); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(open)/float64(n), "disk-B/key")
				b.ReportMetric(float64(testfs.DirBytes(b, dir))/float64(n), "closed-B/key")
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
