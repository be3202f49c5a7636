package keylog_test

import (
	"encoding/binary"
	"fmt"
	"github.com/uriscan/uriscan/internal/testfs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	"github.com/uriscan/uriscan/seen/pebble"
	redisstore "github.com/uriscan/uriscan/seen/redis"
)

// mix is splitmix64's finalizer: distinct inputs, distinct outputs that
// look random.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// bkey is the i-th key of the benchmarks and tests: uniform, like the
// HighwayHash keys of real URIs.
func bkey(i int) seen.Key {
	var k seen.Key
	binary.LittleEndian.PutUint64(k[0:8], mix(uint64(i)))
	binary.LittleEndian.PutUint64(k[8:16], mix(^uint64(i)))
	return k
}

// frontierSet is a set filled with n keys for BenchmarkFrontier, kept
// across the benchmark's runs.
type frontierSet struct {
	set  seen.Set
	n    int // keys inserted so far: bkey(0..n-1)
	base int // keys before the benchmark: the recorded ones are among them
	dir  string
}

// BenchmarkFrontier is what a crawler's frontier does to its seen-set
// (uriscan dedup, package frontier): per batch of 8192 keys, Contains,
// then Insert of the keys found new (one synced write). The set holds N
// keys first; new=100% is a batch of keys never seen (a crawl's first
// pass), new=50% has every other key recorded before (at random among
// the N: for a disk store, a look-up that finds it). keys/s counts the
// keys looked up, new or not; keys/cpu-s is per second of the process's
// CPU time (background compactions included: the keys/s of one core);
// mem-B/key is the store's own memory per key (the key log's index, the
// Pebble set's filter; Redis's is the server's), disk-B/key its files.
//
// Stores in the same run: keylog (this package), pebble (seen/pebble, the
// disk set before it), memory (seen.Memory) and redis (seen/redis, a
// server on loopback, when URISCAN_REDIS_ADDR names one; up to 10M keys).
// N = 100k always; 1M, 10M and 100M with URISCAN_BENCH_LARGE=1, pebble
// up to 10M unless URISCAN_BENCH_PEBBLE100M=1 (its fill takes 15
// minutes). Each set is filled once per N, in $URISCAN_BENCH_DIR if set,
// then closed and opened again, as a crawler's next run finds it.
func BenchmarkFrontier(b *testing.B) {
	sets := map[string]*frontierSet{}
	root := os.Getenv("URISCAN_BENCH_DIR")
	if root == "" {
		root = b.TempDir()
	}
	defer func() {
		for _, s := range sets {
			s.set.Close()
			if s.dir != "" {
				os.RemoveAll(s.dir)
			}
		}
	}()
	for _, n := range []int{100_000, 1_000_000, 10_000_000, 100_000_000} {
		for _, store := range []string{"keylog", "pebble", "memory", "redis"} {
			for _, newPct := range []int{100, 50} {
				name := fmt.Sprintf("keys=%.0e/store=%s/new=%d%%", float64(n), store, newPct)
				b.Run(name, func(b *testing.B) {
					switch {
					case n > 100_000 && os.Getenv("URISCAN_BENCH_LARGE") == "":
						b.Skipf("%d keys: set URISCAN_BENCH_LARGE=1", n)
					case store == "pebble" && n > 10_000_000 && os.Getenv("URISCAN_BENCH_PEBBLE100M") == "":
						b.Skip("pebble at 10^8 keys: set URISCAN_BENCH_PEBBLE100M=1 (a 15-minute fill)")
					case store == "redis" && os.Getenv("URISCAN_REDIS_ADDR") == "":
						b.Skip("no Redis: set URISCAN_REDIS_ADDR (eval \"$(.ci/redis.sh)\")")
					case store == "redis" && n > 10_000_000:
						b.Skip("redis up to 10^7 keys")
					}
					fs := sets[fmt.Sprint(store, n)]
					if fs == nil {
						for k, s := range sets { // the previous N's are done with
							s.set.Close()
							if s.dir != "" {
								os.RemoveAll(s.dir)
							}
							delete(sets, k)
						}
						fs = fillSet(b, root, store, n)
						sets[fmt.Sprint(store, n)] = fs
					}
					benchFrontier(b, fs, newPct)
				})
			}
		}
	}
}

func openStore(b *testing.B, store, dir string) seen.Set {
	b.Helper()
	var set seen.Set
	var err error
	switch store {
	case "keylog":
		set, err = openSet(dir, anyParams)
	case "pebble":
		set, err = pebble.Open(dir, &pebble.Options{AnyParams: true})
	case "redis":
		addr := strings.Split(os.Getenv("URISCAN_REDIS_ADDR"), ",")[0]
		set, err = redisstore.Open([]string{addr}, &redisstore.Options{AnyParams: true,
			Prefix: fmt.Sprintf("uriscan-bench:%d.%d:", os.Getpid(), time.Now().UnixNano())})
	}
	if err != nil {
		b.Fatal(err)
	}
	return set
}

func fillSet(b *testing.B, root, store string, n int) *frontierSet {
	b.Helper()
	fs := &frontierSet{n: n, base: n}
	switch store {
	case "memory":
		fs.set = seen.NewMemory(n)
	case "redis":
		fs.set = openStore(b, store, "")
	default:
		dir, err := os.MkdirTemp(root, "frontier-set-")
		if err != nil {
			b.Fatal(err)
		}
		fs.dir = dir
		fs.set = openStore(b, store, filepath.Join(dir, "set"))
	}
	const batch = 8192
	keys := make([]seen.Key, batch)
	for i := 0; i < n; i += batch {
		keys = keys[:min(batch, n-i)]
		for j := range keys {
			keys[j] = bkey(i + j)
		}
		if err := fs.set.Insert(keys); err != nil {
			b.Fatal(err)
		}
	}
	if fs.dir != "" {
		if err := fs.set.Close(); err != nil {
			b.Fatal(err)
		}
		fs.set = openStore(b, store, filepath.Join(fs.dir, "set"))
	}
	return fs
}

func benchFrontier(b *testing.B, fs *frontierSet, newPct int) {
	const batch = 8192
	keys := make([]seen.Key, batch)
	has := make([]bool, batch)
	var fresh []seen.Key
	b.ReportAllocs()
	b.SetBytes(int64(len(seen.Key{})))
	cpu0 := cpuTime()
	b.ResetTimer()
	for done := 0; done < b.N; done += batch {
		for j := range keys {
			if newPct == 100 || j%2 == 0 {
				keys[j] = bkey(fs.n) // new
				fs.n++
			} else {
				keys[j] = bkey(int(mix(uint64(fs.n)+uint64(j)) % uint64(fs.base))) // recorded
			}
		}
		if err := fs.set.Contains(keys, has); err != nil {
			b.Fatal(err)
		}
		fresh = fresh[:0]
		for j, h := range has {
			if !h {
				fresh = append(fresh, keys[j])
			}
		}
		if err := fs.set.Insert(fresh); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "keys/cpu-s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	if s, ok := fs.set.(*keylog.Set); ok {
		b.ReportMetric(float64(keylog.IndexBytes(s))/float64(s.Len()), "mem-B/key")
	}
	if fs.dir != "" {
		b.ReportMetric(float64(testfs.DirBytes(b, filepath.Join(fs.dir, "set")))/float64(fs.set.Len()), "disk-B/key")
	}
}

// cpuTime is the CPU time (user and system) the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkOpen opens a closed set of N keys: the whole log read, every
// record's checksum verified, the index built. ns/key is per key of the
// set. 10^6 keys always, 10^7 and 10^8 with URISCAN_BENCH_LARGE=1.
func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{1_000_000, 10_000_000, 100_000_000} {
		b.Run(fmt.Sprintf("keys=%.0e", float64(n)), func(b *testing.B) {
			if n > 1_000_000 && os.Getenv("URISCAN_BENCH_LARGE") == "" {
				b.Skipf("%d keys: set URISCAN_BENCH_LARGE=1", n)
			}
			root := os.Getenv("URISCAN_BENCH_DIR")
			if root == "" {
				root = b.TempDir()
			}
			fs := fillSet(b, root, "keylog", n)
			fs.set.Close()
			defer os.RemoveAll(fs.dir)
			dir := filepath.Join(fs.dir, "set")
			b.SetBytes(int64(n) * 16)
			b.ResetTimer()
			for range b.N {
				s, err := openSet(dir, anyParams)
				if err != nil {
					b.Fatal(err)
				}
				if s.Len() != int64(n) {
					b.Fatalf("Len = %d", s.Len())
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
		})
	}
}
