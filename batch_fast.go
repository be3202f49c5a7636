package uriscan

import "unsafe"

// fastRec is one record of the common shape taken by the batch assembly
// (see fastBatch): offsets into the scanner's data. Its layout is shared
// with batch_amd64.s.
type fastRec struct {
	start, end int32 // the record, without its "\n"
	schemeEnd  int32 // the ':' after the scheme; the host starts 3 later
	hostEnd    int32 // the end of the host: the path starts here
	pathEnd    int32
	queryEnd   int32 // with fastQuery: the query is [pathEnd+1, queryEnd)
	fragStart  int32 // with fastFragment: the fragment is [fragStart, end)
	flags      int32
}

// Why the batch assembly stopped.
const (
	fastStopFull   = iota // out is full
	fastStopWindow        // the next record may go on past the window
	fastStopShape         // the next record needs fast or the walk
)

const (
	fastQuery    = 1
	fastFragment = 2
	// fastBatchLen is how many records one assembly call may produce:
	// 1 KiB of fastRec, read back while still in L1.
	fastBatchLen = 32
)

// batch_amd64.s relies on these sizes.
var _ [unsafe.Sizeof(fastRec{}) - 32]struct{}
var _ [32 - unsafe.Sizeof(fastRec{})]struct{}
