package cli_test

import (
	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/internal/cli/full"
)

// The tests run the command with the stores linked in, as cmd/uriscan
// does: in process (cli, run) and in the children of the kill tests
// (TestMain), which this init precedes. The binary itself is tested in
// cmd/uriscan (TestBinary).
func init() { cli.SetStores(full.Stores) }
