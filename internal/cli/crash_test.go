package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/testexec"
)

// envCLIArgs makes the test binary act as the uriscan command, with the
// JSON list of arguments it holds: the victim of the kill tests.
const envCLIArgs = "URISCAN_CLI_ARGS"

// envCLIPeak names a file where such a child writes /proc/self/status as
// it exits.
const envCLIPeak = "URISCAN_CLI_STATUS"

func TestMain(m *testing.M) {
	if a := os.Getenv(envCLIArgs); a != "" {
		var args []string
		if err := json.Unmarshal([]byte(a), &args); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(99)
		}
		os.Args = append([]string{"uriscan"}, args...)
		code := Main(testStores)
		if f := os.Getenv(envCLIPeak); f != "" {
			// The peak resident set of this process since its exec
			// (getrusage's ru_maxrss of a child counts its parent's at
			// the fork).
			status, err := os.ReadFile("/proc/self/status")
			if err == nil {
				err = os.WriteFile(f, status, 0o644)
			}
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(99)
			}
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// child returns the command that runs "uriscan ARGS..." in a process of
// its own.
func child(t *testing.T, dir string, args ...string) *exec.Cmd {
	t.Helper()
	cmd, err := testexec.Self()
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(args)
	cmd.Env = append(os.Environ(), envCLIArgs+"="+string(a))
	cmd.Dir = dir
	return cmd
}

// killInput writes a dedup input where most lines are new: n lines drawn
// from 0.8n URIs, in several spellings of each, with some blank and
// invalid lines.
func killInput(t *testing.T, dir string, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(7, uint64(n)))
	var b bytes.Buffer
	for range n {
		j := r.IntN(n * 8 / 10)
		switch r.IntN(40) {
		case 0:
			b.WriteString("\n")
		case 1:
			fmt.Fprintf(&b, "http://bad host/%d\n", j)
		case 2:
			fmt.Fprintf(&b, "HTTP://H%d.EXAMPLE:80/p/%d?q=%d\n", j%97, j, j%7)
		case 3:
			// Passwords: redacted in the output, and in the keys, so
			// that the keys rebuilt from the output are those written.
			fmt.Fprintf(&b, "http://u:pw%d@h%d.example/p/%d\n", j%3, j%97, j)
		default:
			fmt.Fprintf(&b, "http://h%d.example/p/%d?q=%d\n", j%97, j, j%7)
		}
	}
	name := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// reference is what one uninterrupted in-memory run writes, and its
// summary.
func reference(t *testing.T, input string, flags ...string) (out, summary string) {
	t.Helper()
	_, out, errs := cli(t, "", append(append([]string{"dedup", "--key-file", ""}, flags...), input)...)
	return out, lastLine(errs)
}

// textInput rewrites a killInput as log-like text for dedup --extract:
// each URI inside a line of prose, two on some lines.
func textInput(t *testing.T, input string) string {
	t.Helper()
	b, err := os.ReadFile(input)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for i, l := range lines(string(b)) {
		fmt.Fprintf(&out, "%d GET <%s> from (see %s).\n", i, l, strings.ToUpper(l[:min(len(l), 12)])+l[min(len(l), 12):])
	}
	name := input + ".log"
	if err := os.WriteFile(name, out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func lastLine(s string) string {
	l := lines(s)
	if len(l) == 0 {
		return ""
	}
	return l[len(l)-1]
}

// killLoop runs args as a child again and again, with --workers 1, 2, 1,
// 2... in turn (so that every resume has other workers than the run it
// resumes), killing it with SIGKILL at a random moment, until it has been
// killed kills times in all. A run that ends before its kill completes a
// round: check gets the standard output of each of the round's runs and
// the last one's standard error, and reset starts the next round afresh.
// After the last kill one more run goes to the end and completes the last
// round. It returns the number of rounds.
func killLoop(t *testing.T, dir string, kills int, check func(outs []string, lastErr string), reset func(), args ...string) int {
	t.Helper()
	r := rand.New(rand.NewPCG(1, uint64(kills)))
	var outs []string
	rounds := 0
	for killed, i := 0, 0; ; i++ {
		cmd := child(t, dir, append(slices.Clip(args), "--workers", strconv.Itoa(1+i%2))...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var err error
		if killed < kills {
			// From before the store is open to well into the run.
			time.Sleep(time.Duration(r.Int64N(int64(150 * time.Millisecond))))
			cmd.Process.Signal(syscall.SIGKILL)
		}
		err = cmd.Wait()
		outs = append(outs, out.String())
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
			killed++
			continue
		}
		if err != nil && !isExit(err, 1) {
			t.Fatalf("run %d: %v\n%s", i, err, errb.String())
		}
		rounds++
		check(outs, errb.String())
		outs = nil
		if killed >= kills {
			return rounds
		}
		reset()
	}
}

func isExit(err error, code int) bool {
	ee, ok := err.(*exec.ExitError)
	return ok && ee.ExitCode() == code
}

func writeKey(t *testing.T, dir string) string {
	t.Helper()
	key := filepath.Join(dir, "key.hex")
	if err := os.WriteFile(key, []byte(fmt.Sprintf("%064x", time.Now().UnixNano())), 0o600); err != nil {
		t.Fatal(err)
	}
	return key
}

// TestDedupKillOutput: with --output, after 50 kills at random moments
// and a run to the end, the file holds every input line's first
// occurrence exactly once, in input order: what one uninterrupted run
// writes, with the same summary; runs with one worker and with two in
// turn (killLoop), and a store on disk, in memory, and in Redis (a
// server of the test's own that syncs every write).
func TestDedupKillOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process 50 times")
	}
	for _, tc := range []struct {
		store string
		kills int
	}{{"disk", 50}, {"memory", 20}, {"disk-extract", 20}, {"memory-safebrowsing", 10}, {"redis", 20}} {
		t.Run(tc.store, func(t *testing.T) {
			dir := t.TempDir()
			input := killInput(t, dir, 60000)
			var flags []string
			switch tc.store {
			case "disk-extract":
				input, flags = textInput(t, input), []string{"--extract"}
			case "memory-safebrowsing":
				// A Raw level: the memory set is rebuilt from the output's
				// lines by the level's canonicalization.
				flags = []string{"--level", "safebrowsing"}
			}
			want, summary := reference(t, input, flags...)
			if len(lines(want)) < 10000 {
				t.Fatalf("the reference wrote %d lines", len(lines(want)))
			}
			store := "memory"
			args := append([]string{"dedup", "--output", "out.txt", "--batch", "128", input}, flags...)
			var srv *redisServer
			switch {
			case strings.HasPrefix(tc.store, "disk"):
				store = "disk:" + filepath.Join(dir, "seen")
				args = append(args, "--store", store, "--key-file", writeKey(t, dir))
			case tc.store == "redis":
				srv = startRedis(t)
				args = append(args, "--store", "redis://"+srv.addr(), "--key-file", writeKey(t, dir))
			}
			check := func(outs []string, errs string) {
				for i, o := range outs {
					if o != "" {
						t.Fatalf("run %d wrote %d bytes to standard output", i, len(o))
					}
				}
				got, err := os.ReadFile(filepath.Join(dir, "out.txt"))
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != want {
					gl, wl := lines(string(got)), lines(want)
					t.Fatalf("after %d runs: %d lines, want %d; %s", len(outs), len(gl), len(wl), firstDifference(gl, wl))
				}
				if s := strings.TrimSuffix(lastLine(errs), " (resumed from out.txt.checkpoint)"); s != summary {
					t.Fatalf("summary %q, want %q", s, summary)
				}
			}
			reset := func() {
				for _, f := range []string{"out.txt", "out.txt.checkpoint", "seen"} {
					if err := os.RemoveAll(filepath.Join(dir, f)); err != nil {
						t.Fatal(err)
					}
				}
				if srv != nil {
					srv.flush()
				}
			}
			rounds := killLoop(t, dir, tc.kills, check, reset, args...)
			t.Logf("%d kills in %d rounds, %d lines in the output, exactly once", tc.kills, rounds, len(lines(want)))
		})
	}
}

// TestDedupKillPipe: to a pipe, with a disk store and --resume, after 50
// kills every first occurrence has been written at least once, each run's
// lines are in input order, and a line is repeated only within one batch
// of a kill; runs with one worker and with two in turn (killLoop).
func TestDedupKillPipe(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process 50 times")
	}
	dir := t.TempDir()
	input := killInput(t, dir, 60000)
	want, _ := reference(t, input)
	const batch = 128
	args := []string{"dedup", "--store", "disk:" + filepath.Join(dir, "seen"), "--key-file", writeKey(t, dir),
		"--checkpoint", "ckpt", "--resume", "--batch", strconv.Itoa(batch), input}
	order := map[string]int{}
	for i, l := range lines(want) {
		order[l] = i
	}
	allRepeats, torn := 0, 0
	check := func(outs []string, _ string) {
		seen := map[string]int{}
		repeats := 0
		for i, o := range outs {
			ls := strings.SplitAfter(o, "\n")
			if last := ls[len(ls)-1]; last != "" {
				torn++ // a kill in the middle of a write: the consumer drops it
			}
			prev := -1
			for _, l := range ls {
				if !strings.HasSuffix(l, "\n") {
					continue
				}
				l = strings.TrimSuffix(l, "\n")
				k, ok := order[l]
				if !ok {
					t.Fatalf("run %d wrote %q, not a first occurrence", i, l)
				}
				if k <= prev {
					t.Fatalf("run %d: %q out of order", i, l)
				}
				prev = k
				if seen[l]++; seen[l] > 1 {
					repeats++
				}
			}
		}
		for l := range order {
			if seen[l] == 0 {
				t.Fatalf("%q never written", l)
			}
		}
		if repeats > (len(outs)-1)*batch {
			t.Fatalf("%d lines repeated in %d runs, more than a batch per kill", repeats, len(outs))
		}
		allRepeats += repeats
	}
	reset := func() {
		for _, f := range []string{"ckpt", "seen"} {
			if err := os.RemoveAll(filepath.Join(dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	rounds := killLoop(t, dir, 50, check, reset, args...)
	t.Logf("50 kills in %d rounds: all %d lines written each round, %d repeated (at most a batch of %d per kill), %d torn last lines", rounds, len(order), allRepeats, batch, torn)
}

func firstDifference(got, want []string) string {
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("line %d: %q, want %q", i+1, g, w)
		}
	}
	return "equal"
}

// redisServer is a redis-server of the test's own, with every write on
// disk before it is acknowledged, so that it can be killed and restarted.
type redisServer struct {
	t     *testing.T
	dir   string
	port  int
	cmd   *exec.Cmd
	extra []string // more redis-server arguments
}

func startRedis(t *testing.T, extra ...string) *redisServer {
	t.Helper()
	if _, err := exec.LookPath("redis-server"); err != nil {
		if os.Getenv("URISCAN_REDIS_REQUIRE") != "" {
			t.Fatal("redis-server not on PATH")
		}
		t.Skip("redis-server not on PATH")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &redisServer{t: t, dir: t.TempDir(), port: port, extra: extra}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *redisServer) start() {
	s.t.Helper()
	s.cmd = exec.Command("redis-server", append([]string{"--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "yes", "--appendfsync", "always", "--dir", s.dir}, s.extra...)...)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	for range 200 {
		if c, err := net.Dial("tcp", s.addr()); err == nil {
			fmt.Fprintf(c, "PING\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") {
				return
			}
		}
		time.Sleep(25 * time.Millisecond)
	}
	s.t.Fatal("redis-server did not start")
}

func (s *redisServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
}

func (s *redisServer) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// flush empties the server (FLUSHALL).
func (s *redisServer) flush() {
	s.t.Helper()
	c, err := net.Dial("tcp", s.addr())
	if err != nil {
		s.t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "FLUSHALL\r\n")
	if line, _ := bufio.NewReader(c).ReadString('\n'); !strings.HasPrefix(line, "+OK") {
		s.t.Fatalf("FLUSHALL: %q", line)
	}
}

// TestDedupRedisRestart: a Redis server killed and restarted in the middle
// of a run (with two workers) costs retries, not URIs: the output is what an uninterrupted
// run writes. Killed for good, the run stops with a clear error and the
// count of lines not decided, and a rerun once it is back completes the
// output exactly once.
func TestDedupRedisRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a Redis server")
	}
	srv := startRedis(t)
	dir := t.TempDir()
	input := killInput(t, dir, 40000)
	want, summary := reference(t, input)
	key := writeKey(t, dir)
	args := func(out string) []string {
		return []string{"dedup", "--store", "redis://" + srv.addr() + "/3", "--store-prefix", "restart:" + out + ":",
			"--key-file", key, "--output", out, "--batch", "128", "--workers", "2", input}
	}
	run := func(cmd *exec.Cmd) (string, error) {
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		return errb.String(), err
	}

	// Killed and back within the retries.
	cmd := child(t, dir, args("a.txt")...)
	done := make(chan struct{})
	var errs string
	var err error
	go func() { errs, err = run(cmd); close(done) }()
	waitGrow(t, filepath.Join(dir, "a.txt"), 1)
	srv.kill()
	time.Sleep(500 * time.Millisecond)
	srv.start()
	<-done
	if err != nil && !isExit(err, 1) {
		t.Fatalf("run across a restart: %v\n%s", err, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(got) != want || lastLine(errs) != summary {
		t.Fatalf("across a restart: %d lines, want %d; summary %q, want %q", len(lines(string(got))), len(lines(want)), lastLine(errs), summary)
	}

	// Killed for good: a clear error, then a rerun completes.
	cmd = child(t, dir, args("b.txt")...)
	done = make(chan struct{})
	go func() { errs, err = run(cmd); close(done) }()
	waitGrow(t, filepath.Join(dir, "b.txt"), 1)
	srv.kill()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("dedup did not give up on a dead server within 60 s")
	}
	if !isExit(err, 2) || !strings.Contains(errs, "stopped: the input is decided up to") || !strings.Contains(errs, "lines read after it were not decided") {
		t.Fatalf("dead server: %v\n%s", err, errs)
	}
	srv.start()
	errs, err = run(child(t, dir, args("b.txt")...))
	if err != nil && !isExit(err, 1) {
		t.Fatalf("rerun: %v\n%s", err, errs)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "b.txt")); string(got) != want {
		t.Fatalf("rerun: %d lines, want %d", len(lines(string(got))), len(lines(want)))
	}
}

// waitGrow waits until the file holds at least n bytes.
func waitGrow(t *testing.T, name string, n int64) {
	t.Helper()
	for range 1000 {
		if fi, err := os.Stat(name); err == nil && fi.Size() >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s did not grow to %d bytes", name, n)
}
