//go:build !uriscan_pathstats

package pathstats

// Enabled reports whether counting is compiled in.
const Enabled = false

// Add does nothing without the uriscan_pathstats tag, and is inlined away.
func Add(Path, int) {}

// Snapshot returns zeros without the uriscan_pathstats tag.
func Snapshot() (c Counts) { return c }
