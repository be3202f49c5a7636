package main

import (
	"errors"
	"strings"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/disk"
)

// storeOptions are how dedup opens its store: recover (--rebuild) takes a
// persistent one that lost keys as it is (disk.Options.Recover,
// RedisOptions.Recover); mustExist refuses to make a disk store anew
// where a checkpoint says one was.
type storeOptions struct {
	recover, mustExist bool
	// shards: the memory store is a seen.Sharded of that many shards
	// (dedup's workers), decided on as many goroutines; 1: a seen.Memory.
	shards int
}

// openDiskStore opens (or creates) the Pebble seen-set in dir.
func openDiskStore(dir string, params seen.Params, so storeOptions) (seen.Set, error) {
	if dir == "" {
		return nil, errors.New("--store disk: needs a directory, as disk:DIR")
	}
	return disk.Open(dir, &disk.Options{Params: params, Recover: so.recover, MustExist: so.mustExist})
}

// isRedisURL reports whether spec names a Redis store.
func isRedisURL(spec string) bool {
	for _, p := range []string{"redis://", "rediss://", "redis+cluster://", "rediss+cluster://"} {
		if strings.HasPrefix(spec, p) {
			return true
		}
	}
	return false
}
