package main

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuClock returns the CPU time this process has used, all threads
// (garbage collection included).
var cpuClock = func() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
