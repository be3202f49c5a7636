//go:build pebble

package full

import (
	"errors"

	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
)

// Pebble says whether this build links the Pebble store (the pebble tag).
const Pebble = true

// openPebble opens (or creates) the Pebble seen-set in dir.
func openPebble(dir string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	return pebble.Open(dir, &pebble.Options{Params: params, Recover: so.Recover, MustExist: so.MustExist})
}

func pebbleDamaged(err error) bool { return errors.Is(err, pebble.ErrDamaged) }
