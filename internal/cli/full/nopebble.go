//go:build !pebble

package full

import (
	"errors"
	"fmt"

	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/seen"
)

// Pebble says whether this build links the Pebble store (the pebble tag).
const Pebble = false

// ErrNoPebble is what a build without the pebble tag says of a Pebble
// store: pebble:DIR, or disk:DIR over a Pebble set an earlier version
// made.
var ErrNoPebble = errors.New("this uriscan is built without the Pebble store: install the one with it (from a clone: make install-pebble, or go install -tags pebble ./cmd/uriscan), or move the set to a key log (docs/dedup.md, \"Pebble\")")

// openPebble refuses: Pebble is not linked.
func openPebble(dir string, _ seen.Params, _ cli.StoreOptions) (seen.Set, error) {
	return nil, fmt.Errorf("Pebble set %s: %w", dir, ErrNoPebble)
}

func pebbleDamaged(error) bool { return false }
