//go:build !unix

package pebble

import "strings"

// isLockError reports whether err, from pebble.Open, says that the
// directory's LOCK file is held by this process (here). Where a lock held
// by another process fails is system-specific; it is not recognized here.
func isLockError(err error) (locked, here bool) {
	if strings.Contains(err.Error(), "lock held by current process") {
		return true, true
	}
	return false, false
}
