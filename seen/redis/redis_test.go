// The benchmark reads this process's CPU time with getrusage.

//go:build unix

package redis_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/redis"
	"github.com/uriscan/uriscan/seen/settest"
)

// The Redis tests need servers; .ci/goredis.sh starts them on loopback and
// prints the variables:
//
//	URISCAN_REDIS_ADDR     a single server, host:port
//	URISCAN_REDIS_CLUSTER  a Redis Cluster, host:port[,host:port...]
//
// A test whose variable is unset is skipped, unless URISCAN_REDIS_REQUIRE
// is set to 1 (CI), which makes it fail instead. Every set a test opens
// lives under its own unique key prefix and is deleted (only it) at the end.

const (
	redisEnvSingle  = "URISCAN_REDIS_ADDR"
	redisEnvCluster = "URISCAN_REDIS_CLUSTER"
	redisEnvRequire = "URISCAN_REDIS_REQUIRE"
)

func redisAddrs(tb testing.TB, env string) []string {
	tb.Helper()
	v := strings.TrimSpace(os.Getenv(env))
	if v == "" {
		msg := fmt.Sprintf("%s is not set: no Redis to test against (run .ci/goredis.sh: eval \"$(.ci/goredis.sh)\")", env)
		if os.Getenv(redisEnvRequire) == "1" {
			tb.Fatal(msg + ", and " + redisEnvRequire + "=1")
		}
		tb.Skip(msg)
	}
	return strings.Split(v, ",")
}

var redisPrefixSeq atomic.Int64

// redisPrefix is a key prefix no other test, process or run uses.
func redisPrefix(tb testing.TB) string {
	name := strings.NewReplacer("{", "(", "}", ")", " ", "_").Replace(tb.Name())
	return fmt.Sprintf("uriscan-test:%d.%d.%d:%s:", os.Getpid(), time.Now().UnixNano(), redisPrefixSeq.Add(1), name)
}

// anyParams opens a set whatever it records (the tests that are not
// about Params).
var anyParams = &redis.Options{AnyParams: true}

// openRedis opens the set at addrs under prefix and deletes it (with a
// separate connection, since the set itself may be closed by then) when
// the test ends.
func openRedis(tb testing.TB, addrs []string, prefix string) *redis.Set {
	tb.Helper()
	r, err := redis.Open(addrs, &redis.Options{AnyParams: true, Prefix: prefix, Timeout: time.Minute})
	if err != nil {
		tb.Fatalf("OpenRedis(%v): %v", addrs, err)
	}
	tb.Cleanup(func() {
		d, err := redis.Open(addrs, &redis.Options{AnyParams: true, Prefix: prefix})
		if err != nil {
			tb.Errorf("cleanup: OpenRedis: %v", err)
			return
		}
		defer d.Close()
		if err := d.Drop(); err != nil {
			tb.Errorf("cleanup: Drop: %v", err)
		}
	})
	return r
}

// redisBackends runs f against the single server and the cluster, as subtests.
func redisBackends(t *testing.T, f func(t *testing.T, addrs []string)) {
	for _, b := range []struct{ name, env string }{{"Single", redisEnvSingle}, {"Cluster", redisEnvCluster}} {
		t.Run(b.name, func(t *testing.T) { f(t, redisAddrs(t, b.env)) })
	}
}

// redisSkipShort skips the long suites (a few seconds each on loopback, far more
// under qemu) in -short mode; the other Redis tests take well under a second.
func redisSkipShort(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the Redis suite (run without -short)")
	}
}

func TestRedisSingle(t *testing.T) {
	redisSkipShort(t)
	addrs := redisAddrs(t, redisEnvSingle)
	settest.Run(t, func(t *testing.T) seen.Set {
		r := openRedis(t, addrs, redisPrefix(t))
		if r.Cluster() {
			t.Fatalf("%s=%v is a cluster node, want a single server", redisEnvSingle, addrs)
		}
		return r
	})
}

func TestRedisCluster(t *testing.T) {
	redisSkipShort(t)
	addrs := redisAddrs(t, redisEnvCluster)
	settest.Run(t, func(t *testing.T) seen.Set {
		r := openRedis(t, addrs, redisPrefix(t))
		if !r.Cluster() {
			t.Fatal("OpenRedis with several addresses did not make a cluster client")
		}
		return r
	})
}

// TestRedisClusterAutoDetect: one address of a cluster node is enough.
func TestRedisClusterAutoDetect(t *testing.T) {
	addrs := redisAddrs(t, redisEnvCluster)
	r := openRedis(t, addrs[:1], redisPrefix(t))
	defer r.Close()
	if !r.Cluster() {
		t.Fatalf("OpenRedis(%s) did not detect a cluster node", addrs[0])
	}
	// Keys on every master work through the one seed address.
	r2 := openRedis(t, addrs, redisPrefix(t))
	defer r2.Close()
	keys := redisRandomKeys(rand.New(rand.NewPCG(7, 7)), 3000)
	isNew := make([]bool, len(keys))
	if err := r.AddBatch(keys, isNew); err != nil {
		t.Fatal(err)
	}
	if n := r.Len(); n != int64(len(keys)) {
		t.Fatalf("Len = %d, want %d", n, len(keys))
	}
}

func TestRedisOptions(t *testing.T) {
	for _, p := range []string{"a{b", "a}b"} {
		if _, err := redis.Open([]string{"127.0.0.1:1"}, &redis.Options{AnyParams: true, Prefix: p}); err == nil {
			t.Errorf("OpenRedis with prefix %q: no error", p)
		}
	}
	if _, err := redis.Open(nil, anyParams); err == nil {
		t.Error("OpenRedis(nil): no error")
	}
	for _, addrs := range [][]string{{""}, {"127.0.0.1:1", ""}} {
		if _, err := redis.Open(addrs, anyParams); err == nil || !strings.Contains(err.Error(), "is empty") {
			t.Errorf("OpenRedis(%q): err = %v, want an empty address refused", addrs, err)
		}
	}
	if _, err := redis.Open([]string{"127.0.0.1:1", "127.0.0.1:2"}, &redis.Options{AnyParams: true, Mode: redis.Standalone}); err == nil {
		t.Error("OpenRedis standalone with 2 addresses: no error")
	}
	// Nothing listens on port 1: a clear error, quickly.
	start := time.Now()
	if _, err := redis.Open([]string{"127.0.0.1:1"}, &redis.Options{AnyParams: true, DialTimeout: time.Second}); err == nil {
		t.Error("OpenRedis(127.0.0.1:1): no error")
	} else if d := time.Since(start); d > 30*time.Second {
		t.Errorf("OpenRedis(127.0.0.1:1) took %v to fail", d)
	}
}

func redisRandomKeys(r *rand.Rand, n int) []seen.Key {
	keys := make([]seen.Key, n)
	for i := range keys {
		binary.LittleEndian.PutUint64(keys[i][0:8], r.Uint64())
		binary.LittleEndian.PutUint64(keys[i][8:16], r.Uint64())
	}
	return keys
}

// TestRedisShared: sets opened separately on the same server with the same
// prefix, as on several machines, are one set; a different prefix is
// another set.
func TestRedisShared(t *testing.T) {
	redisBackends(t, func(t *testing.T, addrs []string) {
		prefix := redisPrefix(t)
		a := openRedis(t, addrs, prefix)
		b := openRedis(t, addrs, prefix)
		other := openRedis(t, addrs, redisPrefix(t))
		defer a.Close()
		defer b.Close()
		defer other.Close()

		keys := redisRandomKeys(rand.New(rand.NewPCG(1, 1)), 2000)
		isNew := make([]bool, 1000)
		if err := a.AddBatch(keys[:1000], isNew); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys[1000:1500] {
			if n, err := b.Add(k); err != nil || !n {
				t.Fatalf("b.Add(new key %x) = %v, %v", k, n, err)
			}
		}
		// b sees a's keys, a sees b's.
		if err := b.AddBatch(keys[:1000], isNew); err != nil {
			t.Fatal(err)
		}
		for i, n := range isNew {
			if n {
				t.Fatalf("b: key %d added by a reported new", i)
			}
		}
		for _, k := range keys[1000:1500] {
			if n, err := a.Add(k); err != nil || n {
				t.Fatalf("a.Add(key %x added by b) = %v, %v", k, n, err)
			}
		}
		if la, lb := a.Len(), b.Len(); la != 1500 || lb != 1500 {
			t.Fatalf("Len: a %d, b %d, want 1500", la, lb)
		}
		// Another prefix is another set.
		if err := other.AddBatch(keys[:1000], isNew); err != nil {
			t.Fatal(err)
		}
		for i, n := range isNew {
			if !n {
				t.Fatalf("other prefix: key %d reported seen", i)
			}
		}
		if n := other.Len(); n != 1000 {
			t.Fatalf("other prefix: Len %d, want 1000", n)
		}
		// Closing one handle leaves the set to the others.
		a.Close()
		if n, err := b.Add(keys[1999]); err != nil || !n {
			t.Fatalf("b.Add after a.Close = %v, %v", n, err)
		}
	})
}

// TestRedisConcurrentWriters: writers on separate connections race to add
// overlapping keys; every key is reported new to exactly one of them.
func TestRedisConcurrentWriters(t *testing.T) {
	redisSkipShort(t)
	redisBackends(t, func(t *testing.T, addrs []string) {
		const writers, distinct = 6, 20000
		prefix := redisPrefix(t)
		keys := redisRandomKeys(rand.New(rand.NewPCG(2, 2)), distinct)
		var wins [distinct]atomic.Int32
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			s := openRedis(t, addrs, prefix)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer s.Close()
				r := rand.New(rand.NewPCG(uint64(w), 3))
				order := r.Perm(distinct) // each writer its own order
				batch := make([]seen.Key, 0, 500)
				idx := make([]int, 0, 500)
				isNew := make([]bool, 500)
				flush := func() error {
					if err := s.AddBatch(batch, isNew); err != nil {
						return err
					}
					for j, n := range isNew[:len(batch)] {
						if n {
							wins[idx[j]].Add(1)
						}
					}
					batch, idx = batch[:0], idx[:0]
					return nil
				}
				for i, o := range order {
					if w%2 == 0 && i%7 == 0 { // some single Adds too
						n, err := s.Add(keys[o])
						if err != nil {
							errs <- err
							return
						}
						if n {
							wins[o].Add(1)
						}
						continue
					}
					batch, idx = append(batch, keys[o]), append(idx, o)
					if len(batch) == cap(batch) {
						if err := flush(); err != nil {
							errs <- err
							return
						}
					}
				}
				if err := flush(); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		for i := range wins {
			if n := wins[i].Load(); n != 1 {
				t.Fatalf("key %d reported new to %d writers, want exactly 1", i, n)
			}
		}
		s := openRedis(t, addrs, prefix)
		defer s.Close()
		if n := s.Len(); n != distinct {
			t.Fatalf("Len = %d, want %d", n, distinct)
		}
	})
}

// TestRedisKeyLayout checks the documented layout against the server: each
// key's shard lives in the hash slot its first two bytes name, the 16384
// shards cover all 16384 slots, and a cluster spreads keys over its masters.
func TestRedisKeyLayout(t *testing.T) {
	addrs := redisAddrs(t, redisEnvCluster)
	prefix := redisPrefix(t)
	r := openRedis(t, addrs, prefix)
	defer r.Close()
	c := r.Client()
	ctx := t.Context()

	var k seen.Key
	if got, want := r.ShardKey(k), prefix+"{3560}"; got != want {
		t.Errorf("ShardKey(zero) = %q, want %q", got, want)
	}
	pipe := c.Pipeline()
	slots := make([]*goredis.IntCmd, 16384)
	for s := range slots {
		k[0], k[1] = byte(s), byte(s>>8)
		k[1] |= 0xc0 // bits above the 14 slot bits do not matter
		slots[s] = pipe.ClusterKeySlot(ctx, r.ShardKey(k))
	}
	if _, err := pipe.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	for s, cmd := range slots {
		if got := cmd.Val(); got != int64(s) {
			t.Fatalf("shard %d: key %q is in slot %d", s, r.ShardKey(seen.Key{byte(s), byte(s >> 8)}), got)
		}
	}

	// 30000 random keys: each master holds about a third of the shards
	// touched, and a third of the members.
	keys := redisRandomKeys(rand.New(rand.NewPCG(5, 5)), 30000)
	if err := r.AddBatch(keys, make([]bool, len(keys))); err != nil {
		t.Fatal(err)
	}
	cc, ok := c.(*goredis.ClusterClient)
	if !ok {
		t.Fatalf("Client() is %T, want *goredis.ClusterClient", c)
	}
	var mu sync.Mutex
	perMaster := map[string]int{}
	err := cc.ForEachMaster(ctx, func(ctx context.Context, m *goredis.Client) error {
		n := 0
		iter := m.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			n++
		}
		mu.Lock()
		perMaster[m.Options().Addr] = n
		mu.Unlock()
		return iter.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range perMaster {
		total += n
	}
	t.Logf("shard keys per master: %v (total %d)", perMaster, total)
	for addr, n := range perMaster {
		if len(perMaster) > 1 && float64(n) < 0.5*float64(total)/float64(len(perMaster)) {
			t.Errorf("master %s holds %d of %d shard keys: not spread", addr, n, total)
		}
	}
}

// TestRedisNoReplay: when the connection breaks in the middle of a pipeline
// whose commands all reached the server, AddBatch must not silently send
// them again (the replayed SADDs would answer "seen" for keys this very
// call added): it either returns an error or answers correctly.
func TestRedisNoReplay(t *testing.T) {
	addr := redisAddrs(t, redisEnvSingle)[0]
	p := newRedisBreakingProxy(t, addr)
	s := openRedis(t, []string{p.addr}, redisPrefix(t))
	defer s.Close()
	keys := redisRandomKeys(rand.New(rand.NewPCG(9, 9)), 1000)
	isNew := make([]bool, len(keys))
	p.arm.Store(true) // the next reply stream is cut after 40 bytes
	err := s.AddBatch(keys, isNew)
	if p.arm.Load() {
		t.Fatal("the proxy did not break the connection")
	}
	if err == nil {
		for i, n := range isNew {
			if !n {
				t.Fatalf("AddBatch replayed the pipeline after a broken connection: new key %d reported seen, no error", i)
			}
		}
	}
	t.Logf("AddBatch over a broken connection: %v", err)
	// The keys did reach the server: they are recorded now.
	for _, k := range keys[:10] {
		if n, err := s.Add(k); err != nil || n {
			t.Fatalf("Add(%x) after the broken batch = %v, %v; want false, nil", k, n, err)
		}
	}
}

// redisBreakingProxy forwards TCP connections to a server; when armed, it cuts
// the next server-to-client stream after 40 bytes (everything the client
// sent still reaches the server) and disarms. Only a stream that starts
// with an integer reply (":") is cut.
type redisBreakingProxy struct {
	addr string
	arm  atomic.Bool
}

func newRedisBreakingProxy(t *testing.T, target string) *redisBreakingProxy {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	p := &redisBreakingProxy{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(s, c); s.Close() }()
			go func() {
				defer c.Close()
				defer s.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := s.Read(buf)
					// Only a stream of integer replies (the SADDs), not
					// a handshake (HELLO, PING) on a fresh connection.
					if n > 0 && buf[0] == ':' && p.arm.CompareAndSwap(true, false) {
						c.Write(buf[:min(n, 40)])
						// Let the rest of the pipeline execute, then
						// break the connection.
						time.Sleep(200 * time.Millisecond)
						if tc, ok := c.(*net.TCPConn); ok {
							tc.SetLinger(0)
						}
						return
					}
					if n > 0 {
						if _, werr := c.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

func TestRedisClosed(t *testing.T) {
	addrs := redisAddrs(t, redisEnvSingle)
	s := openRedis(t, addrs, redisPrefix(t))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := s.Len(); n != -1 {
		t.Errorf("Len after Close = %d, want -1", n)
	}
	if _, err := s.Count(); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Count after Close: %v, want ErrClosed", err)
	}
	if err := s.Drop(); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Drop after Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
}

// BenchmarkRedisAddBatch adds batches of 1000 new random keys from one
// goroutine (Serial) and from 8 goroutines with their own batches
// (Parallel8), on the single server and the cluster, and reports keys/s.
// It also reports the CPU time per key of this process (client-cpu-ns/key,
// all goroutines) and of the servers (server-cpu-ns/key, INFO cpu summed
// over the masters), which say more than keys/s on a busy machine: on an
// idle one, Serial is bounded by about the sum of the two and Parallel by
// the larger one divided by the cores each side gets. On the single server
// it also reports the server memory per key (used_memory growth) when at
// least 100000 keys were added.
func BenchmarkRedisAddBatch(b *testing.B) {
	const batch = 1000
	for _, be := range []struct{ name, env string }{{"Single", redisEnvSingle}, {"Cluster", redisEnvCluster}} {
		for _, par := range []int{1, 8} {
			name := be.name + "/Serial"
			if par > 1 {
				name = be.name + "/Parallel" + strconv.Itoa(par)
			}
			b.Run(name, func(b *testing.B) {
				addrs := redisAddrs(b, be.env)
				s := openRedis(b, addrs, redisPrefix(b))
				defer s.Close()
				before := redisUsedMemory(b, s)
				srv0, cli0 := redisServerCPU(b, s), redisClientCPU()
				var seq atomic.Uint64
				b.ResetTimer()
				var wg sync.WaitGroup
				var next atomic.Int64
				for g := range par {
					wg.Add(1)
					go func() {
						defer wg.Done()
						r := rand.New(rand.NewPCG(seq.Add(1), uint64(g)))
						keys := make([]seen.Key, batch)
						isNew := make([]bool, batch)
						for next.Add(1) <= int64(b.N) {
							for i := range keys {
								binary.LittleEndian.PutUint64(keys[i][0:8], r.Uint64())
								binary.LittleEndian.PutUint64(keys[i][8:16], r.Uint64())
							}
							if err := s.AddBatch(keys, isNew); err != nil {
								b.Error(err)
								return
							}
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				added := float64(b.N) * batch
				if srv := redisServerCPU(b, s); srv > 0 {
					b.ReportMetric(float64(srv-srv0)/added, "server-cpu-ns/key")
				}
				b.ReportMetric(float64(redisClientCPU()-cli0)/added, "client-cpu-ns/key")
				b.ReportMetric(added/b.Elapsed().Seconds(), "keys/s")
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/added, "ns/key")
				if after := redisUsedMemory(b, s); before > 0 && after > 0 && added >= 100000 {
					b.ReportMetric(float64(after-before)/added, "redis-B/key")
				}
			})
		}
	}
}

// redisClientCPU is the CPU time (user and system) this process has used, in ns.
func redisClientCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// redisServerCPU is the CPU time (used_cpu_user + used_cpu_sys) of the server,
// or of all masters of a cluster, in ns; 0 on error.
func redisServerCPU(b *testing.B, s *redis.Set) int64 {
	ctx := b.Context()
	var total atomic.Int64
	one := func(ctx context.Context, c *goredis.Client) error {
		info, err := c.Info(ctx, "cpu").Result()
		if err != nil {
			return err
		}
		for line := range strings.SplitSeq(info, "\n") {
			k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
			if k == "used_cpu_user" || k == "used_cpu_sys" {
				f, _ := strconv.ParseFloat(v, 64)
				total.Add(int64(f * 1e9))
			}
		}
		return nil
	}
	var err error
	switch c := s.Client().(type) {
	case *goredis.Client:
		err = one(ctx, c)
	case *goredis.ClusterClient:
		err = c.ForEachMaster(ctx, one)
	}
	if err != nil {
		return 0
	}
	return total.Load()
}

// redisUsedMemory is the single server's INFO memory used_memory, or 0 for a
// cluster or on error.
func redisUsedMemory(b *testing.B, s *redis.Set) int64 {
	if s.Cluster() {
		return 0
	}
	info, err := s.Client().Info(b.Context(), "memory").Result()
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "used_memory:"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// TestRedisParams: a set records the Params it was made with in
// Prefix+"params", and opening it with other Params fails, naming every
// difference; of concurrent first openers with different Params, one
// wins and the others fail.
func TestRedisParams(t *testing.T) {
	redisBackends(t, func(t *testing.T, addrs []string) {
		p1 := seen.Params{"key": "1a2b", "level": "scheme"}
		where := strings.Join(addrs, ",")
		open := func(prefix string, p seen.Params) (*redis.Set, error) {
			return redis.Open(addrs, &redis.Options{Prefix: prefix, Params: p, AnyParams: p == nil})
		}
		mustOpen := func(t *testing.T, prefix string, p seen.Params) *redis.Set {
			t.Helper()
			r, err := open(prefix, p)
			if err != nil {
				t.Fatalf("OpenRedis(Params %v): %v", p, err)
			}
			return r
		}
		mustFail := func(t *testing.T, prefix string, p seen.Params) error {
			t.Helper()
			r, err := open(prefix, p)
			if err == nil {
				r.Close()
				t.Fatalf("OpenRedis(Params %v) succeeded", p)
			}
			return err
		}

		t.Run("Recorded", func(t *testing.T) {
			prefix := redisPrefix(t)
			r := openRedis(t, addrs, prefix) // for the cleanup
			defer r.Close()
			s := mustOpen(t, prefix, p1)
			rec, err := s.Client().Get(t.Context(), prefix+"params").Result()
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"format":"uriscan/seen redis v1","key":"1a2b","level":"scheme"}`; rec != want {
				t.Errorf("%sparams = %s, want %s", prefix, rec, want)
			}
			if err := s.Insert([]seen.Key{{1}, {2}}); err != nil {
				t.Fatal(err)
			}
			s.Close()
			mustOpen(t, prefix, seen.Params{"level": "scheme", "key": "1a2b"}).Close()
			mustOpen(t, prefix, nil).Close()

			err = mustFail(t, prefix, seen.Params{"key": "9f8e", "level": "crawler"})
			var pe *seen.ParamsError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v, want a *ParamsError", err)
			}
			if want := "seen: redis set " + strconv.Quote(prefix) + " on " + where + " was made with key=1a2b, level=scheme; this run asks for key=9f8e, level=crawler: open it with what it was made with, or use another set"; err.Error() != want {
				t.Errorf("\nerr  = %s\nwant %s", err, want)
			}
			if pe.Stored["format"] != "uriscan/seen redis v1" || pe.Given["level"] != "crawler" {
				t.Errorf("ParamsError.Stored = %v, Given = %v", pe.Stored, pe.Given)
			}
			// Drop removes the record with the set: it takes new Params.
			if err := r.Drop(); err != nil {
				t.Fatal(err)
			}
			if n, err := r.Client().Exists(t.Context(), prefix+"params").Result(); err != nil || n != 0 {
				t.Fatalf("after Drop: EXISTS %sparams = %d, %v", prefix, n, err)
			}
			mustOpen(t, prefix, seen.Params{"level": "crawler"}).Close()
		})

		t.Run("KeysWithoutParams", func(t *testing.T) {
			prefix := redisPrefix(t)
			r := openRedis(t, addrs, prefix) // no Params: records nothing
			defer r.Close()
			if err := r.Insert(redisRandomKeys(rand.New(rand.NewPCG(41, 42)), 3)); err != nil {
				t.Fatal(err)
			}
			err := mustFail(t, prefix, p1)
			if !errors.Is(err, seen.ErrNoParams) {
				t.Fatalf("err = %v, want ErrNoParams", err)
			}
			if want := "seen: redis set " + strconv.Quote(prefix) + " on " + where + " holds 3 keys but records no parameters"; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("err = %q, want it to start with %q", err, want)
			}
			// An empty set without a record takes the Params.
			if err := r.Drop(); err != nil {
				t.Fatal(err)
			}
			mustOpen(t, prefix, p1).Close()
			mustFail(t, prefix, seen.Params{"key": "1a2b"})
		})

		t.Run("Race", func(t *testing.T) {
			prefix := redisPrefix(t)
			openRedis(t, addrs, prefix).Close() // for the cleanup
			const openers = 8
			var wg sync.WaitGroup
			errs := make([]error, openers)
			start := make(chan struct{})
			for i := range openers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					r, err := open(prefix, seen.Params{"level": strconv.Itoa(i % 2)})
					if err == nil {
						r.Close()
					}
					errs[i] = err
				}()
			}
			close(start)
			wg.Wait()
			var won []int
			for i, err := range errs {
				var pe *seen.ParamsError
				switch {
				case err == nil:
					won = append(won, i%2)
				case !errors.As(err, &pe):
					t.Fatalf("opener %d: %v", i, err)
				}
			}
			if len(won) != openers/2 || slices.Contains(won, 1-won[0]) {
				t.Fatalf("openers of level=0 and 1 (alternating) that succeeded: %v, want all of one level", won)
			}
		})
	})
}

// TestRedisURL opens the test servers through OpenRedisURL: a single
// server with a DB and a prefix in the URL, a cluster by its list of
// seeds, by redis+cluster:// with one seed, and by one seed alone.
func TestRedisURL(t *testing.T) {
	use := func(t *testing.T, r *redis.Set, prefix string) {
		t.Helper()
		if got := r.ShardKey(seen.Key{}); !strings.HasPrefix(got, prefix) {
			t.Errorf("ShardKey = %q, want the prefix %q", got, prefix)
		}
		keys := redisRandomKeys(rand.New(rand.NewPCG(43, 44)), 2000)
		if err := r.Insert(keys[:1000]); err != nil {
			t.Fatal(err)
		}
		has := make([]bool, len(keys))
		if err := r.Contains(keys, has); err != nil {
			t.Fatal(err)
		}
		for i, v := range has {
			if v != (i < 1000) {
				t.Fatalf("Contains: key %d = %v", i, v)
			}
		}
		if n := r.Len(); n != 1000 {
			t.Fatalf("Len = %d, want 1000", n)
		}
		if err := r.Drop(); err != nil {
			t.Fatal(err)
		}
	}
	openURL := func(t *testing.T, spec string, o *redis.Options) *redis.Set {
		t.Helper()
		if o == nil {
			o = &redis.Options{}
		}
		if o.Params == nil {
			o.AnyParams = true
		}
		r, err := redis.OpenURL(spec, o)
		if err != nil {
			t.Fatalf("OpenRedisURL(%s): %v", spec, err)
		}
		t.Cleanup(func() { r.Close() })
		return r
	}
	t.Run("Single", func(t *testing.T) {
		addr := redisAddrs(t, redisEnvSingle)[0]
		prefix := redisPrefix(t)
		r := openURL(t, "redis://"+addr+"/3?dial_timeout=2s&prefix="+url.QueryEscape(prefix), &redis.Options{AnyParams: true, Prefix: "ignored:"})
		if r.Cluster() {
			t.Fatal("a single server opened as a cluster")
		}
		if db := r.Client().(*goredis.Client).Options().DB; db != 3 {
			t.Errorf("DB %d, want 3", db)
		}
		use(t, r, prefix)
	})
	t.Run("Cluster", func(t *testing.T) {
		addrs := redisAddrs(t, redisEnvCluster)
		for _, spec := range []string{
			"redis://" + strings.Join(addrs, ","),
			"redis+cluster://" + addrs[0],
			"redis://" + addrs[0], // detected
		} {
			prefix := redisPrefix(t)
			r := openURL(t, spec, &redis.Options{AnyParams: true, Prefix: prefix})
			if !r.Cluster() {
				t.Fatalf("OpenRedisURL(%s) did not make a cluster client", spec)
			}
			use(t, r, prefix)
		}
		// Standalone on a cluster node: refused for a cluster URL.
		if _, err := redis.OpenURL("redis+cluster://"+addrs[0], &redis.Options{AnyParams: true, Mode: redis.Standalone}); err == nil {
			t.Error("redis+cluster:// with RedisStandalone: no error")
		}
	})
}

// BenchmarkRedisContains looks up batches of 1000 keys, half of them
// present, in a set of 100,000 keys, from one goroutine and from 8, with
// SISMEMBER per key (what Contains sends) and with SMISMEMBER per shard
// (the alternative), and reports the same figures as
// BenchmarkRedisAddBatch.
//
// A batch of 1000 random keys touches about 970 of the 16384 shards, so
// SMISMEMBER saves few commands and pays for grouping the keys: on
// loopback with Redis 7.0 (2 cores shared with the servers) SISMEMBER did
// 0.93M keys/s serial and 1.35M with 8 goroutines on the single server
// (SMISMEMBER 0.93M and 1.29M), 0.81M and 1.02M on the 3-node cluster
// (SMISMEMBER 0.75M and 0.96M); AddBatch of new keys did 0.63M, 0.75M,
// 0.66M and 0.80M. With batches of 8192 keys the two were within the
// noise of each other (each won on one topology).
func BenchmarkRedisContains(b *testing.B) {
	const batch, present = 1000, 100_000
	for _, be := range []struct{ name, env string }{{"Single", redisEnvSingle}, {"Cluster", redisEnvCluster}} {
		for _, perShard := range []bool{false, true} {
			for _, par := range []int{1, 8} {
				name := be.name + "/SISMEMBER"
				if perShard {
					name = be.name + "/SMISMEMBER"
				}
				name += "/Serial"
				if par > 1 {
					name = strings.TrimSuffix(name, "Serial") + "Parallel" + strconv.Itoa(par)
				}
				b.Run(name, func(b *testing.B) {
					addrs := redisAddrs(b, be.env)
					s := openRedis(b, addrs, redisPrefix(b))
					defer s.Close()
					redis.SetContainsPerShard(s, perShard)
					pre := redisRandomKeys(rand.New(rand.NewPCG(45, 46)), present)
					if err := s.Insert(pre); err != nil {
						b.Fatal(err)
					}
					runRedisBench(b, s, par, batch, func(r *rand.Rand, keys []seen.Key, has []bool) error {
						for i := range keys {
							if i%2 == 0 {
								keys[i] = pre[r.IntN(len(pre))]
							} else {
								binary.LittleEndian.PutUint64(keys[i][0:8], r.Uint64())
								binary.LittleEndian.PutUint64(keys[i][8:16], r.Uint64())
							}
						}
						return s.Contains(keys, has)
					})
				})
			}
		}
	}
}

// BenchmarkRedisInsert is BenchmarkRedisAddBatch through Insert.
func BenchmarkRedisInsert(b *testing.B) {
	const batch = 1000
	for _, be := range []struct{ name, env string }{{"Single", redisEnvSingle}, {"Cluster", redisEnvCluster}} {
		for _, par := range []int{1, 8} {
			name := be.name + "/Serial"
			if par > 1 {
				name = be.name + "/Parallel" + strconv.Itoa(par)
			}
			b.Run(name, func(b *testing.B) {
				s := openRedis(b, redisAddrs(b, be.env), redisPrefix(b))
				defer s.Close()
				runRedisBench(b, s, par, batch, func(r *rand.Rand, keys []seen.Key, _ []bool) error {
					for i := range keys {
						binary.LittleEndian.PutUint64(keys[i][0:8], r.Uint64())
						binary.LittleEndian.PutUint64(keys[i][8:16], r.Uint64())
					}
					return s.Insert(keys)
				})
			})
		}
	}
}

// runRedisBench runs op b.N times on batches of batch keys from par
// goroutines and reports keys/s, ns/key and the client and server CPU
// time per key.
func runRedisBench(b *testing.B, s *redis.Set, par, batch int, op func(r *rand.Rand, keys []seen.Key, answers []bool) error) {
	srv0, cli0 := redisServerCPU(b, s), redisClientCPU()
	var seq atomic.Uint64
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for g := range par {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seq.Add(1), uint64(g)))
			keys := make([]seen.Key, batch)
			answers := make([]bool, batch)
			for next.Add(1) <= int64(b.N) {
				if err := op(r, keys, answers); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	n := float64(b.N) * float64(batch)
	if srv := redisServerCPU(b, s); srv > 0 {
		b.ReportMetric(float64(srv-srv0)/n, "server-cpu-ns/key")
	}
	b.ReportMetric(float64(redisClientCPU()-cli0)/n, "client-cpu-ns/key")
	b.ReportMetric(n/b.Elapsed().Seconds(), "keys/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/key")
}

// TestRedisContainsPerShard checks the SMISMEMBER variant of Contains
// that BenchmarkRedisContains compares, against the keys inserted, with
// repeats and more keys than a pipeline chunk.
func TestRedisContainsPerShard(t *testing.T) {
	redisBackends(t, func(t *testing.T, addrs []string) {
		s := openRedis(t, addrs, redisPrefix(t))
		defer s.Close()
		redis.SetContainsPerShard(s, true)
		r := rand.New(rand.NewPCG(47, 48))
		keys := redisRandomKeys(r, redis.PipelineChunk+3000)
		if err := s.Insert(keys[:5000]); err != nil {
			t.Fatal(err)
		}
		inserted := map[seen.Key]bool{}
		for _, k := range keys[:5000] {
			inserted[k] = true
		}
		keys = append(keys, keys[0], keys[6000], keys[1], seen.Key{})
		r.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
		has := make([]bool, len(keys))
		for i := range has {
			has[i] = i%2 == 0
		}
		if err := s.Contains(keys, has); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if has[i] != inserted[k] {
				t.Fatalf("Contains: key %d (%x) = %v, want %v", i, k, has[i], inserted[k])
			}
		}
	})
}
