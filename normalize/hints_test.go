package normalize

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// sortedBounds orders three offsets as hostEnd <= pathStart <= pathEnd.
func sortedBounds(a, b, c int) [3]int {
	s := []int{a, b, c}
	slices.Sort(s)
	return [3]int(s)
}

// checkHints compares hints with hintsGeneric for s under every choice of
// boundaries the scanner could give (hostEnd <= pathStart <= pathEnd).
func checkHints(t *testing.T, s string, r *rand.Rand, trials int) {
	t.Helper()
	for i := 0; i < trials; i++ {
		b := sortedBounds(r.IntN(len(s)+1), r.IntN(len(s)+1), r.IntN(len(s)+1))
		if got, want := hints(s, b[0], b[1], b[2]), hintsGeneric(s, b[0], b[1], b[2]); got != want {
			t.Fatalf("hints(%q, %d, %d, %d) = %03b, want %03b", s, b[0], b[1], b[2], got, want)
		}
	}
}

// TestHints checks hints against hintsGeneric on random strings of every
// length up to three blocks over an alphabet of the bytes that matter and
// their neighbours, with "/." straddling every block boundary.
func TestHints(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	alphabet := "%/.AZ@[az\x80\xc1-"
	for n := 0; n <= 200; n++ {
		for trial := 0; trial < 20; trial++ {
			b := make([]byte, n)
			for i := range b {
				if r.IntN(4) == 0 {
					b[i] = alphabet[r.IntN(len(alphabet))]
				} else {
					b[i] = 'x'
				}
			}
			checkHints(t, string(b), r, 8)
		}
	}
	for _, at := range []int{31, 32, 63, 64, 65, 127, 128} {
		s := strings.Repeat("x", at) + "/." + strings.Repeat("x", 40)
		for _, pe := range []int{at, at + 1, at + 2, len(s)} {
			for _, ps := range []int{0, at, at + 1} {
				if ps > pe {
					continue
				}
				if got, want := hints(s, 0, ps, pe), hintsGeneric(s, 0, ps, pe); got != want {
					t.Fatalf("/. at %d, path [%d, %d): got %03b, want %03b", at, ps, pe, got, want)
				}
			}
		}
	}
}

// TestHasUpper checks the eight-bytes-at-a-time hasUpper against a byte
// loop with every byte value at every position of strings up to 20 bytes.
func TestHasUpper(t *testing.T) {
	for n := 1; n <= 20; n++ {
		b := []byte(strings.Repeat("a", n))
		for i := 0; i < n; i++ {
			for c := 0; c < 256; c++ {
				b[i] = byte(c)
				want := 'A' <= c && c <= 'Z'
				if got := hasUpper(string(b)); got != want {
					t.Fatalf("hasUpper(%q) = %v", b, got)
				}
			}
			b[i] = 'a'
		}
	}
}

// FuzzHints diffs hints (the AVX2 assembly on amd64) against
// hintsGeneric, with boundaries derived from the fuzzed numbers.
func FuzzHints(f *testing.F) {
	f.Add("HTTP://a.B/./%41", uint16(8), uint16(9), uint16(16))
	f.Add(strings.Repeat("x/", 40)+".", uint16(0), uint16(3), uint16(81))
	f.Fuzz(func(t *testing.T, s string, a, b, c uint16) {
		n := len(s) + 1
		bs := sortedBounds(int(a)%n, int(b)%n, int(c)%n)
		if got, want := hints(s, bs[0], bs[1], bs[2]), hintsGeneric(s, bs[0], bs[1], bs[2]); got != want {
			t.Fatalf("hints(%q, %v) = %03b, want %03b", s, bs, got, want)
		}
	})
}
