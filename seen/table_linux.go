//go:build linux && !race

package seen

import (
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of a transparent huge page on amd64 and arm64
// (with 4 KiB base pages), hugeMin the smallest reserved table mapped on
// its own: smaller ones are the heap's.
const (
	hugePage = 2 << 20
	hugeMin  = 2 * hugePage
)

// tableMap is a table mapped on its own (its address and length): the
// Memory that uses it holds it, and a Memory dropped without Close is
// unmapped by the cleanup once it is collected, as a heap table is freed.
type tableMap struct {
	addr    unsafe.Pointer
	size    uintptr
	cleanup runtime.Cleanup
}

// newTable returns a zeroed table of n slots, and its mapping if it is
// mapped on its own (then freeTable unmaps it; nil for the heap's).
//
// A table that doubles as keys come (reserve false) is the heap's: its
// pages are mapped as the migration writes them (see own), a few at each
// Add, which keeps every Add short. A reserved table (NewMemory's size
// hint, Grow: reserve true) of 4 MiB or more is an anonymous mapping
// aligned to 2 MiB, advised for transparent huge pages (MADV_HUGEPAGE:
// the kernel's "madvise" mode, Debian's default, gives them only where
// asked; makeTable writes it through, so that the call that reserves
// pays for mapping it, not the Adds after): a random probe then misses
// the TLB far less often, and the table faults in 512 times fewer faults.
// Where the mapping fails the heap is used; where huge pages are off, the
// mapping still works, with 4 KiB pages.
func newTable(n uint64, reserve bool) ([]slot, *tableMap) {
	size := n * uint64(unsafe.Sizeof(slot{}))
	if !reserve || size < hugeMin || size > 1<<46 {
		return make([]slot, n), nil
	}
	// Mapped 2 MiB longer, then aligned: what lies before the first 2
	// MiB boundary and after the table is unmapped. (unix.MmapPtr, not
	// syscall.Mmap, whose Munmap takes only the whole mapping it made.)
	m, err := unix.MmapPtr(-1, 0, nil, uintptr(size)+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return make([]slot, n), nil
	}
	skip := (hugePage - uintptr(m)%hugePage) % hugePage
	if skip > 0 {
		unix.MunmapPtr(m, skip)
	}
	if tail := hugePage - skip; tail > 0 {
		unix.MunmapPtr(unsafe.Add(m, skip+uintptr(size)), tail)
	}
	tm := &tableMap{addr: unsafe.Add(m, skip), size: uintptr(size)}
	t := unsafe.Slice((*byte)(tm.addr), tm.size)
	unix.Madvise(t, unix.MADV_HUGEPAGE) // advice: an error leaves 4 KiB pages
	tm.cleanup = runtime.AddCleanup(tm, func(m tableMap) { unix.MunmapPtr(m.addr, m.size) }, tableMap{addr: tm.addr, size: tm.size})
	return unsafe.Slice((*slot)(tm.addr), n), tm
}

// freeTable unmaps a table newTable mapped on its own (tm not nil);
// nothing may use it after.
func freeTable(tm *tableMap) {
	if tm != nil && tm.addr != nil {
		tm.cleanup.Stop()
		unix.MunmapPtr(tm.addr, tm.size)
		tm.addr = nil // once, whoever holds tm
	}
}
