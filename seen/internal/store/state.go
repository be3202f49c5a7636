package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uriscan/uriscan/internal/atomicfile"
)

// RemoveStaleState removes the temporary files a WriteState killed before
// its rename left in dir; the caller holds dir's lock.
func RemoveStaleState(dir string) error {
	_, err := atomicfile.RemoveStale(filepath.Join(dir, StateFile))
	return err
}

// StateFile is the name of a disk set's state file in its directory.
const StateFile = "uriscan-seen.json"

// State is what a disk set's directory records beside its store (a
// Pebble store, a key log), so that a store that vanished, was replaced
// or lost keys is noticed.
type State struct {
	Format string `json:"format"`
	// ID is the set's identity, the same as its store's.
	ID string `json:"id"`
	// Count is the number of keys at the last Close (at the last open or
	// refresh while Open is true): the store holds at least that many.
	Count int64 `json:"count"`
	// Open is true from Open to Close: a process that was killed leaves
	// it true.
	Open bool `json:"open"`
}

// ReadState reads dir's state file; nil if there is none. A file of
// another format is an error wrapping notSet; one whose checksum does not
// match (it is sealed: atomicfile.SealJSON) an error wrapping
// atomicfile.ErrSeal. A file of an earlier version, unsealed, is read as
// it is; WriteState seals it.
func ReadState(dir, format string, notSet error) (*State, error) {
	name := filepath.Join(dir, StateFile)
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	obj, _, err := atomicfile.UnsealJSON(b)
	if err != nil {
		return nil, fmt.Errorf("its state file %s is damaged: %w", name, err)
	}
	var s State
	if err := json.Unmarshal(obj, &s); err != nil || s.ID == "" {
		if err == nil {
			err = errors.New("no identity")
		}
		return nil, fmt.Errorf("its state file %s is not what uriscan wrote (%v)", name, err)
	}
	if s.Format != format {
		return nil, fmt.Errorf("%w: %s records the format %q, want %q", notSet, name, s.Format, format)
	}
	return &s, nil
}

// WriteState replaces dir's state file atomically, sealed with its
// checksum.
func WriteState(dir string, s State) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, StateFile)
	if err := atomicfile.Write(name, append(atomicfile.SealJSON(b), '\n')); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	return nil
}
