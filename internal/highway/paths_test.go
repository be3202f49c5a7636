//go:build uriscan_pathstats

package highway

import (
	"testing"

	"github.com/uriscan/uriscan/internal/pathstats"
)

// TestSumPath counts, through internal/pathstats, that every Sum128 runs
// on the path Path names (the AVX2 assembly where it reports "avx2").
func TestSumPath(t *testing.T) {
	var raw [KeySize]byte
	k := NewKey(&raw)
	want := pathstats.HashRef
	if Path() == "avx2" {
		want = pathstats.HashAVX2
	}
	msg := make([]byte, 200)
	before := pathstats.Snapshot()
	for n := range msg {
		k.Sum128(msg[:n])
	}
	c := pathstats.Snapshot().Since(before)
	if c[want] != uint64(len(msg)) || c[pathstats.HashAVX2]+c[pathstats.HashRef] != uint64(len(msg)) {
		t.Fatalf("%d digests: %d on %s (Path %q), hash-avx2 %d, hash-ref %d", len(msg), c[want], want, Path(), c[pathstats.HashAVX2], c[pathstats.HashRef])
	}
}
