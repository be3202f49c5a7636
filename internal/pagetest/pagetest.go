//go:build unix

// Package pagetest gives tests memory that ends at an inaccessible page,
// so code that reads one byte past its input faults instead of passing.
package pagetest

import (
	"os"
	"syscall"
	"testing"
)

// BeforeGuard returns a page of writable memory directly followed by a
// PROT_NONE page: a slice mem[len(mem)-n:] ends flush against the guard.
// The memory is unmapped when the test ends; the test is skipped where
// mmap or mprotect is refused.
func BeforeGuard(tb testing.TB) []byte {
	tb.Helper()
	page := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		tb.Skipf("mmap: %v", err)
	}
	tb.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		tb.Skipf("mprotect: %v", err)
	}
	return mem[:page:page]
}
