//go:build !linux

package main

import "time"

// cpuClock is Linux only (CLOCK_PROCESS_CPUTIME_ID); nil elsewhere.
var cpuClock func() time.Duration
