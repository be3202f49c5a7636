package seen

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time the calling thread has used, in
// nanoseconds, and true; the caller must be locked to its thread.
func threadCPU() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}
