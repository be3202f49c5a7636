//go:build !amd64 || !gc || purego || noasm

package uriscan

// useFastBatch: there is no batch assembly here; fast and the walk take
// every record.
var useFastBatch = false

func (w *walker) fastBatch(pos int, out *[fastBatchLen]uriFields) (n, stop int) {
	return 0, fastStopShape
}

// parseAsm: parse does not call it here (useFastBatch is false).
func parseAsm(u *URI, s string, m *[3]blockMasks) bool { return false }
