//go:build unix

package keylog

import (
	"errors"
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// mapLog maps size bytes of the log f read-only (size may pass the end of
// the file: the set reads only what it wrote), or returns nil, nil where
// the system cannot, and the set keeps a copy of the log in memory.
func mapLog(f *os.File, size int64) ([]byte, error) {
	if size == 0 || runtime.GOOS == "openbsd" {
		// (OpenBSD's mappings are not kept coherent with write(2).)
		return nil, nil
	}
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapLog(b []byte) error {
	if b == nil {
		return nil
	}
	return unix.Munmap(b)
}

// lockFd takes an exclusive, non-blocking flock of f; errLockHeld if
// another open file description (this process's or another's) holds it.
func lockFd(f *os.File) error {
	err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN) {
		return errLockHeld
	}
	return err
}
