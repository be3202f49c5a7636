package pebble

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// SetStateEvery sets how often a Set's commits refresh its state file
// (default a second), for sets opened afterwards; it returns the old
// value.
func SetStateEvery(d time.Duration) time.Duration {
	old := stateEvery
	stateEvery = d
	return old
}

// SetFS makes Sets opened afterwards use fs (nil: the real one).
func SetFS(fs vfs.FS) { diskFS = fs }

// Lookups returns how d answered whether keys are stored: looked up in
// the store, answered by the filter, recalled from the last Contains, and
// how many filters it built from a scan.
func Lookups(d *Set) (store, filtered, recalled, rebuilt int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := d.stats
	return s.store, s.filtered, s.recalled, s.rebuilt
}

// HasFilter reports whether d keeps a filter.
func HasFilter(d *Set) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.filter != nil
}

// SetMinFilterKeys sets the smallest filter's capacity for sets opened
// afterwards; it returns the old value.
func SetMinFilterKeys(n uint64) uint64 {
	old := minFilterKeys
	minFilterKeys = n
	return old
}

// FilterFile is the name of a closed set's filter file.
const FilterFile = filterFile

// WaitIdle waits (up to 10 s) until d's store runs no flush and no
// compaction, so that a test that kills the process afterwards finds
// the files it damages live.
func WaitIdle(d *Set) {
	for range 1000 {
		var busy bool
		d.w.run(func() error {
			m := d.db.Metrics()
			busy = m.Compact.NumInProgress > 0 || m.Flush.NumInProgress > 0
			return nil
		})
		if !busy {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// FilterBytes is the size of d's filter in memory.
func FilterBytes(d *Set) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.filter.bytes()
}
