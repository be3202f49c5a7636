//go:build unix

package redis_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/redis"
)

// openFilled opens a set on srv and inserts n random keys; the set is
// closed when the test ends.
func openFilled(t *testing.T, srv *redisServer, prefix string, rng *rand.Rand, n int) (*redis.Set, []seen.Key) {
	t.Helper()
	r, err := redis.Open([]string{srv.addr}, &redis.Options{AnyParams: true, Prefix: prefix, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	keys := redisRandomKeys(rng, n)
	if err := r.Insert(keys); err != nil {
		t.Fatal(err)
	}
	return r, keys
}

// TestRedisForgets: a server restarted empty (no persistence), keys
// deleted behind the set's back, and a set dropped by another process are
// each noticed at the first call after a reconnect, before that call
// returns an answer the server made up: the call fails with ErrLost, so
// do the later ones, and Check of an earlier Stamp says what happened.
func TestRedisForgets(t *testing.T) {
	redisSkipShort(t)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(20, 1))

	t.Run("restarted empty", func(t *testing.T) {
		srv := newRedisServer(t, "--appendonly", "no") // a cache: nothing survives
		r, keys := openFilled(t, srv, redisPrefix(t), rng, 3000)
		stamp := r.Stamp()
		if stamp.Count != 3000 || len(stamp.ID) != 32 {
			t.Fatalf("Stamp = %+v, want 3000 keys and an identity", stamp)
		}
		srv.kill()
		srv.start()
		has := make([]bool, len(keys))
		err := r.Contains(keys, has)
		var lost *seen.LostError
		if !errors.As(err, &lost) || !errors.Is(err, seen.ErrLost) || lost.ID != "" {
			t.Fatalf("Contains after the server restarted empty: %v (has[0] = %v), want a *LostError with no identity", err, has[0])
		}
		if !strings.Contains(err.Error(), "identity record is gone") {
			t.Errorf("message: %v", err)
		}
		if err := r.Insert(keys[:1]); !errors.Is(err, seen.ErrLost) {
			t.Errorf("Insert after the loss: %v, want ErrLost", err)
		}
		// A process that opens the set anew gets a new identity; the
		// stamp of the old one is refused.
		r2, err := redis.Open([]string{srv.addr}, &redis.Options{AnyParams: true, Prefix: redisPrefix(t)})
		if err != nil {
			t.Fatal(err)
		}
		defer r2.Close()
		if r2.Stamp().ID == stamp.ID {
			t.Fatalf("the emptied set kept its identity %s", stamp.ID)
		}
		if err := r2.Check(stamp); !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "another store") {
			t.Fatalf("Check of the old stamp on the new set: %v", err)
		}
		if err := r2.Check(r2.Stamp()); err != nil {
			t.Fatalf("Check of its own stamp: %v", err)
		}
	})

	t.Run("restarted from an older snapshot", func(t *testing.T) {
		srv := newRedisServer(t, "--appendonly", "no") // what a restart loads is the last RDB snapshot
		r, keys := openFilled(t, srv, redisPrefix(t), rng, 1000)
		admin := goredis.NewClient(&goredis.Options{Addr: srv.addr})
		defer admin.Close()
		if err := admin.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		more := redisRandomKeys(rng, 1000)
		if err := r.Insert(more); err != nil {
			t.Fatal(err)
		}
		stamp := r.Stamp()
		srv.kill()
		srv.start()
		// The identity is in the snapshot; the count is short.
		has := make([]bool, len(keys))
		if err := r.Contains(keys, has); !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "it lost writes") {
			t.Fatalf("Contains after a restart from an older snapshot: %v", err)
		}
		if err := r.Check(stamp); !errors.Is(err, seen.ErrLost) {
			t.Fatalf("Check after a restart from an older snapshot: %v", err)
		}
	})

	t.Run("keys deleted", func(t *testing.T) {
		srv := newRedisServer(t)
		r, keys := openFilled(t, srv, redisPrefix(t), rng, 3000)
		stamp := r.Stamp()
		admin := goredis.NewClient(&goredis.Options{Addr: srv.addr})
		defer admin.Close()
		// Another client deletes a shard (as an eviction would), and
		// the set's connections are cut: it reconnects to the same
		// server process, which it does not count again (README: keys
		// evicted or deleted are seen at the next run's Check).
		if err := admin.Del(ctx, r.ShardKey(keys[0])).Err(); err != nil {
			t.Fatal(err)
		}
		if err := admin.ClientKillByFilter(ctx, "TYPE", "normal", "SKIPME", "yes").Err(); err != nil {
			t.Fatal(err)
		}
		has := make([]bool, len(keys))
		if err := r.Contains(keys, has); err != nil {
			t.Fatalf("Contains after a reconnect to the same server: %v", err)
		}
		if err := r.Check(stamp); !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "it lost writes") {
			t.Fatalf("Check after a shard was deleted: %v", err)
		}
	})

	t.Run("flushed without a reconnect", func(t *testing.T) {
		srv := newRedisServer(t)
		r, keys := openFilled(t, srv, redisPrefix(t), rng, 1000)
		has := make([]bool, len(keys))
		if err := r.Contains(keys, has); err != nil { // the pool's connections made and checked
			t.Fatal(err)
		}
		admin := goredis.NewClient(&goredis.Options{Addr: srv.addr})
		defer admin.Close()
		if err := admin.FlushDB(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		// No connection is made anew: the identity read after the
		// answers sees the flush.
		if err := r.Contains(keys, has); !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "identity record is gone") {
			t.Fatalf("Contains after FLUSHDB: %v (has[0] = %v)", err, has[0])
		}
	})

	t.Run("dropped by another process", func(t *testing.T) {
		srv := newRedisServer(t)
		prefix := redisPrefix(t)
		r, _ := openFilled(t, srv, prefix, rng, 500)
		other, err := redis.Open([]string{srv.addr}, &redis.Options{AnyParams: true, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		if err := other.Drop(); err != nil {
			t.Fatal(err)
		}
		if other.Stamp().Count != 0 || other.Stamp().ID == r.Stamp().ID {
			t.Fatalf("after Drop: %+v (the first set: %+v), want 0 keys and a new identity", other.Stamp(), r.Stamp())
		}
		if err := r.Check(r.Stamp()); !errors.Is(err, seen.ErrLost) {
			t.Fatalf("Check after another process dropped the set: %v", err)
		}
	})

	t.Run("restart with persistence is no loss", func(t *testing.T) {
		srv := newRedisServer(t) // every write on disk before it is acknowledged
		r, keys := openFilled(t, srv, redisPrefix(t), rng, 2000)
		srv.kill()
		srv.start()
		has := make([]bool, len(keys))
		if err := r.Contains(keys, has); err != nil {
			t.Fatalf("Contains after a restart that kept everything: %v", err)
		}
		for i, h := range has {
			if !h {
				t.Fatalf("key %d missing after the restart", i)
			}
		}
		if err := r.Check(r.Stamp()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(srv.dir, "appendonlydir")); err != nil {
			t.Logf("(no appendonlydir: %v)", err)
		}
	})
}
