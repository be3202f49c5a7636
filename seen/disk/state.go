package disk

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uriscan/uriscan/internal/atomicfile"
)

// diskStateFile is the name of a Disk's state file in its directory.
const diskStateFile = "uriscan-seen.json"

// diskState is what a Disk's directory records outside the Pebble store,
// so that a store that vanished, was replaced or lost keys is noticed
// (see "Identity, count and damage" on Set).
type diskState struct {
	Format string `json:"format"`
	// ID is the set's identity, the same as the store's "m/id" record.
	ID string `json:"id"`
	// Count is the number of keys at the last Close (at the last open
	// while Open is true): the store holds at least that many.
	Count int64 `json:"count"`
	// Open is true from Open to Close: a process that was killed
	// leaves it true, and the next Open counts the keys.
	Open bool `json:"open"`
}

// readDiskState reads dir's state file; nil if there is none.
func readDiskState(dir string) (*diskState, error) {
	name := filepath.Join(dir, diskStateFile)
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s diskState
	if err := json.Unmarshal(b, &s); err != nil || s.ID == "" {
		if err == nil {
			err = errors.New("no identity")
		}
		return nil, fmt.Errorf("its state file %s is not what uriscan wrote (%v)", name, err)
	}
	if s.Format != diskFormat {
		return nil, fmt.Errorf("%w: %s records the format %q, want %q", ErrNotSet, name, s.Format, diskFormat)
	}
	return &s, nil
}

// writeDiskState replaces dir's state file atomically.
func writeDiskState(dir string, s diskState) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, diskStateFile)
	if err := atomicfile.Write(name, append(b, '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
