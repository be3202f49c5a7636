package uriscan

import "unsafe"

// Why the batch assembly stopped (fastbatch_amd64.s returns these, as
// const_fastStop* from go_asm.h).
const (
	fastStopFull   = iota // out is full
	fastStopWindow        // the next record may go on past the window
	fastStopShape         // the next record needs fast or the walk
)

// fastBatchLen is how many records one batch assembly call may produce,
// as uriFields (72 bytes each, read back while still in L1).
const fastBatchLen = 32

// What fastbatch_amd64.s writes into a uriFields, derived here from its
// layout so that the assembly types none of it (go_asm.h gives each as
// const_fast...; span_end and uriFields_* come from the types).
const (
	// fastOffScheme and the others are the byte offsets of the
	// components' spans in a uriFields.
	fastOffScheme = unsafe.Offsetof(uriFields{}.spans) + uintptr(Scheme)*unsafe.Sizeof(span{})
	fastOffHost   = unsafe.Offsetof(uriFields{}.spans) + uintptr(Host)*unsafe.Sizeof(span{})
	fastOffPath   = unsafe.Offsetof(uriFields{}.spans) + uintptr(Path)*unsafe.Sizeof(span{})
	fastOffQuery  = unsafe.Offsetof(uriFields{}.spans) + uintptr(Query)*unsafe.Sizeof(span{})
	fastOffFrag   = unsafe.Offsetof(uriFields{}.spans) + uintptr(Fragment)*unsafe.Sizeof(span{})

	// The assembly writes one 8-byte word at uriFields.defined: the
	// defined bits, then hostType RegName; portOK, port and grammar
	// (RFC3986) zero. One word per shape of record it takes.
	fastFlagsPath     = 1<<Scheme | 1<<Host | 1<<Path | uint64(RegName)<<(8*fastHostTypeShift)
	fastFlagsQuery    = fastFlagsPath | 1<<Query
	fastFlagsFragment = fastFlagsPath | 1<<Fragment
	fastFlagsBoth     = fastFlagsPath | 1<<Query | 1<<Fragment
	fastHostTypeShift = unsafe.Offsetof(uriFields{}.hostType) - unsafe.Offsetof(uriFields{}.defined)
)

// The flags word covers defined, hostType, portOK, port and grammar, and
// nothing else: each starts within the 8 bytes after defined, and the
// struct ends with them.
var (
	_ [8 - (unsafe.Offsetof(uriFields{}.grammar) + unsafe.Sizeof(uriFields{}.grammar) - unsafe.Offsetof(uriFields{}.defined))]struct{}
	_ [unsafe.Sizeof(uriFields{}) - unsafe.Offsetof(uriFields{}.defined) - 8]struct{}
	_ [8 - (unsafe.Sizeof(uriFields{}) - unsafe.Offsetof(uriFields{}.defined))]struct{}
	_ [-int(RFC3986)]struct{} // a zero grammar is RFC 3986's
	// The assembly parks event k in the span at fastOffQuery + 8*k.
	_ [fastOffFrag - fastOffQuery - 8]struct{}
	_ [8 - (fastOffFrag - fastOffQuery)]struct{}
)

// The Go reference of the batch assembly. fastBatchBMI2 is specified as
// fastBatchRef: the Go fast path (fast), restricted to the records
// batchShape admits. The differential tests (TestFastBatchRef,
// FuzzFastBatch) compare the two record by record: n, stop and every
// defined component, on every record of every input they scan.

// batchShape reports whether a record that fast took has the shape the
// batch assembly takes:
//
//	("http" / "https" / "file") "://" reg-name path [ "?" query ] [ "#" fragment ]
//
// (no userinfo, no port), with a host that mayBeIPv4 lets through left to
// Go (the assembly does not run isIPv4). Every other condition (the
// record's "\n" in the window, no invalid byte, every "%" a pct-encoded,
// at most two "?" or "#" events, a long record's host in its first 64
// bytes) is fast's own.
func batchShape(u *URI) bool {
	return u.defined&(1<<Scheme|1<<Host|1<<Userinfo|1<<Port) == 1<<Scheme|1<<Host &&
		commonScheme(u.Get(Scheme)) && !mayBeIPv4(u.Get(Host))
}

// fastBatchRef is what fastBatchBMI2 must do, written with fast: it takes
// records from pos into out while fast takes them and batchShape admits
// them, and says why it stopped as fastBatchBMI2 does (fastStopFull,
// fastStopWindow when fast needs a window that starts at the record and
// what it read of it is in shape, fastStopShape otherwise). Only the
// defined components, start, end and the flags of each record are
// specified: the assembly leaves other spans as it likes.
func (w *walker) fastBatchRef(pos int, out *[fastBatchLen]uriFields) (n, stop int) {
	u := URI{src: w.src}
	for ; n < fastBatchLen; n++ {
		u.defined, u.hostType, u.portOK, u.port = 0, NoHost, false, 0
		end, ok := w.fast(&u, pos)
		switch {
		case end == fastWindowEnd && (u.defined == 0 || batchShape(&u)):
			// The record may run past the window (its head, when fast
			// read it, in shape): the assembly, too, decides the shape of
			// a long record's first 64 bytes before it follows the rest.
			return n, fastStopWindow
		case !ok || !batchShape(&u):
			return n, fastStopShape
		}
		u.start, u.end = int32(pos), int32(end)
		out[n] = u.uriFields
		pos = end + 1
	}
	return n, fastStopFull
}
