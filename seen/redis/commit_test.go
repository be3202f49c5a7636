//go:build unix

package redis_test

import (
	"errors"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/redis"
	"github.com/uriscan/uriscan/seen/settest"
)

// TestRedisCommitter runs the shared suite of seen.Committer on the single
// server and the cluster: commit records kept per run, replaced by later
// ones, not counted as keys, refused for a bad run identity and after
// Close, and kept across a reopen (OpenURL on the single server, Open on
// the cluster, with the same prefix).
func TestRedisCommitter(t *testing.T) {
	redisBackends(t, func(t *testing.T, addrs []string) {
		prefixes := map[seen.Committer]string{}
		settest.RunCommitter(t, func(t *testing.T) seen.Committer {
			prefix := redisPrefix(t)
			r := openRedis(t, addrs, prefix)
			prefixes[r] = prefix
			return r
		}, func(t *testing.T, old seen.Committer) seen.Committer {
			prefix, ok := prefixes[old]
			if !ok {
				t.Fatal("reopen of a set open did not make")
			}
			var r *redis.Set
			var err error
			if len(addrs) == 1 {
				r, err = redis.OpenURL("redis://"+addrs[0]+"/0?prefix="+url.QueryEscape(prefix), anyParams)
			} else {
				r, err = redis.Open(addrs, &redis.Options{AnyParams: true, Prefix: prefix})
			}
			if err != nil {
				t.Fatal(err)
			}
			prefixes[r] = prefix
			return r
		})
	})
}

// commitRun is the run identity of the commit tests.
const commitRun = "0123456789abcdef0123456789abcdef"

// TestRedisCommitOrder: InsertCommit sends no key before the server has
// acknowledged the commit record. The reply to the HSET's pipeline is cut
// (the proxy passes its first 40 bytes, then breaks the connection): the
// record is there, and not one of the batch's keys; sent in the same
// pipeline as the HSET, or before its reply, they would be. Once the
// connection works again, InsertCommit completes the batch.
func TestRedisCommitOrder(t *testing.T) {
	addr := redisAddrs(t, redisEnvSingle)[0]
	prefix := redisPrefix(t)
	direct := openRedis(t, []string{addr}, prefix)
	defer direct.Close()
	p := newRedisBreakingProxy(t, addr)
	s, err := redis.Open([]string{p.addr}, &redis.Options{AnyParams: true, Prefix: prefix, Retries: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys := redisRandomKeys(rand.New(rand.NewPCG(41, 42)), 1000)
	p.arm.Store(true)
	err = s.InsertCommit(seen.Commit{Run: commitRun, Seq: 5}, keys)
	if p.arm.Load() {
		t.Fatal("the proxy did not break the connection")
	}
	t.Logf("InsertCommit with the HSET's reply cut: %v", err)
	if err == nil {
		t.Fatal("InsertCommit with the HSET's reply cut: no error")
	}
	if seq, err := direct.Committed(commitRun); err != nil || seq != 5 {
		t.Fatalf("Committed = %d, %v; want 5: the HSET did not run", seq, err)
	}
	has := make([]bool, len(keys))
	if err := direct.Contains(keys, has); err != nil {
		t.Fatal(err)
	}
	for i, h := range has {
		if h {
			t.Fatalf("key %d of the batch was recorded before the commit record was acknowledged", i)
		}
	}
	if err := s.InsertCommit(seen.Commit{Run: commitRun, Seq: 5}, keys); err != nil {
		t.Fatalf("InsertCommit again: %v", err)
	}
	if err := direct.Contains(keys, has); err != nil {
		t.Fatal(err)
	}
	for i, h := range has {
		if !h {
			t.Fatalf("key %d missing after InsertCommit", i)
		}
	}
}

// TestRedisCommitLost: InsertCommit and Committed check the identity
// record as every other call does: once it is gone (a flushed database),
// InsertCommit fails with a *seen.LostError before it sends a key, and
// every later call fails the same way. Drop deletes the commit records
// with the set.
func TestRedisCommitLost(t *testing.T) {
	redisBackends(t, func(t *testing.T, addrs []string) {
		prefix := redisPrefix(t)
		s := openRedis(t, addrs, prefix)
		defer s.Close()
		keys := redisRandomKeys(rand.New(rand.NewPCG(43, 44)), 600)
		if err := s.InsertCommit(seen.Commit{Run: commitRun, Seq: 1}, keys[:300]); err != nil {
			t.Fatal(err)
		}
		if err := s.Client().Del(t.Context(), prefix+"id").Err(); err != nil {
			t.Fatal(err)
		}
		err := s.InsertCommit(seen.Commit{Run: commitRun, Seq: 2}, keys[300:])
		var lost *seen.LostError
		if !errors.As(err, &lost) {
			t.Fatalf("InsertCommit after the identity record went: %v, want a *seen.LostError", err)
		}
		if _, err := s.Committed(commitRun); !errors.Is(err, seen.ErrLost) {
			t.Errorf("Committed after a lost store: %v, want seen.ErrLost", err)
		}
		other, err := redis.Open(addrs, &redis.Options{AnyParams: true, Prefix: prefix})
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		has := make([]bool, len(keys))
		if err := other.Contains(keys, has); err != nil {
			t.Fatal(err)
		}
		for i, h := range has {
			if h != (i < 300) {
				t.Fatalf("key %d: recorded %v after the lost InsertCommit", i, h)
			}
		}
		if err := other.Drop(); err != nil {
			t.Fatal(err)
		}
		if seq, err := other.Committed(commitRun); err != nil || seq != 0 {
			t.Errorf("Committed after Drop = %d, %v; want 0", seq, err)
		}
	})
}
