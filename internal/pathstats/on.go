//go:build uriscan_pathstats

package pathstats

import "sync/atomic"

// Enabled reports whether counting is compiled in.
const Enabled = true

var counts [NumPaths]atomic.Uint64

// Add counts n units of work done by p.
func Add(p Path, n int) { counts[p].Add(uint64(n)) }

// Snapshot returns the counters now.
func Snapshot() (c Counts) {
	for i := range c {
		c[i] = counts[i].Load()
	}
	return c
}
