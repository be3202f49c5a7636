//go:build (!amd64 && !arm64) || !gc || purego || noasm

package seen

// prefetchSlots reads the home slot of each key (see the assembly
// version, and prefetchSlotsGo).
func prefetchSlots(t []slot, mask uint64, keys []Key) { prefetchSlotsGo(t, mask, keys) }
