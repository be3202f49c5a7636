package fuzz

import (
	"testing"

	"github.com/minio/highwayhash"
	"github.com/uriscan/uriscan/internal/highway"
)

// FuzzHighway diffs the one-call HighwayHash-128 (the AVX2 assembly on
// amd64) against highwayhash.Sum128 on two inputs, with a fuzzed key.
func FuzzHighway(f *testing.F) {
	f.Add([]byte("http://example.com/"), []byte("https://a/b?c#d"), uint64(1), uint64(2), uint64(3), uint64(4))
	f.Add([]byte{}, make([]byte, 31), uint64(0), uint64(0), uint64(0), uint64(0))
	f.Add(make([]byte, 64), make([]byte, 33), ^uint64(0), uint64(5), uint64(6), uint64(7))
	f.Fuzz(func(t *testing.T, a, b []byte, k0, k1, k2, k3 uint64) {
		var raw [highway.KeySize]byte
		for i, w := range []uint64{k0, k1, k2, k3} {
			for j := 0; j < 8; j++ {
				raw[8*i+j] = byte(w >> (8 * j))
			}
		}
		k := highway.NewKey(&raw)
		wa, wb := highwayhash.Sum128(a, raw[:]), highwayhash.Sum128(b, raw[:])
		if got := k.Sum128(a); got != wa {
			t.Fatalf("Sum128(%q) = %x, want %x", a, got, wa)
		}
		if got := k.Sum128(b); got != wb {
			t.Fatalf("Sum128(%q) = %x, want %x", b, got, wb)
		}
	})
}
