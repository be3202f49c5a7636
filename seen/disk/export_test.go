package disk

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// SetStateEvery sets how often a Set's commits refresh its state file
// (default a second), for sets opened afterwards; it returns the old
// value.
func SetStateEvery(d time.Duration) time.Duration {
	old := stateEvery
	stateEvery = d
	return old
}

// SetFS makes Sets opened afterwards use fs (nil: the real one).
func SetFS(fs vfs.FS) { diskFS = fs }
