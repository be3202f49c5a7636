package cli

import (
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWidenPipe: widenPipe makes a pipe hold pipeSize bytes, and leaves
// a file that is not a pipe alone.
func TestWidenPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	before, err := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if err != nil {
		t.Skip(err)
	}
	widenPipe(w)
	after, _ := unix.FcntlInt(w.Fd(), unix.F_GETPIPE_SZ, 0)
	if after != pipeSize {
		t.Errorf("a pipe of %d bytes is %d after widenPipe, want %d", before, after, pipeSize)
	}
	f, err := os.CreateTemp(t.TempDir(), "f")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	widenPipe(f) // a file: nothing to do, nothing to fail
}
