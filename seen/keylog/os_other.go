//go:build !unix

package keylog

import "os"

// mapLog maps nothing here: the set keeps a copy of the log in memory.
func mapLog(f *os.File, size int64) ([]byte, error) { return nil, nil }

func unmapLog(b []byte) error { return nil }

// lockFd locks nothing here: only the set's table of the directories this
// process has open keeps two Opens apart.
func lockFd(f *os.File) error { return nil }
