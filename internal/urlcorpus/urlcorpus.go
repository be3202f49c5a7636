// Package urlcorpus gives benchmarks the valid URIs of a shared URL list,
// parsed (for the packages above the root package; the root package's own
// tests cannot import it, and load theirs themselves).
package urlcorpus

import (
	"bytes"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/shareddata"
)

// Valid loads the valid lines of the shared URL list name, each parsed,
// and their total length in bytes (skipping tb, with a notice on stderr,
// when the shared data is absent: see shareddata.URLList).
func Valid(tb testing.TB, name string) (uris []uriscan.URI, lines [][]byte, size int) {
	tb.Helper()
	data := shareddata.URLList(tb, name)
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		u, err := uriscan.Parse(l)
		if err != nil || len(l) == 0 {
			continue
		}
		uris = append(uris, u)
		lines = append(lines, l)
		size += len(l)
	}
	return uris, lines, size
}
