// Command uriscan-stores is uriscan (see cmd/uriscan) with the disk
// (Pebble) and Redis seen-sets of dedup --store and the CPU report of
// uriscan cpu linked in. uriscan leaves them out, because Go runs the
// package init of everything a binary links and theirs would triple the
// start-up of every run, and hands the runs that need them to
// uriscan-stores: install both (make install, or go install ./cmd/...).
package main

import (
	"os"

	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/internal/cli/full"
)

func main() { os.Exit(cli.Main(full.Stores)) }
