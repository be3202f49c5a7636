package uriscan

import "unsafe"

// Why the batch assembly stopped.
const (
	fastStopFull   = iota // out is full
	fastStopWindow        // the next record may go on past the window
	fastStopShape         // the next record needs fast or the walk
)

// fastBatchLen is how many records one batch assembly call may produce,
// as uriFields (72 bytes each, read back while still in L1).
const fastBatchLen = 32

// batch_amd64.s writes uriFields with this layout: start 0, end 4, the
// span of component c at 8+8c, defined 64, hostType 65, portOK 66, port 68.
var (
	_ [unsafe.Offsetof(uriFields{}.spans) - 8]struct{}
	_ [8 - unsafe.Offsetof(uriFields{}.spans)]struct{}
	_ [unsafe.Offsetof(uriFields{}.defined) - 64]struct{}
	_ [64 - unsafe.Offsetof(uriFields{}.defined)]struct{}
	_ [unsafe.Offsetof(uriFields{}.port) - 68]struct{}
	_ [68 - unsafe.Offsetof(uriFields{}.port)]struct{}
	_ [unsafe.Sizeof(uriFields{}) - 72]struct{}
	_ [72 - unsafe.Sizeof(uriFields{})]struct{}
)
