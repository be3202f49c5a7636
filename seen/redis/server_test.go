//go:build unix

package redis_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/redis"
)

// redisServer is a redis-server of the test's own on a free loopback
// port, with an append-only file fsync'ed at every write (so that every
// write it has acknowledged survives SIGKILL), in a temporary directory.
// The test is skipped when redis-server is not on PATH, unless
// URISCAN_REDIS_REQUIRE=1, which makes it fail. The tests that kill and
// restart servers take a few seconds each and are skipped with -short.
type redisServer struct {
	t      *testing.T
	bin    string
	dir    string
	addr   string
	port   string
	extra  []string
	cmd    *exec.Cmd
	exited chan struct{}
}

func newRedisServer(t *testing.T, extra ...string) *redisServer {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		msg := "redis-server is not on PATH (Debian: apt-get install redis-server)"
		if os.Getenv(redisEnvRequire) == "1" {
			t.Fatal(msg + ", and " + redisEnvRequire + "=1")
		}
		t.Skip(msg)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	s := &redisServer{t: t, bin: bin, dir: t.TempDir(), addr: "127.0.0.1:" + port, port: port, extra: extra}
	s.start()
	t.Cleanup(s.kill)
	return s
}

// start starts the server (again, on the same port and directory) and
// waits until it answers.
func (s *redisServer) start() {
	s.t.Helper()
	args := append([]string{
		"--bind", "127.0.0.1", "--port", s.port, "--daemonize", "no",
		"--save", "", "--appendonly", "yes", "--appendfsync", "always",
		"--dir", s.dir, "--logfile", filepath.Join(s.dir, "redis.log"),
	}, s.extra...)
	cmd := exec.Command(s.bin, args...)
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting redis-server: %v", err)
	}
	s.cmd, s.exited = cmd, make(chan struct{})
	exited := s.exited
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if s.answers() {
			return
		}
		select {
		case <-exited:
			s.t.Fatalf("redis-server exited at start:\n%s", s.log())
		default:
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("redis-server on %s does not answer after 10s:\n%s", s.addr, s.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// answers reports whether the server replies to PING (any reply: PONG,
// NOAUTH, LOADING).
func (s *redisServer) answers() bool {
	c, err := net.DialTimeout("tcp", s.addr, time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, "PING\r\n"); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line != ""
}

// kill stops the server with SIGKILL, if it runs.
func (s *redisServer) kill() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
	s.cmd = nil
}

func (s *redisServer) log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "redis.log"))
	return string(b)
}

// faultKeys returns n fresh random keys, with up to old keys drawn from
// pool and two repeats of the batch's first key.
func faultKeys(r *rand.Rand, n, old int, pool []seen.Key) []seen.Key {
	keys := redisRandomKeys(r, n)
	for range min(old, len(pool)) {
		keys = append(keys, pool[r.IntN(len(pool))])
	}
	keys = append(keys, keys[0], keys[0])
	r.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
	return keys
}

// TestRedisFaultRestart runs the two-step protocol (Contains, then Insert)
// in a loop against a server that is killed with SIGKILL in the middle and
// restarted 0.5 s later on the same port and data: the calls during the
// outage retry and succeed, every answer agrees with what was inserted,
// and at the end every inserted key is there and Len is exact.
func TestRedisFaultRestart(t *testing.T) {
	redisSkipShort(t)
	srv := newRedisServer(t)
	r, err := redis.Open([]string{srv.addr}, &redis.Options{AnyParams: true, Prefix: redisPrefix(t), Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	var batches, slowest atomic.Int64
	stop := make(chan struct{})
	done := make(chan error, 1)
	model := map[seen.Key]bool{} // the worker's until done
	var pool []seen.Key
	go func() {
		rng := rand.New(rand.NewPCG(31, 32))
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			keys := faultKeys(rng, 300+rng.IntN(1500), 200, pool)
			has := make([]bool, len(keys))
			start := time.Now()
			if err := r.Contains(keys, has); err != nil {
				done <- fmt.Errorf("batch %d: Contains: %w", i, err)
				return
			}
			for j, k := range keys {
				if has[j] != model[k] {
					done <- fmt.Errorf("batch %d: Contains(%x) = %v, but it was inserted: %v", i, k, has[j], model[k])
					return
				}
			}
			if err := r.Insert(keys); err != nil {
				done <- fmt.Errorf("batch %d: Insert: %w", i, err)
				return
			}
			if d := int64(time.Since(start)); d > slowest.Load() {
				slowest.Store(d)
			}
			for _, k := range keys {
				if !model[k] {
					model[k] = true
					pool = append(pool, k)
				}
			}
			batches.Add(1)
		}
	}()
	waitBatches := func(n int64, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for batches.Load() < n {
			select {
			case err := <-done:
				t.Fatal(err)
			default:
			}
			if time.Now().After(deadline) {
				close(stop)
				t.Fatalf("only %d batches after %v, want %d", batches.Load(), within, n)
			}
			time.Sleep(time.Millisecond)
		}
	}
	waitBatches(20, 5*time.Second)
	srv.kill()
	killed := batches.Load()
	time.Sleep(500 * time.Millisecond)
	during := batches.Load() - killed // answered by a dead server: none
	srv.start()
	restarted := time.Now()
	waitBatches(killed+20, 10*time.Second)
	close(stop)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	t.Logf("%d batches, %d keys; killed after batch %d, %d batches in the outage; slowest batch %v; 20 batches %v after the restart",
		batches.Load(), len(model), killed, during, time.Duration(slowest.Load()), time.Since(restarted))
	if during > 1 { // one may have completed as the kill landed
		t.Errorf("%d batches completed while the server was down", during)
	}
	if d := time.Duration(slowest.Load()); d < 400*time.Millisecond {
		t.Errorf("slowest batch %v: no call waited through the 0.5 s outage", d)
	}
	has := make([]bool, len(pool))
	if err := r.Contains(pool, has); err != nil {
		t.Fatal(err)
	}
	for i, v := range has {
		if !v {
			t.Fatalf("inserted key %d (%x) is missing after the restart", i, pool[i])
		}
	}
	if n, err := r.Count(); err != nil || n != int64(len(model)) {
		t.Fatalf("Count = %d, %v; want %d", n, err, len(model))
	}
}

// TestRedisFaultDown kills the server and leaves it down: Contains and
// Insert fail after their retries, within the bounded time, with an error
// that counts the attempts and wraps the network error; Close ends a
// retry's wait at once.
func TestRedisFaultDown(t *testing.T) {
	redisSkipShort(t)
	srv := newRedisServer(t)
	opts := &redis.Options{AnyParams: true, Prefix: redisPrefix(t), Retries: 4, RetryBackoff: 20 * time.Millisecond, MaxRetryBackoff: 100 * time.Millisecond, Timeout: 5 * time.Second}
	r, err := redis.Open([]string{srv.addr}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	slow, err := redis.Open([]string{srv.addr}, &redis.Options{AnyParams: true, Prefix: opts.Prefix, RetryBackoff: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	keys := redisRandomKeys(rand.New(rand.NewPCG(33, 34)), 2000)
	if err := r.Insert(keys[:1000]); err != nil {
		t.Fatal(err)
	}
	if err := slow.Insert(keys[1000:1100]); err != nil {
		t.Fatal(err)
	}
	srv.kill()

	const waits = 20 + 40 + 80 + 100 // ms, the four waits between five attempts
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"Contains", func() error { return r.Contains(keys, make([]bool, len(keys))) }},
		{"Insert", func() error { return r.Insert(keys) }},
	} {
		start := time.Now()
		err := op.call()
		d := time.Since(start)
		t.Logf("%s on a dead server: %v after %v", op.name, err, d)
		if err == nil {
			t.Fatalf("%s on a dead server succeeded", op.name)
		}
		if want := "seen: redis: " + op.name + ": gave up after 5 attempts in "; !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: err = %q, want it to start with %q", op.name, err, want)
		}
		var ne net.Error
		if !errors.As(err, &ne) && !errors.Is(err, io.EOF) {
			t.Errorf("%s: err = %v does not wrap the network error", op.name, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: the error is not one line: %q", op.name, err)
		}
		if d < waits*time.Millisecond || d > waits*time.Millisecond+5*2*time.Second {
			t.Errorf("%s failed after %v, want between %v (the waits) and the waits plus 2 s per attempt", op.name, d, waits*time.Millisecond)
		}
	}

	// Close during a 2 s wait: the call returns ErrClosed at once.
	errc := make(chan error, 1)
	start := time.Now()
	go func() { errc <- slow.Contains(keys, make([]bool, len(keys))) }()
	time.Sleep(500 * time.Millisecond)
	slow.Close()
	closed := time.Now()
	select {
	case err := <-errc:
		t.Logf("Contains closed while retrying: %v after %v", err, time.Since(start))
		if !errors.Is(err, seen.ErrClosed) {
			t.Errorf("Contains closed while retrying: err = %v, want ErrClosed", err)
		}
		if d := time.Since(closed); d > time.Second {
			t.Errorf("Contains returned %v after Close", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Contains still retrying 5 s after Close")
	}
}

// TestRedisPasswordServer: against servers that require a password, a
// wrong one is refused (WRONGPASS, not retried) and a right one works,
// and no error, of OpenRedisURL, OpenRedis or of a method of the set once
// the server is gone, holds the password.
func TestRedisPasswordServer(t *testing.T) {
	redisSkipShort(t)
	const pw = "s3cr3t-pw"
	check := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: no error", what)
			return
		}
		if strings.Contains(err.Error(), pw) {
			t.Errorf("%s: the error holds the password: %v", what, err)
		}
		t.Logf("%s: %v", what, err)
	}

	other := newRedisServer(t, "--requirepass", "another-password")
	_, err := redis.OpenURL("redis://:"+pw+"@"+other.addr+"/0", anyParams)
	check("OpenRedisURL with a wrong password", err)
	if err != nil && !strings.Contains(err.Error(), "WRONGPASS") {
		t.Errorf("wrong password: err = %v, want WRONGPASS", err)
	}
	_, err = redis.OpenURL("redis://default:"+pw+"@"+other.addr, &redis.Options{AnyParams: true, Mode: redis.Standalone})
	check("OpenRedisURL with a user and a wrong password", err)
	_, err = redis.Open([]string{other.addr}, &redis.Options{AnyParams: true, Password: pw})
	check("OpenRedis with a wrong password", err)

	srv := newRedisServer(t, "--requirepass", pw)
	_, err = redis.OpenURL("redis://"+srv.addr, anyParams)
	check("OpenRedisURL without the password", err)
	r, err := redis.OpenURL("redis://:"+pw+"@"+srv.addr+"/0?prefix="+redisPrefix(t), &redis.Options{AnyParams: true, Retries: 1, RetryBackoff: time.Millisecond})
	if err != nil {
		t.Fatalf("OpenRedisURL with the password: %v", err)
	}
	defer r.Close()
	keys := redisRandomKeys(rand.New(rand.NewPCG(35, 36)), 100)
	if err := r.Insert(keys); err != nil {
		t.Fatal(err)
	}
	srv.kill()
	// Each call takes go-redis' dial retries: run them at the same time.
	calls := map[string]func() error{
		"Contains": func() error { return r.Contains(keys, make([]bool, len(keys))) },
		"Insert":   func() error { return r.Insert(keys) },
		"AddBatch": func() error { return r.AddBatch(keys, make([]bool, len(keys))) },
		"Add":      func() error { _, err := r.Add(keys[0]); return err },
		"Count":    func() error { _, err := r.Count(); return err },
		"Drop":     r.Drop,
	}
	errs := map[string]error{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for name, call := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := call()
			mu.Lock()
			errs[name] = err
			mu.Unlock()
		}()
	}
	wg.Wait()
	for name := range calls {
		check(name, errs[name])
	}
}

// TestRedisNotRetried: an error that is not transient (WRONGTYPE: the
// shard key holds a string) is returned at once, without retries.
func TestRedisNotRetried(t *testing.T) {
	addrs := redisAddrs(t, redisEnvSingle)
	prefix := redisPrefix(t)
	r := openRedis(t, addrs, prefix)
	defer r.Close()
	r2, err := redis.Open(addrs, &redis.Options{AnyParams: true, Prefix: prefix, RetryBackoff: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	k := seen.Key{1, 2, 3}
	if err := r2.Client().Set(context.Background(), r2.ShardKey(k), "not a set", 0).Err(); err != nil {
		t.Fatal(err)
	}
	// (Removed before the cleanup opens the set to drop it: OpenRedis
	// counts the keys, and a shard that is not a set fails that.)
	defer r2.Client().Del(context.Background(), r2.ShardKey(k))
	for _, op := range []struct {
		name string
		call func() error
	}{
		{"Contains", func() error { return r2.Contains([]seen.Key{k}, make([]bool, 1)) }},
		{"Insert", func() error { return r2.Insert([]seen.Key{k}) }},
	} {
		start := time.Now()
		err := op.call()
		d := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "WRONGTYPE") || strings.Contains(err.Error(), "attempt") {
			t.Errorf("%s of a key whose shard is a string: err = %v, want WRONGTYPE without retries", op.name, err)
		}
		if d > 500*time.Millisecond {
			t.Errorf("%s took %v: retried a WRONGTYPE", op.name, d)
		}
	}
}
