//go:build !linux

package seen

func threadCPU() (int64, bool) { return 0, false }
