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

// openRedisStore opens the Redis seen-set: one address is a server (or a
// cluster node, detected), several are the seed nodes of a Redis Cluster.
func openRedisStore(addrs []string) (seen.Set, error) {
	if len(addrs) == 0 || addrs[0] == "" {
		return nil, errors.New("redis: needs an address, as redis://HOST:PORT")
	}
	return seen.OpenRedis(addrs, nil)
}
