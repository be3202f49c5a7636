//go:build !linux || race

package seen

// tableMap: tables are the heap's here (see table_linux.go); under the
// race detector too, which watches the heap's memory only.
type tableMap struct{}

// newTable returns a zeroed table of n slots from the heap.
func newTable(n uint64, reserve bool) ([]slot, *tableMap) { return make([]slot, n), nil }

// freeTable leaves a heap table to the collector.
func freeTable(*tableMap) {}
