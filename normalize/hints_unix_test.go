//go:build unix

package normalize

import (
	"math/rand/v2"
	"testing"

	"unsafe"

	"github.com/uriscan/uriscan/internal/pagetest"
)

// TestHintsNoOverread puts strings of every length up to three blocks
// flush against a PROT_NONE page.
func TestHintsNoOverread(t *testing.T) {
	mem := pagetest.BeforeGuard(t)
	page := len(mem)
	r := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < page; i++ {
		mem[i] = "HTTP://a/./%41b/.."[r.IntN(18)]
	}
	for n := 0; n <= 200; n++ {
		b := mem[page-n : page]
		checkHints(t, unsafe.String(unsafe.SliceData(b), len(b)), r, 20)
	}
}
