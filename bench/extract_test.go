package bench

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"sort"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/shareddata"
	"mvdan.cc/xurls/v2"
)

// The extraction peers run over the shared access log
// (../../shared/data/logs/access.log from here, or $URISCAN_DATA/logs: a
// 42 MB nginx/Apache combined-format log, 200,000 lines, see SOURCE.md
// there). xurls is a large regular expression run by Go's regexp at about
// 1 MB/s, so one pass over the whole log takes 30-60 s per xurls peer: the
// whole-log xurls runs are opt-in (SlowEnv), and the 4 MiB prefix
// (corpus=access-4MiB) always runs with every peer, so that every ratio
// comes from one run.

// SlowEnv enables the whole-log xurls benchmarks and the whole-log
// TestExtractPeersAgree: URISCAN_BENCH_SLOW=1.
const SlowEnv = "URISCAN_BENCH_SLOW"

// prefixSize is the size of the access-4MiB corpus before it is cut back to
// the last line boundary.
const prefixSize = 4 << 20

func slow() bool { return os.Getenv(SlowEnv) == "1" }

// loadAccessLog returns the shared access log, skipping tb (with
// shareddata's notice on stderr) when the data directory is absent. A data
// directory without logs/access.log fails tb, as a missing URL list does.
func loadAccessLog(tb testing.TB) []byte {
	tb.Helper()
	text, err := os.ReadFile(shareddata.Path(tb, "logs/access.log"))
	if err != nil {
		tb.Fatal(err)
	}
	return text
}

// logPrefix returns text cut to at most n bytes, at the end of a line.
func logPrefix(text []byte, n int) []byte {
	if len(text) <= n {
		return text
	}
	return text[:bytes.LastIndexByte(text[:n], '\n')+1]
}

// commonRE is the pattern log tools commonly use for URLs.
var commonRE = regexp.MustCompile(`https?://[^ "]+`)

// BenchmarkExtract finds the URIs of the shared access log per op with
// every extractor, all in the same run:
//
//   - impl=uriscan: uriscan.Extractor (default schemes http and https),
//     Append into a reused slice;
//   - impl=xurls-strict: mvdan.cc/xurls/v2 v2.6.0 Strict(), compiled once,
//     FindAllIndex (every scheme xurls knows, not only http(s));
//   - impl=xurls-relaxed: xurls Relaxed(): Strict plus scheme-less domains,
//     IP addresses and e-mail addresses;
//   - impl=regexp: Go's regexp `https?://[^ "]+`, FindAllIndex.
//
// uris/op is how many matches each finds (they do not find the same
// things: see TestExtractPeersAgree). corpus=access is the whole log; its
// xurls sub-benchmarks are skipped unless URISCAN_BENCH_SLOW=1 (about 30 s
// for strict and 50 s for relaxed per op on a 2-core VM).
// corpus=access-4MiB is its first 4 MiB cut at a line boundary, with every
// impl, for ratios at a CI-friendly cost. One op takes seconds for xurls,
// so run one op per count and compare with benchstat:
//
//	go test -run '^$' -bench Extract -benchtime 1x -count 3 . | benchstat -col /impl -
//	URISCAN_BENCH_SLOW=1 go test -run '^$' -bench Extract -benchtime 1x -count 3 . | benchstat -col /impl -
func BenchmarkExtract(b *testing.B) {
	text := loadAccessLog(b)
	strict, relaxed := xurls.Strict(), xurls.Relaxed() // compiled once, not timed
	corpora := []struct {
		name string
		text []byte
		slow bool // xurls is opt-in on it
	}{
		{"access-4MiB", logPrefix(text, prefixSize), false},
		{"access", text, true},
	}
	for _, c := range corpora {
		b.Run("corpus="+c.name, func(b *testing.B) {
			b.Run("impl=uriscan", func(b *testing.B) {
				var x uriscan.Extractor
				dst := x.Append(nil, c.text) // grown before timing
				b.SetBytes(int64(len(c.text)))
				b.ReportAllocs()
				for b.Loop() {
					dst = x.Append(dst[:0], c.text)
				}
				b.ReportMetric(float64(len(dst)), "uris/op")
			})
			for _, p := range []struct {
				name string
				re   *regexp.Regexp
				slow bool
			}{
				{"xurls-strict", strict, true},
				{"xurls-relaxed", relaxed, true},
				{"regexp", commonRE, false},
			} {
				b.Run("impl="+p.name, func(b *testing.B) {
					if c.slow && p.slow && !slow() {
						b.Skipf("%s over the whole log takes 30-60 s per op: set %s=1 (corpus=access-4MiB always runs)", p.name, SlowEnv)
					}
					var n int
					b.SetBytes(int64(len(c.text)))
					b.ReportAllocs()
					for b.Loop() {
						n = len(p.re.FindAllIndex(c.text, -1))
					}
					b.ReportMetric(float64(n), "uris/op")
				})
			}
		})
	}
}

// extSpan is a match's bounds in the log.
type extSpan struct{ start, end int }

// hasHTTPScheme reports whether s begins with http:// or https://, in any
// case (both xurls and uriscan match schemes case-insensitively).
func hasHTTPScheme(s []byte) bool {
	return len(s) >= 7 && bytes.EqualFold(s[:7], []byte("http://")) ||
		len(s) >= 8 && bytes.EqualFold(s[:8], []byte("https://"))
}

// delimited reports whether text[sp.start:sp.end] is a whole field of the
// log: a space or '"' (or the start or end of the text) on both sides, as
// the request target and the referer are, or the "+URL)" of a bot's user
// agent ("(compatible; Googlebot/2.1; +http://www.google.com/bot.html)").
func delimited(text []byte, sp extSpan) bool {
	d := func(c byte) bool { return c == ' ' || c == '"' }
	if (sp.start == 0 || d(text[sp.start-1])) && (sp.end == len(text) || d(text[sp.end])) {
		return true
	}
	return sp.start >= 2 && string(text[sp.start-2:sp.start]) == " +" && sp.end < len(text) && text[sp.end] == ')'
}

// validWithHost reports whether b is an RFC 3986 URI with a non-empty host,
// as the Extractor requires of http(s) matches.
func validWithHost(b []byte) bool {
	u, err := uriscan.Parse(b)
	return err == nil && u.IsAbsolute() && u.Host() != ""
}

// overlapping returns the first of sps (sorted, not overlapping) that
// overlaps a, if any.
func overlapping(sps []extSpan, a extSpan) (extSpan, bool) {
	i := sort.Search(len(sps), func(i int) bool { return sps[i].end > a.start })
	if i == len(sps) || sps[i].start >= a.end {
		return extSpan{}, false
	}
	return sps[i], true
}

// xurlsDiff names how the xurls match x, which uriscan does not find with
// the same bounds, differs from uriscan's matches us: by the uriscan match
// that overlaps it and the byte where the two part.
func xurlsDiff(text []byte, x extSpan, us []extSpan) string {
	u, ok := overlapping(us, x)
	switch {
	case !ok:
		return "xurls only: no uriscan match overlaps"
	case u.start != x.start:
		return "overlapping, different starts"
	case x.end > u.end:
		return fmt.Sprintf("same start, xurls longer: uriscan stops before %q", text[u.end])
	default:
		return fmt.Sprintf("same start, uriscan longer: xurls stops before %q", text[x.end])
	}
}

// TestExtractPeersAgree compares the http(s) URIs uriscan's Extractor finds
// in the access log with the matches of xurls.Strict that begin with
// http:// or https://. It logs how many are identical, found only by
// uriscan and found only by xurls (by bounds: a URI both find with
// different bounds counts on both sides), with up to 10 examples of each
// and the differences by kind. It checks that
//
//   - every uriscan match is an RFC 3986 URI with a host;
//   - every xurls match that is one too (uriscan.Parse accepts it, with a
//     non-empty host) and is a whole field of the log (a space or '"' on
//     both sides, or a bot's "+URL)" in a user agent) is found by uriscan
//     with exactly the same bounds;
//   - that check covers at least 99% of the xurls http(s) matches, so that
//     it does not pass vacuously.
//
// xurls runs at about 1 MB/s, so the test reads the first 4 MiB of the log
// (cut at a line boundary; about 3 s); URISCAN_BENCH_SLOW=1 reads the whole
// log (about 30 s).
func TestExtractPeersAgree(t *testing.T) {
	text := loadAccessLog(t)
	if !slow() {
		text = logPrefix(text, prefixSize)
	}
	t.Logf("corpus: %d bytes of the access log (the whole log with %s=1)", len(text), SlowEnv)

	var x uriscan.Extractor
	var us []extSpan
	for _, m := range x.Append(nil, text) {
		sp := extSpan{int(m.Start), int(m.End)}
		if !validWithHost(text[sp.start:sp.end]) {
			t.Errorf("uriscan match %q is not an RFC 3986 URI with a host", text[sp.start:sp.end])
		}
		us = append(us, sp)
	}
	var xs []extSpan
	for _, m := range xurls.Strict().FindAllIndex(text, -1) {
		if hasHTTPScheme(text[m[0]:m[1]]) {
			xs = append(xs, extSpan{m[0], m[1]})
		}
	}
	inU := make(map[extSpan]bool, len(us))
	for _, sp := range us {
		inU[sp] = true
	}
	inX := make(map[extSpan]bool, len(xs))
	for _, sp := range xs {
		inX[sp] = true
	}

	const maxExamples = 10
	show := func(sp extSpan) string {
		return fmt.Sprintf("line %d: %q in %q", 1+bytes.Count(text[:sp.start], []byte("\n")),
			text[sp.start:sp.end], text[max(0, sp.start-8):min(len(text), sp.end+8)])
	}
	var identical, checked, invalid, undelimited int
	var onlyU, onlyX []extSpan
	kinds := map[string]int{}
	for _, sp := range us {
		if inX[sp] {
			identical++
			continue
		}
		onlyU = append(onlyU, sp)
		// One with the same start as an xurls match is counted with it.
		if x, ok := overlapping(xs, sp); !ok {
			kinds["uriscan only: no xurls match overlaps"]++
		} else if x.start != sp.start {
			kinds["overlapping, different starts (uriscan side)"]++
		}
	}
	for _, sp := range xs {
		if !inU[sp] {
			onlyX = append(onlyX, sp)
			kinds[xurlsDiff(text, sp, us)]++
		}
		if !validWithHost(text[sp.start:sp.end]) {
			invalid++
			continue
		}
		if !delimited(text, sp) {
			if undelimited++; undelimited <= 5 {
				t.Logf("valid, not a whole field (not checked): %s", show(sp))
			}
			continue
		}
		checked++
		if !inU[sp] {
			t.Errorf("xurls finds the valid, delimited %s; uriscan does not", show(sp))
		}
	}

	t.Logf("uriscan: %d matches; xurls-strict: %d http(s) matches", len(us), len(xs))
	t.Logf("identical: %d, only-uriscan: %d, only-xurls: %d", identical, len(onlyU), len(onlyX))
	t.Logf("xurls http(s) matches checked (RFC 3986 URIs with a host, whole fields): %d; not URIs with a host: %d; valid but not whole fields: %d",
		checked, invalid, undelimited)
	for _, c := range []struct {
		name string
		sps  []extSpan
	}{{"only-uriscan", onlyU}, {"only-xurls", onlyX}} {
		for i, sp := range c.sps[:min(maxExamples, len(c.sps))] {
			t.Logf("%s %d: %s", c.name, i+1, show(sp))
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("difference: %-60s %d", k, kinds[k])
	}
	if len(xs) == 0 || checked*100 < len(xs)*99 {
		t.Errorf("only %d of %d xurls http(s) matches are valid URIs in whole fields: the check covers too little", checked, len(xs))
	}
}
