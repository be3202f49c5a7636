package main

import (
	"errors"
	"strings"

	"github.com/uriscan/uriscan/seen"
)

// openDiskStore opens (or creates) the Pebble seen-set in dir.
func openDiskStore(dir string, params seen.Params, recover bool) (seen.Set, error) {
	if dir == "" {
		return nil, errors.New("--store disk: needs a directory, as disk:DIR")
	}
	return seen.OpenDisk(dir, &seen.DiskOptions{Params: params, Recover: recover})
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
