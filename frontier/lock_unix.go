//go:build unix

package frontier

import (
	"errors"
	"os"
	"syscall"
)

// lockFile takes an exclusive lock on f (flock), without waiting.
func lockFile(f *os.File) (held bool, err error) {
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	return false, err
}
