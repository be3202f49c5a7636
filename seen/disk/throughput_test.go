package disk_test

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/disk"
)

// frontierSet is a set filled with n keys for BenchmarkDiskFrontier,
// kept across the benchmark's runs (filling 10^8 keys takes minutes).
type frontierSet struct {
	set  seen.Set
	n    int // keys inserted so far: damageKey(0..n-1)
	base int // keys before the benchmark: the recorded ones are among them
	dir  string
}

// BenchmarkDiskFrontier is what a crawler's frontier does to its seen-set
// (uriscan dedup, package frontier): per batch of 8192 keys, Contains,
// then Insert of the keys found new (one synced commit). The set holds N
// keys first; new=100% is a batch of keys never seen (a crawl's first
// pass, dedup of distinct URLs), new=50% has every other key recorded
// before (at random among the N). keys/s counts the keys looked up, new
// or not; mem-B/key is the filter's memory per key.
//
// Peers in the same run: the disk set without its filter
// (FilterRate -1: every key looked up in Pebble, once) and seen.Memory.
// N = 100k always; 1M, 10M and 100M with URISCAN_BENCH_LARGE=1 (10M
// fills in about a minute; 100M needs about 4 GB of disk and 15
// minutes), filled once per store and N, in $URISCAN_BENCH_DIR if set,
// then closed and opened again, as a crawler's next run finds it.
func BenchmarkDiskFrontier(b *testing.B) {
	sets := map[string]*frontierSet{}
	root := os.Getenv("URISCAN_BENCH_DIR")
	if root == "" {
		root = b.TempDir() // (a sub-benchmark's goes with each of its runs)
	}
	defer func() {
		for _, s := range sets {
			s.set.Close()
		}
	}()
	for _, n := range []int{100_000, 1_000_000, 10_000_000, 100_000_000} {
		for _, store := range []string{"disk", "disk-nofilter", "memory"} {
			for _, newPct := range []int{100, 50} {
				name := fmt.Sprintf("keys=%.0e/store=%s/new=%d%%", float64(n), store, newPct)
				b.Run(name, func(b *testing.B) {
					if n > 100_000 && os.Getenv("URISCAN_BENCH_LARGE") == "" {
						b.Skipf("%d keys: set URISCAN_BENCH_LARGE=1", n)
					}
					fs := sets[fmt.Sprint(store, n)]
					if fs == nil {
						// The previous N's sets are done with.
						for k, s := range sets {
							s.set.Close()
							if s.dir != "" {
								os.RemoveAll(s.dir)
							}
							delete(sets, k)
						}
						fs = fillFrontierSet(b, root, store, n)
						sets[fmt.Sprint(store, n)] = fs
					}
					benchFrontier(b, fs, newPct)
				})
			}
		}
	}
}

func fillFrontierSet(b *testing.B, root, store string, n int) (fs *frontierSet) {
	b.Helper()
	var set seen.Set
	var fs0dir string
	var fs0opts *disk.Options
	switch store {
	case "memory":
		set = seen.NewMemory(n)
	default:
		dir, err := os.MkdirTemp(root, "frontier-set-")
		if err != nil {
			b.Fatal(err)
		}
		o := &disk.Options{AnyParams: true}
		if store == "disk-nofilter" {
			o.FilterRate = -1
		}
		d, err := disk.Open(filepath.Join(dir, "set"), o)
		if err != nil {
			b.Fatal(err)
		}
		set = d
		fs0dir, fs0opts = dir, o
		defer func() { fs.dir = dir }()
	}
	const batch = 8192
	keys := make([]seen.Key, batch)
	for i := 0; i < n; i += batch {
		keys = keys[:min(batch, n-i)]
		for j := range keys {
			keys[j] = damageKey(i + j)
		}
		if err := set.Insert(keys); err != nil {
			b.Fatal(err)
		}
	}
	if d, ok := set.(*disk.Set); ok {
		// Reopened, as a crawler's next run opens it: with the memtables
		// Open sizes to the set (Options.MemTableSize), and the filter
		// read back from the file Close wrote.
		if err := d.Close(); err != nil {
			b.Fatal(err)
		}
		d, err := disk.Open(filepath.Join(fs0dir, "set"), fs0opts)
		if err != nil {
			b.Fatal(err)
		}
		set = d
	}
	fs = &frontierSet{set: set, n: n, base: n}
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
				keys[j] = damageKey(fs.n) // new
				fs.n++
			} else {
				keys[j] = damageKey(int(uint64(fs.n) * 0x9e3779b97f4a7c15 % uint64(fs.base))) // recorded
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
	// CPU time of the whole process (compactions included) per key: the
	// keys/s one core would do.
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(b.N)/cpu.Seconds(), "keys/cpu-s")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
	if d, ok := fs.set.(*disk.Set); ok && disk.HasFilter(d) {
		b.ReportMetric(float64(disk.FilterBytes(d))/float64(fs.set.Len()), "mem-B/key")
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
