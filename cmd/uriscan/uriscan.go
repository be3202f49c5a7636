// Command uriscan checks, splits and resolves URI references (RFC 3986),
// one per input line.
//
// Usage:
//
//	uriscan COMMAND [FLAGS] [FILE...]
//
// FILEs are read in order; "-" (or no FILE at all) is standard input, and a
// gzip, zstd or bzip2 FILE (told by its magic number) is decompressed (xz is refused). Run "uriscan help" for the
// commands.
package main

import (
	"os"

	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/internal/cli/full"
)

func main() { os.Exit(cli.Main(full.Stores)) }
