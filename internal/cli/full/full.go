// Package full is what the lean uriscan binary leaves out of the command
// (package cli): the persistent seen-sets, seen/disk (Pebble) and
// seen/redis (go-redis), and the CPU report of uriscan cpu
// (klauspost/cpuid). cmd/uriscan-stores runs cli.Main(full.Stores); the
// tests of package cli link it too.
package full

import (
	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/disk"
	redisstore "github.com/uriscan/uriscan/seen/redis"
)

// Stores are the stores and the CPU report, for cli.Main.
var Stores = cli.Stores{
	OpenDisk:   openDisk,
	OpenRedis:  openRedis,
	ErrDamaged: disk.ErrDamaged,
	CPU:        cpuLines,
}

// openDisk opens (or creates) the Pebble seen-set in dir.
func openDisk(dir string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	return disk.Open(dir, &disk.Options{Params: params, Recover: so.Recover, MustExist: so.MustExist})
}

// openRedis opens the Redis seen-set spec names.
func openRedis(spec, prefix string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	return redisstore.OpenURL(spec, &redisstore.Options{Prefix: prefix, Params: params, Recover: so.Recover})
}
