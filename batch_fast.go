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

// takeRec sets u and the scanner's record from r.
func (s *LineScanner) takeRec(r *fastRec) {
	u := &s.u
	u.hostType, u.portOK, u.port = RegName, false, 0
	u.spans[Scheme] = span{r.start, r.schemeEnd}
	u.spans[Host] = span{r.schemeEnd + 3, r.hostEnd}
	u.spans[Path] = span{r.hostEnd, r.pathEnd}
	defined := uint8(1<<Scheme | 1<<Host | 1<<Path)
	if r.flags&fastQuery != 0 {
		u.spans[Query] = span{r.pathEnd + 1, r.queryEnd}
		defined |= 1 << Query
	}
	if r.flags&fastFragment != 0 {
		u.spans[Fragment] = span{r.fragStart, r.end}
		defined |= 1 << Fragment
	}
	u.defined = defined
	start, end := int(r.start), int(r.end)
	u.start, u.end = r.start, r.end
	s.start, s.end, s.valid, s.pos = start, end, true, end+1
	s.line++
}
