//go:build unix

package highway

import (
	"math/rand/v2"
	"testing"

	"github.com/uriscan/uriscan/internal/pagetest"

	"github.com/minio/highwayhash"
)

// TestNoOverread hashes messages of every length up to four packets that
// end flush against a PROT_NONE page (a read past the end faults) and
// messages whose last partial packet starts just before the page end,
// where the tail must be copied rather than loaded whole.
func TestNoOverread(t *testing.T) {
	mem := pagetest.BeforeGuard(t)
	page := len(mem)
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < page; i++ {
		mem[i] = byte(r.Uint32())
	}
	raw := randKey(r)
	k := NewKey(raw)
	for n := 0; n <= 4*32+1; n++ {
		msg := mem[page-n : page]
		if got, want := k.Sum128(msg), highwayhash.Sum128(msg, raw[:]); got != want {
			t.Fatalf("len %d at page end: got %x, want %x", n, got, want)
		}
	}
}
