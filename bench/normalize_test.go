package bench

import (
	"testing"
)

// BenchmarkNormalize times every normalizer compiled in (NormImpls; -tags
// uriparser adds uriparser-normalize) on the lines of each shared list that
// all of them accept (NormCorpus), one op being one pass over those lines:
//
//	go test -run '^$' -bench Normalize -count 5 . > norm.txt
//	benchstat -col /impl norm.txt
func BenchmarkNormalize(b *testing.B) {
	cs := loadCorpora(b)
	impls := NormImpls()
	for _, full := range cs {
		b.Run("corpus="+full.Name, func(b *testing.B) {
			c, _ := NormCorpus(full, impls)
			if len(c.Lines) == 0 {
				b.Skip("no line accepted by every normalizer")
			}
			for _, impl := range impls {
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

// TestNormalizeSample checks the normalizers on a few lines with known
// answers, and that each timed pass accepts the lines its One accepts.
func TestNormalizeSample(t *testing.T) {
	const in = "HTTP://Example.COM:80/a/./b/../%7euser/%2f?Q=%3d#Frag"
	want := map[string]string{
		"uriscan-syntax": "http://example.com:80/a/~user/%2F?Q=%3D#Frag",
		"uriscan-scheme": "http://example.com/a/~user/%2F?Q=%3D#Frag",
		// purell FlagsSafe drops the default port but keeps dot segments
		// (FlagRemoveDotSegments is "usually safe"); through net/url it
		// decodes the reserved %2F (not an RFC equivalence) and leaves the
		// query's escapes as they were.
		"purell-safe": "http://example.com/a/./b/../~user//?Q=%3d#Frag",
		// uriparser: §6.2.2 only, so the port stays.
		"uriparser-normalize": "http://example.com:80/a/~user/%2F?Q=%3D#Frag",
	}
	for _, impl := range NormImpls() {
		got, ok := impl.One([]byte(in))
		t.Logf("%-20s %q %v", impl.Name, got, ok)
		if !ok {
			t.Errorf("%s rejects %q", impl.Name, in)
		}
		if w, has := want[impl.Name]; has && got != w {
			t.Errorf("%s(%q) = %q, want %q", impl.Name, in, got, w)
		}
		c, accepted := NormCorpus(sample, []Impl{impl})
		if n := impl.Prepare(sample)(); n != accepted[0] {
			t.Errorf("%s: pass accepts %d sample lines, One %d", impl.Name, n, accepted[0])
		}
		if n := impl.Prepare(c)(); n != len(c.Lines) {
			t.Errorf("%s: pass accepts %d of its %d accepted lines", impl.Name, n, len(c.Lines))
		}
	}
}

// TestNormalizeAgreement reports, on the shared lists, how often normal
// forms of the same level agree: uriscan-syntax with uriparser-normalize
// (both §6.2.2), uriscan-scheme with purell-safe. It only logs (run with
// -v): the normalizers differ by design (see README).
func TestNormalizeAgreement(t *testing.T) {
	cs := loadCorpora(t)
	impls := NormImpls()
	byName := map[string]Impl{}
	for _, i := range impls {
		byName[i.Name] = i
	}
	pairs := [][2]string{{"uriscan-syntax", NormBaseline2}, {"uriscan-scheme", NormBaseline}}
	for _, full := range cs {
		c, accepted := NormCorpus(full, impls)
		for i, impl := range impls {
			t.Logf("%s: %s accepts %d of %d lines", full.Name, impl.Name, accepted[i], len(full.Lines))
		}
		t.Logf("%s: %d lines accepted by all", full.Name, len(c.Lines))
		for _, p := range pairs {
			a, okA := byName[p[0]]
			b, okB := byName[p[1]]
			if !okA || !okB {
				continue
			}
			same, shown := 0, 0
			for _, l := range c.Lines {
				x, _ := a.One(l)
				y, _ := b.One(l)
				if x == y {
					same++
				} else if shown < 3 {
					shown++
					t.Logf("  %s: %s %q, %s %q", l, p[0], x, p[1], y)
				}
			}
			t.Logf("%s: %s = %s on %d of %d lines (%.2f%%)", full.Name, p[0], p[1], same, len(c.Lines),
				100*float64(same)/float64(max(1, len(c.Lines))))
		}
	}
}
