package cli

import (
	"errors"
	"strings"

	"github.com/uriscan/uriscan/seen"
)

// Stores are the parts of the command that live in other packages: the
// persistent seen-sets (seen/keylog; seen/pebble, Pebble, in a build with
// the pebble tag; seen/redis) and the Public Suffix List (package
// domain). Package internal/cli/full provides them (full.Stores);
// cmd/uriscan passes them to Main, and the tests to SetStores. Main needs
// every field.
type Stores struct {
	// OpenDisk opens (or creates) the disk seen-set in dir: a key log,
	// or the Pebble set an earlier run made there.
	OpenDisk func(dir string, params seen.Params, o StoreOptions) (seen.Set, error)
	// OpenPebble opens (or creates) the Pebble seen-set in dir; in a
	// build without Pebble (Pebble false) it says how to get one.
	OpenPebble func(dir string, params seen.Params, o StoreOptions) (seen.Set, error)
	// Pebble says whether this build links the Pebble store (the pebble
	// build tag).
	Pebble bool
	// OpenRedis opens the Redis seen-set url names, with key prefix
	// prefix unless the URL sets one ("": the default), and o.Password
	// unless the URL has a password.
	OpenRedis func(url, prefix string, params seen.Params, o StoreOptions) (seen.Set, error)
	// Damaged reports whether an error from OpenDisk or OpenPebble says
	// the store is damaged.
	Damaged func(error) bool
	// NewSplit returns a new host splitter (package domain's, with a
	// cache of its own) under the Public Suffix List's ICANN section, or
	// with private the private one too: for --get's {etld} {rdn}
	// {subdomain}, split --domains, dedup --scope, SURT's public suffix.
	NewSplit func(private bool) func(host string) (subdomain, registrable, suffix string, ok bool)
}

// StoreOptions are how dedup opens its store: Recover (--rebuild) takes
// a persistent one that lost keys as it is (keylog.Options.Recover, pebble.Options.Recover,
// redis.Options.Recover); MustExist refuses to make a disk store anew
// where a checkpoint says one was.
type StoreOptions struct {
	Recover, MustExist bool
	// Password authenticates to a Redis store (seen/redis
	// Options.Password) whose URL has no password: a password in the URL
	// wins over it; a URL that names only a user (redis://app@host) takes
	// it for that user. dedup takes it from --redis-password-file or
	// $URISCAN_REDIS_PASSWORD (redisPassword), not from its command line,
	// which every user of the machine can read.
	Password string
}

// openDisk opens (or creates) the seen-set in dir that --store
// kind:DIR names (kind disk or pebble).
func (st *Stores) openDisk(kind, dir string, params seen.Params, so StoreOptions) (seen.Set, error) {
	if dir == "" {
		return nil, errors.New("--store " + kind + ": needs a directory, as " + kind + ":DIR")
	}
	if kind == "pebble" {
		return st.OpenPebble(dir, params, so)
	}
	return st.OpenDisk(dir, params, so)
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
