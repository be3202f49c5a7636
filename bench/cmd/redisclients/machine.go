//go:build unix

package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuBusy returns the machine's CPU time in user, nice, system and steal
// (not idle, iowait, irq or softirq: the loopback traffic measured is
// partly softirq), all CPUs together, from /proc/stat (0 where there is
// none).
func cpuBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return 0
	}
	var busy int64
	for i, s := range f[1:] {
		v, _ := strconv.ParseInt(s, 10, 64)
		if i < 3 || i == 7 { // user nice system idle iowait irq softirq steal

			busy += v
		}
	}
	return time.Duration(busy) * (time.Second / 100) // USER_HZ
}

// waitIdle waits, at most max, until the machine's CPUs were busy less than
// frac of one CPU over a quarter of a second, so that a measurement starts
// on a machine that others are not using. It reports a wait that ran out.
func waitIdle(frac float64, max time.Duration) {
	if frac <= 0 {
		return
	}
	deadline := time.Now().Add(max)
	for time.Now().Before(deadline) {
		b0, t0 := cpuBusy(), time.Now()
		time.Sleep(250 * time.Millisecond)
		if float64(cpuBusy()-b0) < frac*float64(time.Since(t0)) {
			return
		}
	}
	fmt.Fprintf(os.Stderr, "redisclients: the machine stayed busy for %v; measuring anyway\n", max)
}
