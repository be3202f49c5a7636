//go:build !unix

package frontier

import "os"

// lockFile: no lock where flock is not available.
func lockFile(f *os.File) (held bool, err error) { return false, nil }
