//go:build (amd64 || arm64) && gc && !purego && !noasm

package seen

// prefetchSlots asks the processor to fetch the home slot of each key of
// keys in table t (of mask len(t)-1) into the cache, and returns at once:
// a prefetch instruction (PREFETCHT0, PRFM PLDL1KEEP) is a hint that
// neither waits for the line nor faults, so a batch's misses overlap with
// the adds of the batch before (see addBatch). A plain load, as in
// prefetchSlotsGo, holds the processor's reorder buffer until its line
// comes.
//
//go:noescape
func prefetchSlots(t []slot, mask uint64, keys []Key)
