//go:build unix

package normalize

import (
	"math/rand/v2"
	"os"
	"syscall"
	"testing"
	"unsafe"
)

// TestHintsNoOverread puts strings of every length up to three blocks
// flush against a PROT_NONE page.
func TestHintsNoOverread(t *testing.T) {
	page := os.Getpagesize()
	mem, err := syscall.Mmap(-1, 0, 2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(mem)
	if err := syscall.Mprotect(mem[page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	r := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < page; i++ {
		mem[i] = "HTTP://a/./%41b/.."[r.IntN(18)]
	}
	for n := 0; n <= 200; n++ {
		b := mem[page-n : page]
		checkHints(t, unsafe.String(unsafe.SliceData(b), len(b)), r, 20)
	}
}
