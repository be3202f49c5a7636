//go:build unix

package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// shards are the Redis keys of the seen-set's 16384 sets, as seen/redis
// lays them out (a prefix and a hash tag in braces), though with the
// shard's number as the tag: on one server the slot does not matter.
var shards [16384]string

func init() {
	for s := range shards {
		shards[s] = "redisclients:seen:{" + strconv.Itoa(s) + "}"
	}
}

// shardOf is seen/redis's shard of a 16-byte key.
func shardOf(k []byte) string { return shards[(uint16(k[0])|uint16(k[1])<<8)&16383] }

// result is one timed pass of one op over all keys.
type result struct {
	client, op     string
	pipe, conc     int
	wall           time.Duration
	clientCPU      time.Duration // user + system, this process
	serverCPU      time.Duration // user + system, INFO cpu of the server
	mallocs, alloc uint64
	others         time.Duration // the machine's busy CPU time less the client's and the server's
	conns          int           // the server's connected_clients less ours, after the pass
	ops            int
}

func (r result) opsPerSec() float64 { return float64(r.ops) / r.wall.Seconds() }

func runPipeline(args []string) {
	fs := flag.NewFlagSet("pipeline", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:6390", "Redis server (FLUSHALL is run on it: use a scratch server)")
	n := fs.Int("n", 1_000_000, "keys (16 random bytes each)")
	pipes := fs.String("p", "256,1024", "commands per pipeline, comma-separated")
	concs := fs.String("c", "1,4", "concurrent goroutines, comma-separated")
	rounds := fs.Int("rounds", 5, "rounds; every round runs every client on every setting, clients taking turns")
	names := fs.String("clients", strings.Join(clientNames, ","), "clients, comma-separated")
	seed := fs.Uint64("seed", 1, "seed of the keys")
	idle := fs.Float64("idle", 0.2, "before each pass, wait until the machine used less than this many CPUs (0: do not wait)")
	idleWait := fs.Duration("idlewait", 10*time.Second, "the longest wait for -idle")
	maxOthers := fs.Float64("maxothers", 0.15, "a pass during which other processes used more than this many CPUs is run again")
	tries := fs.Int("tries", 2, "runs of a pass at most (the one least disturbed is kept)")
	check(fs.Parse(args))

	ps, cs := ints(*pipes), ints(*concs)
	cl := strings.Split(*names, ",")
	keys := make([]byte, 16**n)
	rng := rand.NewChaCha8([32]byte{byte(*seed), byte(*seed >> 8), byte(*seed >> 16), byte(*seed >> 24)})
	_, _ = rng.Read(keys)

	ctl, err := dialCtl(*addr)
	check(err)
	info, err := ctl.do("INFO", "server")
	check(err)
	fmt.Fprintf(os.Stderr, "server %s, redis_version %s; GOMAXPROCS %d; %d keys\n", *addr, infoField(info, "redis_version"), runtime.GOMAXPROCS(0), *n)

	var results []result
	turn := 0
	for r := 0; r < *rounds; r++ {
		for _, p := range ps {
			for _, c := range cs {
				for i := range cl {
					name := cl[(i+turn)%len(cl)]
					var res []result
					for try := 1; try <= *tries; try++ {
						got, err := pass(ctl, *addr, name, keys, p, c, func() { waitIdle(*idle, *idleWait) })
						check(err)
						if res == nil || disturbed(got) < disturbed(res) {
							res = got
						}
						if disturbed(res) <= *maxOthers {
							break
						}
						again := ", again"
						if try == *tries {
							again = ", keeping the least disturbed try"
						}
						fmt.Fprintf(os.Stderr, "round %d p=%d c=%d %s: others used %.2f CPUs%s\n", r+1, p, c, name, disturbed(got), again)
					}
					for _, x := range res {
						fmt.Fprintf(os.Stderr, "round %d %-10s p=%-4d c=%d %-8s %9.0f ops/s  client %.2f µs/op  server %.2f µs/op  %.1f allocs/op  %d conns  others %.0f%% of a CPU\n",
							r+1, x.op, x.pipe, x.conc, x.client, x.opsPerSec(),
							us(x.clientCPU)/float64(x.ops), us(x.serverCPU)/float64(x.ops),
							float64(x.mallocs)/float64(x.ops), x.conns, 100*float64(x.others)/float64(x.wall))
					}
					results = append(results, res...)
				}
				turn++
			}
		}
	}
	_, _ = ctl.do("FLUSHALL")
	summary(results, cl, ps, cs, *n, *rounds)
}

// disturbed is the most CPUs other processes used during a pass's ops.
func disturbed(rs []result) float64 {
	var d float64
	for _, r := range rs {
		d = max(d, float64(r.others)/float64(r.wall))
	}
	return d
}

func ints(s string) []int {
	var v []int
	for f := range strings.SplitSeq(s, ",") {
		i, err := strconv.Atoi(strings.TrimSpace(f))
		check(err)
		v = append(v, i)
	}
	return v
}

// pass runs client name on an empty server: SADD of every key, then
// SMISMEMBER of every key, each timed.
func pass(ctl *ctlConn, addr, name string, keys []byte, pipe, conc int, idle func()) ([]result, error) {
	if _, err := ctl.do("FLUSHALL"); err != nil {
		return nil, err
	}
	cl, err := newClient(name, addr, conc)
	if err != nil {
		return nil, err
	}
	defer cl.close()
	ctx := context.Background()
	// Warm up: connections opened, code paths run, on absent keys (the
	// set stays empty).
	warm := keys[:min(len(keys), 16*pipe*conc)]
	if _, err := drive(ctx, cl, "smismember", warm, pipe, conc); err != nil {
		return nil, err
	}
	var res []result
	for _, op := range []string{"sadd", "smismember"} {
		r := result{client: name, op: op, pipe: pipe, conc: conc, ops: len(keys) / 16}
		runtime.GC()
		idle()
		var ms0, ms1 runtime.MemStats
		runtime.ReadMemStats(&ms0)
		s0, err := serverCPU(ctl)
		if err != nil {
			return nil, err
		}
		b0, c0 := cpuBusy(), processCPU()
		t := time.Now()
		got, err := drive(ctx, cl, op, keys, pipe, conc)
		r.wall = time.Since(t)
		r.clientCPU = processCPU() - c0
		busy := cpuBusy() - b0
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", name, op, err)
		}
		s1, err := serverCPU(ctl)
		if err != nil {
			return nil, err
		}
		runtime.ReadMemStats(&ms1)
		r.serverCPU = s1 - s0
		r.others = max(0, busy-r.clientCPU-r.serverCPU)
		r.mallocs, r.alloc = ms1.Mallocs-ms0.Mallocs, ms1.TotalAlloc-ms0.TotalAlloc
		if got != int64(r.ops) {
			return nil, fmt.Errorf("%s %s: %d replies of 1, want %d", name, op, got, r.ops)
		}
		info, err := ctl.do("INFO", "clients")
		if err != nil {
			return nil, err
		}
		r.conns, _ = strconv.Atoi(infoField(info, "connected_clients"))
		r.conns-- // ours
		res = append(res, r)
	}
	return res, nil
}

// drive sends keys in pipelines of pipe commands from conc goroutines, each
// with its own contiguous part of keys, and returns the sum of the batches'
// counts.
func drive(ctx context.Context, cl client, op string, keys []byte, pipe, conc int) (int64, error) {
	var wg sync.WaitGroup
	counts := make([]int64, conc)
	errs := make([]error, conc)
	n := len(keys) / 16
	for g := range conc {
		part := keys[16*(n*g/conc) : 16*(n*(g+1)/conc)]
		do := cl.worker(op)
		wg.Go(func() {
			for len(part) > 0 {
				b := part[:min(len(part), 16*pipe)]
				part = part[len(b):]
				c, err := do(ctx, b)
				if err != nil {
					errs[g] = err
					return
				}
				counts[g] += c
			}
		})
	}
	wg.Wait()
	var sum int64
	for _, c := range counts {
		sum += c
	}
	return sum, errors.Join(errs...)
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func serverCPU(ctl *ctlConn) (time.Duration, error) {
	info, err := ctl.do("INFO", "cpu")
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, f := range []string{"used_cpu_sys", "used_cpu_user"} {
		v, err := strconv.ParseFloat(infoField(info, f), 64)
		if err != nil {
			return 0, fmt.Errorf("INFO cpu %s: %w", f, err)
		}
		sum += v
	}
	return time.Duration(sum * 1e9), nil
}

func infoField(info, name string) string {
	for line := range strings.Lines(info) {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// ctlConn is a plain RESP connection for FLUSHALL and INFO, none of the
// clients measured.
type ctlConn struct {
	c net.Conn
	r *bufio.Reader
}

func dialCtl(addr string) (*ctlConn, error) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	return &ctlConn{c, bufio.NewReader(c)}, nil
}

// do sends a command and returns a simple, integer or bulk string reply.
func (c *ctlConn) do(args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := c.c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	line, err := c.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch {
	case line == "":
		return "", errors.New("empty reply")
	case line[0] == '+' || line[0] == ':':
		return line[1:], nil
	case line[0] == '-':
		return "", errors.New(line[1:])
	case line[0] == '$':
		n, err := strconv.Atoi(line[1:])
		if err != nil || n < 0 {
			return "", fmt.Errorf("bad reply %q", line)
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(c.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

// summary prints, per op, pipeline and concurrency, each client's median
// over the rounds.
func summary(results []result, cl []string, ps, cs []int, n, rounds int) {
	fmt.Printf("| op | commands per pipeline | goroutines | client | connections | ops/s (median of %d) | min–max | × go-redis | client CPU µs/op | server CPU µs/op | allocs/op | B/op | others' CPU |\n", rounds)
	fmt.Printf("| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, op := range []string{"sadd", "smismember"} {
		for _, p := range ps {
			for _, c := range cs {
				type row struct {
					name                                   string
					conns                                  int
					ops, ccpu, scpu, allocs, bytes, others []float64
				}
				var rows []row
				base := 0.0
				for _, name := range cl {
					w := row{name: name}
					for _, r := range results {
						if r.op == op && r.pipe == p && r.conc == c && r.client == name {
							w.conns = r.conns
							w.ops = append(w.ops, r.opsPerSec())
							w.ccpu = append(w.ccpu, us(r.clientCPU)/float64(r.ops))
							w.scpu = append(w.scpu, us(r.serverCPU)/float64(r.ops))
							w.allocs = append(w.allocs, float64(r.mallocs)/float64(r.ops))
							w.bytes = append(w.bytes, float64(r.alloc)/float64(r.ops))
							w.others = append(w.others, 100*float64(r.others)/float64(r.wall))
						}
					}
					if len(w.ops) == 0 {
						continue
					}
					if name == "goredis" {
						base = median(w.ops)
					}
					rows = append(rows, w)
				}
				for _, w := range rows {
					m := median(w.ops)
					fmt.Printf("| %s | %d | %d | %s | %d | %.0f | %.0f–%.0f | %.2f | %.2f | %.2f | %.1f | %.0f | %.0f%% |\n",
						strings.ToUpper(op), p, c, label(w.name), w.conns, m, slices.Min(w.ops), slices.Max(w.ops), m/base,
						median(w.ccpu), median(w.scpu), median(w.allocs), median(w.bytes), median(w.others))
				}
			}
		}
	}
	fmt.Printf("\n%d keys of 16 bytes per pass; ops/s = keys / wall time of the pass; CPU µs/op = user + system time / keys;\n"+
		"others' CPU = the machine's busy time (/proc/stat) less the client's and the server's, in %% of one CPU over the pass (median).\n", n)
}

func label(name string) string {
	if l, ok := clientLabels[name]; ok {
		return l
	}
	return name
}
