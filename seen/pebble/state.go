package pebble

import "github.com/uriscan/uriscan/seen/internal/store"

// diskStateFile is the name of a Disk's state file in its directory.
const diskStateFile = store.StateFile

// diskState is what a Disk's directory records outside the Pebble store
// (see "Identity, count and damage" on Set).
type diskState = store.State

// readDiskState reads dir's state file; nil if there is none.
func readDiskState(dir string) (*diskState, error) {
	return store.ReadState(dir, diskFormat, ErrNotSet)
}

// writeDiskState replaces dir's state file atomically.
func writeDiskState(dir string, s diskState) error { return store.WriteState(dir, s) }
