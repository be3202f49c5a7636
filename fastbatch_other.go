//go:build !amd64 || !gc || purego || noasm

package uriscan

// There is no batch assembly here (cpufeat.BatchBMI2 is false, and so is
// every engine's fastBatch); fast and the walk take every record.

func (w *walker) fastBatch(pos int, out *[fastBatchLen]uriFields) (n, stop int) {
	return 0, fastStopShape
}

// parseAsm: parse does not call it here (engine.fastBatch is false).
func parseAsm(u *URI, s string, m *[3]blockMasks, k kernelID) bool { return false }
