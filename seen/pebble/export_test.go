package pebble

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// opts returns a copy of o (nil: the zero Options) that f changes.
func opts(o *Options, f func(*Options)) *Options {
	var c Options
	if o != nil {
		c = *o
	}
	f(&c)
	return &c
}

// StateEveryCommit returns o with the state file's count refreshed after
// every commit, not once a second.
func StateEveryCommit(o *Options) *Options { return opts(o, func(c *Options) { c.stateAlways = true }) }

// WithFS returns o with Pebble on fs.
func WithFS(o *Options, fs vfs.FS) *Options { return opts(o, func(c *Options) { c.fs = fs }) }

// WithMinFilterKeys returns o with n the smallest filter's capacity.
func WithMinFilterKeys(o *Options, n uint64) *Options {
	return opts(o, func(c *Options) { c.minFilterKeys = n })
}

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
