package logformat

import (
	"math/rand/v2"
	"testing"
)

// TestNextStop checks the eight-bytes-at-a-time search against the plain
// loop, from every start, on bytes dense in the ones that stop it and in
// their neighbours (0x1f, 0x20, '!', '#', '[', ']', 0x7f, 0x80...).
func TestNextStop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	near := []byte{0, 1, 0x1f, 0x20, 0x21, '"', '#', '\\', '[', ']', 0x5c ^ 0x80, 0xa2, 0x7f, 0x80, 0xff, 'a'}
	for range 3000 {
		b := make([]byte, r.IntN(40))
		for i := range b {
			switch r.IntN(8) {
			case 0:
				b[i] = byte(r.IntN(256))
			case 1, 2:
				b[i] = near[r.IntN(len(near))]
			default:
				b[i] = 'a' + byte(r.IntN(26))
			}
		}
		for s := 0; s <= len(b); s++ {
			want := s
			for want < len(b) && !strStop[b[want]] {
				want++
			}
			if got := nextStop(b, s); got != want {
				t.Fatalf("nextStop(%q, %d) = %d, want %d", b, s, got, want)
			}
		}
	}
}
