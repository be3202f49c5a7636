//go:build uriscan_pathstats

package urikey

import (
	"bytes"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/pathstats"
	"github.com/uriscan/uriscan/internal/shareddata"
	"github.com/uriscan/uriscan/normalize"
)

// inPlaceFloors are the least share of the valid URIs of each list that
// Hasher.Sum at the scheme level must hash where they lie, because the
// hints pass proved them normal, a little under the share measured when
// the floors were set (2026-12-01, in the comments; the counts do not
// depend on the machine). "sample" is the bundled testdata/sample.txt.
var inPlaceFloors = map[string]float64{
	"sample":       0.990, // 99.26% of 1,222
	"kasztp":       0.998, // 100.00% of 47,668
	"isaacs_files": 0.990, // 99.37% of 6,207
	"node_files":   0.973, // 97.59% of 43,415
}

// TestHashPaths hashes the valid lines of the sample and of each shared
// list and counts, through internal/pathstats, that every Sum ran one
// hints pass on the path HintsPath names and one digest on the path
// HashPath names, and that the share hashed in place stays above its
// floor: a fast path that silently stops running fails here.
func TestHashPaths(t *testing.T) {
	hintsPath, hashPath := pathstats.HintsGo, pathstats.HashRef
	if normalize.HintsPath() == "avx2" {
		hintsPath = pathstats.HintsAVX2
	}
	if HashPath() == "avx2" {
		hashPath = pathstats.HashAVX2
	}
	h, err := NewHasher(bytes.Repeat([]byte{7}, KeySize), normalize.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range shareddata.SampleAndLists(t, "../testdata/sample.txt") {
		name := list.Name
		var uris []uriscan.URI
		for l := range bytes.SplitSeq(list.Data, []byte("\n")) {
			if u, err := uriscan.Parse(bytes.TrimSuffix(l, []byte("\r"))); err == nil && len(l) > 0 {
				uris = append(uris, u)
			}
		}
		n := uint64(len(uris))
		before := pathstats.Snapshot()
		for i := range uris {
			h.Sum(&uris[i])
		}
		c := pathstats.Snapshot().Since(before)
		inPlace := float64(c[pathstats.NormInPlace]) / float64(n)
		t.Logf("%s: %d URIs, hints %s %d, digests %s %d, hashed in place %.2f%%",
			name, n, hintsPath, c[hintsPath], hashPath, c[hashPath], 100*inPlace)
		if c[hintsPath] != n || c[pathstats.HintsAVX2]+c[pathstats.HintsGo] != n {
			t.Errorf("%s: %d Sums ran %d hints passes on %s (HintsPath %q), %d on hints-avx2, %d on hints-go",
				name, n, c[hintsPath], hintsPath, normalize.HintsPath(), c[pathstats.HintsAVX2], c[pathstats.HintsGo])
		}
		if c[hashPath] != n || c[pathstats.HashAVX2]+c[pathstats.HashRef] != n {
			t.Errorf("%s: %d Sums made %d digests on %s (HashPath %q), %d on hash-avx2, %d on hash-ref",
				name, n, c[hashPath], hashPath, HashPath(), c[pathstats.HashAVX2], c[pathstats.HashRef])
		}
		if c[pathstats.NormInPlace]+c[pathstats.NormCopied] != n {
			t.Errorf("%s: %d Sums, %d in place + %d copied", name, n, c[pathstats.NormInPlace], c[pathstats.NormCopied])
		}
		if floor, ok := inPlaceFloors[name]; !ok {
			t.Errorf("%s: no floor in inPlaceFloors: measure one and add it", name)
		} else if inPlace < floor {
			t.Errorf("%s: %.2f%% hashed in place, the floor is %.2f%%", name, 100*inPlace, 100*floor)
		}
	}
}
