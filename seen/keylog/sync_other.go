//go:build !linux

package keylog

import "os"

// syncData makes f's data durable (os.File.Sync: fsync, F_FULLFSYNC on
// Darwin).
func syncData(f *os.File) error { return f.Sync() }
