package keylog

import (
	"os"

	"golang.org/x/sys/unix"
)

// syncData makes f's data durable: fdatasync, which skips the times
// that fsync also writes.
func syncData(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}
