package bench

import (
	"path/filepath"
	"testing"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// loadCorpora returns the shared URL lists, skipping tb when they are
// absent.
func loadCorpora(tb testing.TB) []*Corpus {
	tb.Helper()
	d, ok := shareddata.Dir()
	if !ok {
		shareddata.Notice()
		tb.Skipf("shared corpus absent: set %s", shareddata.Env)
	}
	cs, err := LoadCorpora(filepath.Join(d, "urls"))
	if err != nil {
		tb.Fatal(err)
	}
	return cs
}

// BenchmarkPeers parses every line of each shared URL list per op with
// every peer compiled in (see Impls; -tags uriparser adds the cgo ones), all
// in the same run. Compare them with:
//
//	go test -run '^$' -bench Peers -count 6 . > peers.txt
//	benchstat -col /impl peers.txt
func BenchmarkPeers(b *testing.B) {
	cs := loadCorpora(b)
	for _, c := range cs {
		b.Run("corpus="+c.Name, func(b *testing.B) {
			for _, impl := range Impls() {
				b.Run("impl="+impl.Name, func(b *testing.B) {
					pass := impl.Prepare(c)
					b.SetBytes(int64(c.Bytes))
					b.ReportAllocs()
					for b.Loop() {
						pass()
					}
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(c.Lines)), "ns/URL")
				})
			}
		})
	}
}

// sample is a small corpus with known answers, so the peers are checked
// even without the shared lists.
var sample = NewCorpus("sample", []byte("\xef\xbb\xbf"+
	"http://example.com/a/b?c=d#e\r\n"+ // valid everywhere
	"https://user@[2001:db8::1]:8080/%41\n"+ // valid everywhere
	"\n"+ // empty: left out
	"http://a b/\n"+ // space: invalid RFC 3986
	"http://h/%zz\n"+ // bad percent-encoding
	"mailto:x@example.org")) // valid, no authority, no final newline

func TestSampleCorpus(t *testing.T) {
	if got := len(sample.Lines); got != 5 {
		t.Fatalf("sample has %d lines, want 5", got)
	}
	if got, want := sample.Bytes, len(sample.Joined)-len(sample.Lines); got != want {
		t.Errorf("Bytes = %d, want %d", got, want)
	}
	for i, l := range sample.Lines {
		if string(l) != sample.Strs[i] {
			t.Errorf("line %d: Lines %q != Strs %q", i, l, sample.Strs[i])
		}
	}
}

// TestPeersRun runs one pass of every peer over the sample and checks the
// strict RFC 3986 ones accept exactly the valid lines.
func TestPeersRun(t *testing.T) {
	strict := map[string]int{"uriscan": 3, "uriscan-batch": 3, "uriparser": 3, "uriparser-c-loop": 3, "fredbi-uri": 3}
	for _, impl := range Impls() {
		got := impl.Prepare(sample)()
		t.Logf("%-16s accepts %d of %d", impl.Name, got, len(sample.Lines))
		if got < 0 || got > len(sample.Lines) {
			t.Errorf("%s accepted %d of %d lines", impl.Name, got, len(sample.Lines))
		}
		if want, ok := strict[impl.Name]; ok && got != want {
			t.Errorf("%s accepted %d lines, want %d", impl.Name, got, want)
		}
	}
}

// TestBatchAgrees checks that the two uriscan modes accept the same lines
// of the shared lists (so their timings measure the same work).
func TestBatchAgrees(t *testing.T) {
	cs := loadCorpora(t)
	byName := map[string]Impl{}
	for _, impl := range Impls() {
		byName[impl.Name] = impl
	}
	for _, c := range cs {
		single := byName["uriscan"].Prepare(c)()
		batch := byName["uriscan-batch"].Prepare(c)()
		if single != batch {
			t.Errorf("%s: uriscan accepts %d lines, uriscan-batch %d", c.Name, single, batch)
		}
	}
}
