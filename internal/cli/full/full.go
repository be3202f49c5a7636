// Package full is what the lean uriscan binary leaves out of the command
// (package cli): the persistent seen-sets, seen/keylog, seen/disk
// (Pebble) and seen/redis (go-redis), the CPU report of uriscan cpu
// (klauspost/cpuid), and the Public Suffix List (package domain; x/net's
// list links net/http). cmd/uriscan-stores runs cli.Main(full.Stores); the
// tests of package cli link it too.
package full

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/uriscan/uriscan/domain"
	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/disk"
	"github.com/uriscan/uriscan/seen/keylog"
	redisstore "github.com/uriscan/uriscan/seen/redis"
)

// Stores are the stores and the CPU report, for cli.Main.
var Stores = cli.Stores{
	OpenDisk:   openDisk,
	OpenPebble: openPebble,
	OpenRedis:  openRedis,
	Damaged:    damaged,
	CPU:        cpuLines,
	NewSplit:   newSplit,
}

// newSplit is a host splitter of package domain (the Public Suffix List),
// ICANN rules or with private the private section too.
func newSplit(private bool) func(host string) (subdomain, registrable, suffix string, ok bool) {
	if private {
		return domain.NewSplitFunc(domain.Private)
	}
	return domain.NewSplitFunc(domain.ICANN)
}

// openDisk opens (or creates) the disk seen-set in dir: a key log
// (seen/keylog), or the Pebble set (seen/disk) that an earlier version or
// --store pebble:DIR made there.
func openDisk(dir string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	if isPebbleSet(dir) {
		return openPebble(dir, params, so)
	}
	return keylog.Open(dir, &keylog.Options{Params: params, Recover: so.Recover, MustExist: so.MustExist})
}

// openPebble opens (or creates) the Pebble seen-set in dir.
func openPebble(dir string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	return disk.Open(dir, &disk.Options{Params: params, Recover: so.Recover, MustExist: so.MustExist})
}

// isPebbleSet reports whether dir holds a Pebble store or a seen/disk
// set's files, and no key log.
func isPebbleSet(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "keys.log")); err == nil {
		return false
	}
	for _, name := range []string{"CURRENT", "uriscan-seen.bloom"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return true
		}
	}
	m, _ := filepath.Glob(filepath.Join(dir, "marker.manifest.*"))
	if len(m) > 0 {
		return true
	}
	b, err := os.ReadFile(filepath.Join(dir, "uriscan-seen.json"))
	return err == nil && bytes.Contains(b, []byte(`"uriscan/seen disk v1"`))
}

// damaged reports whether err says a disk store is damaged.
func damaged(err error) bool {
	return errors.Is(err, keylog.ErrDamaged) || errors.Is(err, disk.ErrDamaged)
}

// openRedis opens the Redis seen-set spec names, with so.Password
// where spec has no password (a password in the URL wins).
func openRedis(spec, prefix string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	return redisstore.OpenURL(spec, &redisstore.Options{Prefix: prefix, Params: params, Recover: so.Recover, Password: so.Password})
}
