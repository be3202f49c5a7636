package main

import (
	"errors"

	"github.com/uriscan/uriscan/seen"
)

// openDiskStore opens (or creates) the Pebble seen-set in dir.
func openDiskStore(dir string) (seen.Set, error) {
	if dir == "" {
		return nil, errors.New("disk: needs a directory, as disk:DIR")
	}
	return seen.OpenDisk(dir, nil)
}

// TEMPORARY until the Redis store lands.
func openRedisStore(addrs []string) (seen.Set, error) {
	return nil, errors.New("redis store not available yet")
}
