//go:build unix

package lineio

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the first size bytes of f read-only, for the workers to
// scan in place (no read(2) copying the page cache into a buffer). No
// madvise: MADV_SEQUENTIAL, MADV_WILLNEED and MAP_POPULATE measured no
// faster on a file in the page cache.
func mapFile(f *os.File, size int64) ([]byte, error) {
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(m []byte) error { return unix.Munmap(m) }

// dropPages tells the kernel that the whole pages of m[from:to] will not
// be read again: their page table entries go (the pages stay in the page
// cache), so that the process's resident memory is the chunks in flight,
// not the part of the file read so far. (MADV_DONTNEED on a shared file
// mapping, rather than unmapping windows: the mapping stays one slice the
// chunks point into, and a later read of a dropped page, such as the
// first of the next chunk, faults it back in from the page cache.) It
// returns where the pages were dropped up to (to, rounded down to a
// page), the from of the next call. golang.org/x/sys/unix has madvise on
// every unix (package syscall only on Linux).
func dropPages(m []byte, from, to int) int {
	page := os.Getpagesize()
	from &^= page - 1
	to &^= page - 1
	if from < to {
		unix.Madvise(m[from:to], unix.MADV_DONTNEED)
		return to
	}
	return from
}
