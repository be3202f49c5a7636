// Package atomicfile replaces small files atomically and durably, for the
// records that say what a crash left behind (dedup's checkpoint, a disk
// seen-set's state file).
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces the file name with data: written beside it (name +
// ".tmp"), synced, renamed over it, and the directory synced, so that
// after a crash of the process or of the operating system the file holds
// the old data or the new, and the new once Write returns. On an error
// the temporary file is removed and name is left as it was.
func Write(name string, data []byte) error {
	tmp := name + ".tmp"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err == nil {
		// The rename is on disk only once the directory is.
		err = SyncDir(filepath.Dir(name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// SyncDir syncs a directory, so that the names created or renamed in it
// are on disk.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
