package keylog

import "github.com/uriscan/uriscan/seen/internal/store"

// stateFile is the name of a set's state file in its directory (see
// "Identity, count and damage" on Set).
const stateFile = store.StateFile

// lockFile is the file a Set locks in its directory.
const lockFile = "uriscan-seen.lock"

// format names the set's layout in its state file and Params.
const format = "uriscan/seen keylog v1"

type state = store.State

// readState reads dir's state file; nil if there is none.
func readState(dir string) (*state, error) { return store.ReadState(dir, format, ErrNotSet) }

// writeState replaces dir's state file atomically.
func writeState(dir string, s state) error { return store.WriteState(dir, s) }
