//go:build unix

// Command startup times whole processes that do almost nothing, to compare
// a command's start-up with a Go hello world's (uriscan validate
// of a one-line file within 2x a hello world). Each command line (split
// at spaces) is started with fork and exec and waited for, its standard
// streams on /dev/null, -n times per round; the commands take turns, so
// that a noisy neighbour slows them alike. Each round prints every
// command's median, 10th and 90th percentile wall time and its median's
// ratio to the first command's; after the last, the median of the rounds'
// medians and ratios. With -hello a hello world is built first (the go
// command on PATH) and timed as the first command.
//
// From the repository root:
//
//	make build && printf 'http://a/\n' > /tmp/one.txt
//	cd bench && go run ./cmd/startup -hello -n 500 -rounds 3 \
//	    '../bin/uriscan validate /tmp/one.txt'
package main

import (
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

func main() {
	n := flag.Int("n", 500, "runs of each command per round")
	rounds := flag.Int("rounds", 3, "rounds")
	hello := flag.Bool("hello", false, "build a Go hello world and time it first")
	flag.Parse()
	cmds := flag.Args()
	labels := slices.Clone(cmds)
	if *hello {
		dir, err := os.MkdirTemp("", "startup")
		check(err)
		defer os.RemoveAll(dir)
		src := filepath.Join(dir, "hello.go")
		check(os.WriteFile(src, []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n"), 0o644))
		bin := filepath.Join(dir, "hello")
		out, err := exec.Command("go", "build", "-o", bin, src).CombinedOutput()
		if err != nil {
			fmt.Fprintf(os.Stderr, "building the hello world: %v\n%s", err, out)
			os.Exit(1)
		}
		cmds = append([]string{bin}, cmds...)
		labels = append([]string{"(a Go hello world)"}, labels...)
	}
	if len(cmds) == 0 {
		fmt.Fprintln(os.Stderr, "usage: startup [-hello] [-n N] [-rounds R] 'COMMAND ARGS...'...")
		os.Exit(2)
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	check(err)
	attr := &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{devnull.Fd(), devnull.Fd(), devnull.Fd()}}
	argvs := make([][]string, len(cmds))
	for j, c := range cmds {
		argvs[j] = strings.Fields(c)
		if argvs[j][0], err = exec.LookPath(argvs[j][0]); err != nil {
			check(err)
		}
	}
	medians := make([][]time.Duration, len(cmds))
	for r := range *rounds {
		times := make([][]time.Duration, len(cmds))
		for i := -10; i < *n; i++ { // (ten turns to warm up)
			for j, argv := range argvs {
				t := time.Now()
				pid, err := syscall.ForkExec(argv[0], argv, attr)
				check(err)
				var ws syscall.WaitStatus
				_, err = syscall.Wait4(pid, &ws, 0, nil)
				check(err)
				if i >= 0 {
					times[j] = append(times[j], time.Since(t))
				}
			}
		}
		fmt.Printf("round %d of %d:\n", r+1, *rounds)
		for j, c := range labels {
			ts := times[j]
			slices.Sort(ts)
			q := func(p float64) time.Duration { return ts[int(p*float64(len(ts)-1))] }
			medians[j] = append(medians[j], q(0.5))
			fmt.Printf("  %-60s median %s  p10 %s  p90 %s  %.2fx\n", c, ms(q(0.5)), ms(q(0.1)), ms(q(0.9)), float64(q(0.5))/float64(medians[0][r]))
		}
	}
	fmt.Printf("median of the rounds' medians:\n")
	for j, c := range labels {
		ratios := make([]float64, *rounds)
		for r := range ratios {
			ratios[r] = float64(medians[j][r]) / float64(medians[0][r])
		}
		slices.Sort(ratios)
		m := slices.Clone(medians[j])
		slices.Sort(m)
		fmt.Printf("  %-60s %s  %.2fx (rounds: %.2f-%.2fx)\n", c, ms(m[len(m)/2]), ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1])
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
