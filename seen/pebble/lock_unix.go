//go:build unix

package pebble

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// isLockError reports whether err, from pebble.Open, says that the
// directory's LOCK file is held, and whether by this process (here).
// Pebble takes an fcntl write lock (F_SETLK), which fails with EAGAIN or
// EACCES, returned unwrapped, while another process holds it; within one
// process it keeps a table of its locks and fails with "lock held by
// current process" first. A *fs.PathError with EACCES is a permission
// problem (creating the file), not a lock.
func isLockError(err error) (locked, here bool) {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return false, false
	}
	if strings.Contains(err.Error(), "lock held by current process") {
		return true, true
	}
	return errors.Is(err, syscall.EAGAIN) || errors.Is(err, syscall.EACCES), false
}
