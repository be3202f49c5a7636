//go:build unix

package main

import (
	"bufio"
	"bytes"
	"debug/elf"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// othersPct is other processes' CPU use during the kept whole-process
// blocks, in % of one CPU.
var othersPct float64

// tinyPkg is where the tiny binaries' packages are.
const tinyPkg = "github.com/uriscan/uriscan/bench/cmd/redisclients/tiny/"

// tiny is one of the tiny binaries: name is its package under tiny/, own
// the import path prefix of the client's own packages ("" for the
// baselines).
type tiny struct {
	name, label, own string
}

var tinies = []tiny{
	{"hello", "hello world", ""},
	{"nettls", "net + crypto/tls", ""},
	{"goredis", "go-redis v9", "github.com/redis/go-redis/v9"},
	{"redigo", "redigo", "github.com/gomodule/redigo"},
	{"rueidis", "rueidis", "github.com/redis/rueidis"},
}

// A build mode: the environment go build gets.
type mode struct{ name, cgo string }

var modes = []mode{{"cgo", "1"}, {"nocgo", "0"}}

// bin is one built binary.
type bin struct {
	t      tiny
	m      mode
	path   string
	size   int64
	dyn    bool                 // has an ELF interpreter (dynamically linked)
	traces []map[string]pkgInit // one per GODEBUG=inittrace=1 run
	walls  []time.Duration
	cpus   []time.Duration // user + system time of each whole-process run
}

// pkgInit is one package's line of GODEBUG=inittrace=1.
type pkgInit struct {
	ms            float64
	bytes, allocs int64
}

func runInit(args []string) {
	fs := flag.NewFlagSet("init", flag.ExitOnError)
	n := fs.Int("n", 2000, "whole-process runs of each binary (round-robin over all binaries)")
	traces := fs.Int("traces", 200, "GODEBUG=inittrace=1 runs of each binary (round-robin)")
	out := fs.String("out", "", "where to build the binaries (default: a temporary directory, removed at the end)")
	verbose := fs.Bool("v", false, "list the packages in each init group")
	idle := fs.Float64("idle", 0.2, "before each block of 50 turns, wait until the machine used less than this many CPUs (0: do not wait)")
	idleWait := fs.Duration("idlewait", 10*time.Second, "the longest wait for -idle")
	maxOthers := fs.Float64("maxothers", 0.15, "a block of turns during which other processes used more than this many CPUs is run again")
	tries := fs.Int("tries", 3, "runs of a block at most (the last is kept)")
	check(fs.Parse(args))

	dir := *out
	if dir == "" {
		d, err := os.MkdirTemp("", "redisclients-init")
		check(err)
		defer os.RemoveAll(d)
		dir = d
	}
	goCmd := "go"
	if g := os.Getenv("GO"); g != "" {
		goCmd = g
	}
	var bins []*bin
	for _, m := range modes {
		for _, t := range tinies {
			p := filepath.Join(dir, t.name+"-"+m.name)
			cmd := exec.Command(goCmd, "build", "-o", p, tinyPkg+t.name)
			cmd.Env = append(os.Environ(), "CGO_ENABLED="+m.cgo)
			if out, err := cmd.CombinedOutput(); err != nil {
				check(fmt.Errorf("go build %s (CGO_ENABLED=%s; run init from bench/): %v\n%s", t.name, m.cgo, err, out))
			}
			st, err := os.Stat(p)
			check(err)
			f, err := elf.Open(p)
			check(err)
			dyn := slices.ContainsFunc(f.Progs, func(p *elf.Prog) bool { return p.Type == elf.PT_INTERP })
			f.Close()
			bins = append(bins, &bin{t: t, m: m, path: p, size: st.Size(), dyn: dyn})
		}
	}

	// GODEBUG=inittrace=1, round-robin.
	for i := 0; i < *traces; i++ {
		if i%50 == 0 {
			waitIdle(*idle, *idleWait)
		}
		for _, b := range bins {
			b.traces = append(b.traces, initTrace(b.path))
		}
	}

	// Whole process, fork and exec, round-robin, standard streams on
	// /dev/null, in blocks of 50 turns after ten turns to warm up. A block
	// starts on an idle machine, and is run again when other processes
	// used more than -maxothers CPUs during it.
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	check(err)
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{devnull.Fd(), devnull.Fd(), devnull.Fd()}}
	turn := func(keep bool) {
		for _, b := range bins {
			t := time.Now()
			pid, err := syscall.ForkExec(b.path, []string{b.path}, attr)
			check(err)
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			_, err = syscall.Wait4(pid, &ws, 0, &ru)
			check(err)
			d := time.Since(t)
			if !ws.Exited() || ws.ExitStatus() != 0 {
				check(fmt.Errorf("%s: %v", b.path, ws))
			}
			if keep {
				b.walls = append(b.walls, d)
				b.cpus = append(b.cpus, time.Duration(ru.Utime.Nano()+ru.Stime.Nano()))
			}
		}
	}
	for range 10 {
		turn(false)
	}
	var others, measured time.Duration
	var redone int
	for done := 0; done < *n; {
		k := min(50, *n-done)
		for try := 1; ; try++ {
			waitIdle(*idle, *idleWait)
			lens := make([]int, len(bins))
			for i, b := range bins {
				lens[i] = len(b.walls)
			}
			b0, c0, t0 := cpuBusy(), ownCPU(), time.Now()
			for range k {
				turn(true)
			}
			wall, o := time.Since(t0), cpuBusy()-b0-(ownCPU()-c0)
			if float64(o) > *maxOthers*float64(wall) && try < *tries {
				for i, b := range bins {
					b.walls, b.cpus = b.walls[:lens[i]], b.cpus[:lens[i]]
				}
				redone++
				continue
			}
			measured += wall
			others += max(0, o)
			break
		}
		done += k
	}
	fmt.Fprintf(os.Stderr, "whole process: %d blocks run again; others' CPU in the kept blocks: %.0f%% of one CPU\n", redone, 100*float64(others)/float64(measured))
	othersPct = 100 * float64(others) / float64(measured)

	report(bins, *n, *traces, *verbose)
}

// initTrace runs path with GODEBUG=inittrace=1 and returns its packages'
// init lines.
func initTrace(path string) map[string]pkgInit {
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	check(cmd.Run())
	m := map[string]pkgInit{}
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		// init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs
		var pkg string
		var at float64
		var p pkgInit
		if _, err := fmt.Sscanf(sc.Text(), "init %s @%f ms, %f ms clock, %d bytes, %d allocs", &pkg, &at, &p.ms, &p.bytes, &p.allocs); err == nil {
			m[pkg] = p
		}
	}
	if len(m) == 0 {
		check(fmt.Errorf("%s: no inittrace lines in %q", path, stderr.String()))
	}
	return m
}

// A group of packages in a binary's init trace.
type group int

const (
	gBase   group = iota // initialised in the net+crypto/tls binary too
	gStd                 // other standard library packages
	gDeps                // third-party packages other than the client's own
	gClient              // the client's own packages
	nGroups
)

func classify(pkg string, t tiny, base map[string]bool) group {
	switch {
	case t.own != "" && (pkg == t.own || strings.HasPrefix(pkg, t.own+"/")):
		return gClient
	case strings.Contains(strings.Split(pkg, "/")[0], "."):
		return gDeps
	case base[pkg]:
		return gBase
	}
	return gStd
}

// sums is per-group medians over a binary's trace runs.
type sums struct {
	ms            [nGroups + 1]float64 // [nGroups]: all packages
	bytes, allocs [nGroups + 1]int64
	pkgs          [nGroups][]string
}

func summarize(b *bin, base map[string]bool) sums {
	var s sums
	var ms [nGroups + 1][]float64
	var by, al [nGroups + 1][]int64
	pk := [nGroups]map[string]bool{}
	for g := range pk {
		pk[g] = map[string]bool{}
	}
	for _, tr := range b.traces {
		var m [nGroups + 1]float64
		var y, a [nGroups + 1]int64
		for pkg, p := range tr {
			g := classify(pkg, b.t, base)
			pk[g][pkg] = true
			for _, i := range []group{g, nGroups} {
				m[i] += p.ms
				y[i] += p.bytes
				a[i] += p.allocs
			}
		}
		for i := range m {
			ms[i] = append(ms[i], m[i])
			by[i] = append(by[i], y[i])
			al[i] = append(al[i], a[i])
		}
	}
	for i := range ms {
		s.ms[i] = median(ms[i])
		s.bytes[i] = median(by[i])
		s.allocs[i] = median(al[i])
	}
	for g := range pk {
		for p := range pk[g] {
			s.pkgs[g] = append(s.pkgs[g], p)
		}
		slices.Sort(s.pkgs[g])
	}
	return s
}

func report(bins []*bin, n, traces int, verbose bool) {
	fmt.Printf("## Binaries\n\n| binary | build | size (bytes) | size (MiB) | dynamically linked |\n| --- | --- | ---: | ---: | --- |\n")
	for _, b := range bins {
		fmt.Printf("| %s | %s | %d | %.2f | %v |\n", b.t.label, b.m.name, b.size, float64(b.size)/(1<<20), b.dyn)
	}

	fmt.Printf("\n## GODEBUG=inittrace=1 (medians of %d runs of each binary; ms is the trace's \"ms clock\")\n\n", traces)
	fmt.Printf("Groups: all = every package with init work; net+tls = packages the net + crypto/tls binary initialises too; " +
		"other std = the rest of the standard library; deps = third-party packages; client = the client's own packages.\n\n")
	fmt.Printf("| binary | build | all: ms | all: allocs | all: bytes | net+tls: ms / allocs | other std: ms / allocs / bytes | deps: ms / allocs / bytes | client: ms / allocs / bytes |\n")
	fmt.Printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	type key struct{ name, mode string }
	all := map[key]sums{}
	for _, m := range modes {
		var base map[string]bool
		for _, b := range bins {
			if b.m == m && b.t.name == "nettls" {
				base = map[string]bool{}
				for _, tr := range b.traces {
					for p := range tr {
						base[p] = true
					}
				}
			}
		}
		for _, b := range bins {
			if b.m != m {
				continue
			}
			s := summarize(b, base)
			all[key{b.t.name, m.name}] = s
			fmt.Printf("| %s | %s | %.3f | %d | %d | %.3f / %d | %.3f / %d / %d | %.3f / %d / %d | %.3f / %d / %d |\n",
				b.t.label, m.name, s.ms[nGroups], s.allocs[nGroups], s.bytes[nGroups],
				s.ms[gBase], s.allocs[gBase],
				s.ms[gStd], s.allocs[gStd], s.bytes[gStd],
				s.ms[gDeps], s.allocs[gDeps], s.bytes[gDeps],
				s.ms[gClient], s.allocs[gClient], s.bytes[gClient])
		}
	}
	fmt.Printf("\nPackages with init work beyond net + crypto/tls (build cgo):\n\n")
	for _, t := range tinies[2:] {
		s := all[key{t.name, "cgo"}]
		fmt.Printf("- %s: other std %v; deps %v; client %v\n", t.label, s.pkgs[gStd], s.pkgs[gDeps], s.pkgs[gClient])
	}
	if verbose {
		for _, t := range tinies {
			s := all[key{t.name, "cgo"}]
			fmt.Printf("- %s net+tls group: %v\n", t.label, s.pkgs[gBase])
		}
	}

	fmt.Printf("\n## Whole process (fork, exec, wait; %d runs of each binary, round-robin; others' CPU %.0f%% of one CPU)\n\n", n, othersPct)
	fmt.Printf("| binary | build | wall: median µs | p10 µs | p90 µs | × hello world (same build) | − net+tls µs | CPU (user+sys): median µs | × hello world | − net+tls µs |\n")
	fmt.Printf("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	med, cpu := map[key]time.Duration{}, map[key]time.Duration{}
	for _, b := range bins {
		med[key{b.t.name, b.m.name}] = median(slices.Clone(b.walls))
		cpu[key{b.t.name, b.m.name}] = median(slices.Clone(b.cpus))
	}
	for _, b := range bins {
		w := slices.Clone(b.walls)
		slices.Sort(w)
		k, h, nt := key{b.t.name, b.m.name}, key{"hello", b.m.name}, key{"nettls", b.m.name}
		fmt.Printf("| %s | %s | %.0f | %.0f | %.0f | %.2f | %+.0f | %.0f | %.2f | %+.0f |\n", b.t.label, b.m.name,
			us(med[k]), us(quantile(w, 0.1)), us(quantile(w, 0.9)), float64(med[k])/float64(med[h]), us(med[k]-med[nt]),
			us(cpu[k]), float64(cpu[k])/float64(cpu[h]), us(cpu[k]-cpu[nt]))
	}
}

func us(d time.Duration) float64 { return float64(d) / 1e3 }

// ownCPU is the user and system time of this process and its children.
func ownCPU() time.Duration {
	var self, children syscall.Rusage
	check(syscall.Getrusage(syscall.RUSAGE_SELF, &self))
	check(syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children))
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano())
}
