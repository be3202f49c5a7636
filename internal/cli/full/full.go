// Package full is what the command (package cli) takes from other
// packages: the persistent seen-sets, seen/keylog and seen/redis
// (go-redis), and seen/pebble (Pebble) in a build with the pebble tag; and
// the Public Suffix List
// (package domain). cmd/uriscan runs cli.Main(full.Stores); the tests of
// package cli link it too.
//
// Pebble is left out of the default build: its dependencies (Prometheus,
// protobuf, procfs, Sentry) cost every run about 2.5 ms of package
// initialisation before main, for a store that the key log (disk:DIR)
// replaces. go install -tags pebble .../cmd/uriscan links it; without
// it, pebble:DIR, and disk:DIR over a Pebble set an earlier version made,
// say how to get it (see docs/dedup.md, "Pebble").
package full

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/uriscan/uriscan/domain"
	"github.com/uriscan/uriscan/internal/cli"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	redisstore "github.com/uriscan/uriscan/seen/redis"
)

// Stores are the stores and the Public Suffix List, for cli.Main.
var Stores = cli.Stores{
	OpenDisk:   openDisk,
	OpenPebble: openPebble,
	Pebble:     Pebble,
	OpenRedis:  openRedis,
	Damaged:    damaged,
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
// (seen/keylog), or the Pebble set (seen/pebble) that an earlier version or
// --store pebble:DIR made there.
func openDisk(dir string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	if isPebbleSet(dir) {
		return openPebble(dir, params, so)
	}
	return keylog.Open(dir, &keylog.Options{Params: params, Recover: so.Recover, MustExist: so.MustExist})
}

// isPebbleSet reports whether dir holds a Pebble store or a seen/pebble
// set's files, and no key log.
func isPebbleSet(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "keys.log")); err == nil {
		return false
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if keylog.IsPebbleFile(e.Name()) || e.Name() == "uriscan-seen.bloom" {
			return true
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "uriscan-seen.json"))
	return err == nil && bytes.Contains(b, []byte(`"uriscan/seen disk v1"`))
}

// damaged reports whether err says a disk store is damaged.
func damaged(err error) bool {
	return errors.Is(err, keylog.ErrDamaged) || pebbleDamaged(err)
}

// openRedis opens the Redis seen-set spec names, with so.Password
// where spec has no password (a password in the URL wins).
func openRedis(spec, prefix string, params seen.Params, so cli.StoreOptions) (seen.Set, error) {
	return redisstore.OpenURL(spec, &redisstore.Options{Prefix: prefix, Params: params, Recover: so.Recover, Password: so.Password})
}
