// Package atomicfile replaces small files atomically and durably, for the
// records that say what a crash left behind (dedup's checkpoint, a disk
// seen-set's state file).
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Write replaces the file name with data: written to a new file beside
// it (name + ".tmp" and a random suffix, so that two writers never share
// one), synced, renamed over it, and the directory synced, so that after a
// crash of the process or of the operating system the file holds the old
// data or the new, and the new once Write returns. On an error before the
// rename, the temporary file is removed and name is left as it was; an
// error syncing the directory after the rename leaves the new data in
// place, not yet known to be durable.
func Write(name string, data []byte) error {
	return writeFile(name, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteFunc is Write of what write writes (through a buffer), for data
// too large to hold twice in memory.
func WriteFunc(name string, write func(io.Writer) error) error {
	return writeFile(name, func(f *os.File) error {
		bw := bufio.NewWriterSize(f, 256<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

func writeFile(name string, write func(*os.File) error) error {
	f, err := os.CreateTemp(filepath.Dir(name), filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, name)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	// The rename is on disk only once the directory is.
	return SyncDir(filepath.Dir(name))
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

// RemoveStale removes the temporary files that Writes of name left behind
// when their process was killed before the rename (name + ".tmp" and the
// digits os.CreateTemp adds: nothing else, so that a user's
// name.tmp.bak stays), and returns how many it removed. Only a caller that holds what
// keeps other writers of name out (a lock) may call it: another writer's
// temporary file would go too.
func RemoveStale(name string) (int, error) {
	dir, base := filepath.Dir(name), filepath.Base(name)+".tmp"
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		digits, ok := strings.CutPrefix(e.Name(), base)
		if !e.Type().IsRegular() || !ok || digits == "" || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	return n, nil
}
