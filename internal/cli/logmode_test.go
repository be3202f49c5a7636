package cli

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// TestExtractLogCombined: the request target (resolved against --base
// when it is origin-form), the referer and the URIs in the user agent of
// Common and Combined Log Format lines, with nginx's and Apache's escapes
// decoded; a line of another shape is reported with its line and offset.
func TestExtractLogCombined(t *testing.T) {
	log := strings.Join([]string{
		`1.2.3.4 - - [01/Mar/2024:00:00:00 +0000] "GET /a/b?q=1 HTTP/1.1" 200 5 "https://ref.example/p" "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"`,
		`::1 - frank [01/Mar/2024:00:00:01 +0000] "GET http://abs.example/x HTTP/1.0" 404 - "-" "-"`,
		`5.6.7.8 - - [01/Mar/2024:00:00:02 +0000] "GET /caf\xC3\xA9 HTTP/1.1" 200 1 "https://q.example/?s=\x22x\x22" "curl/8"`,
		`9.9.9.9 - - [01/Mar/2024:00:00:03 +0000] "GET /clf HTTP/1.1" 200 7`,
		`not a log line at all`,
		``,
		`1.1.1.1 - - [01/Mar/2024:00:00:04 +0000] "CONNECT example.com:443 HTTP/1.1" 200 0 "-" "-"`,
		`1.1.1.1 - - [01/Mar/2024:00:00:05 +0000] "OPTIONS * HTTP/1.1" 200 0 "android-app://com.example/" "-"`,
		`1.1.1.1 - - [01/Mar/2024:00:00:06 +0000] "\x16\x03\x01 see http://tls.example/" 400 0 "-" "-"`,
	}, "\n") + "\n"
	code, out, errs := cli(t, log, "extract", "--log", "combined", "--base", "https://site.example/", "--format", "tsv")
	// "offset" is in the line.
	at := func(s string) string {
		i := strings.Index(log, s)
		return strconv.Itoa(i - strings.LastIndexByte(log[:i], '\n') - 1)
	}
	want := strings.Join([]string{
		"1\t" + at("/a/b?q=1") + "\trequest\thttps://site.example/a/b?q=1",
		"1\t" + at("https://ref") + "\treferer\thttps://ref.example/p",
		"1\t" + at("http://www.google") + "\tuser_agent\thttp://www.google.com/bot.html",
		"2\t" + at("http://abs") + "\trequest\thttp://abs.example/x",
		// Decoded, line 3's target holds a raw é and its referer a raw
		// '"': not URIs, so rejections (not shown without --rejects).
		"4\t" + at("/clf") + "\trequest\thttps://site.example/clf",
		// A field that was decoded: the offset is the field's.
		"9\t" + at(`\x16`) + "\trequest_line\thttp://tls.example/",
	}, "\n") + "\n"
	if code != 1 || out != want {
		t.Errorf("exit %d, stdout\n%s\nwant\n%s\nstderr %s", code, out, want, errs)
	}
	if !strings.Contains(errs, "<stdin>:5: offset 10: not a Common or Combined Log Format line: expected '[' opening the time field") || strings.Count(errs, "\n") != 1 {
		t.Errorf("stderr %q: want one report, of line 5", errs)
	}
	// Without --base the origin-form targets are written as they are;
	// --rejects says which fields are not URIs; --any-scheme takes the
	// android-app referer.
	code, out, errs = cli(t, log, "extract", "--log", "combined", "--rejects", "--any-scheme")
	for _, w := range []string{"/a/b?q=1\n", "android-app://com.example/\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("without --base: stdout %q lacks %q", out, w)
		}
	}
	for _, w := range []string{":3: offset " + at(`/caf`) + ": request: not a URI: \"/café\"", ":3: offset " + at(`https://q`) + ": referer: not a URI: "} {
		if !strings.Contains(errs, w) {
			t.Errorf("--rejects: stderr %q lacks %q", errs, w)
		}
	}
	if code != 1 {
		t.Errorf("exit %d", code)
	}
}

// TestExtractLogJSON: the URIs in the strings at --field paths of JSON
// Lines; escapes decoded; a line that is not a JSON object is reported.
func TestExtractLogJSON(t *testing.T) {
	in := strings.Join([]string{
		`{"message":"GET http://a.example/x failed, see https://b.example/y.","http":{"request":{"url":"https://c.example/\u00e9t\u00e9"}}}`,
		`{"message":"no URI here","n":1}`,
		`{"message":`,
		`{"http.request.url":"http://dotted.example/"}`,
	}, "\n")
	code, out, errs := cli(t, in, "extract", "--log", "jsonl", "--field", "message", "--field", "http.request.url", "--format", "jsonl")
	lines := lines(out)
	// A URI ends at a byte no URI holds: the decoded é.
	want := []string{"http://a.example/x", "https://b.example/y", "https://c.example/", "http://dotted.example/"}
	if code != 1 || len(lines) != len(want) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for i, l := range lines {
		m := decode(t, l)
		if m["uri"] != want[i] || m["field"] == nil || m["valid"] != true {
			t.Errorf("match %d: %s, want uri %q", i, l, want[i])
		}
	}
	if !strings.Contains(errs, "<stdin>:3: offset ") || !strings.Contains(errs, "not a JSON object line") {
		t.Errorf("stderr %q", errs)
	}
	for _, args := range [][]string{
		{"extract", "--log", "jsonl"},
		{"extract", "--log", "xml"},
		{"extract", "--field", "a"},
		{"extract", "--log", "combined", "--base", "/rel"},
		{"extract", "--log", "jsonl", "--field", "a..b"},
	} {
		if code, _, errs := cli(t, "", args...); code != 2 || !strings.Contains(errs, "usage: uriscan extract") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestExtractLogColumns: --log columns searches only the listed columns,
// each match at its offset in the input and with its column as the field;
// the usage errors name the flag and what is wrong.
func TestExtractLogColumns(t *testing.T) {
	in := "2024-03-01\thttp://a.example/x\tbot http://ua.example/\thttps://c.example/\n" +
		"\n" + // a blank line is skipped
		"2024-03-02\t\tsee <https://b.example/y>.\n" + // an empty column 2
		"2024-03-03 http://not-a-column.example/\n" + // one column only
		"http://first.example/\tx\ty\thttps://d.example/z\r\n"
	code, out, errs := cli(t, in, "extract", "--log", "columns", "--columns", "4,2-3", "--format", "jsonl")
	type match struct{ uri, field string }
	want := []match{{"http://a.example/x", "$2"}, {"http://ua.example/", "$3"}, {"https://c.example/", "$4"}, {"https://b.example/y", "$3"}, {"https://d.example/z", "$4"}}
	got := lines(out)
	if code != 0 || errs != "" || len(got) != len(want) {
		t.Fatalf("exit %d, stdout:\n%s\nstderr %q", code, out, errs)
	}
	for i, l := range got {
		m := decode(t, l)
		// "byte_offset" is in the input, "offset" in the line.
		off := int(m["byte_offset"].(float64))
		col := off - strings.LastIndexByte(in[:off], '\n') - 1
		if m["uri"] != want[i].uri || m["field"] != want[i].field || off+len(want[i].uri) > len(in) || in[off:off+len(want[i].uri)] != want[i].uri || m["offset"] != float64(col) {
			t.Errorf("match %d: %s, want %v", i, l, want[i])
		}
	}
	// Another delimiter; tsv names the field.
	_, out, _ = cli(t, "a|http://x.example/|http://y.example/\n", "extract", "--log", "columns", "--delimiter", "|", "--columns", "3", "--format", "tsv")
	if out != "1\t20\t$3\thttp://y.example/\n" {
		t.Errorf("--delimiter '|': %q", out)
	}
	for _, tc := range []struct {
		args []string
		why  string
	}{
		{[]string{"--log", "columns"}, "--log columns needs --columns LIST"},
		{[]string{"--log", "columns", "--columns", "0"}, `--columns: column list "0": columns are numbered from 1, not 0`},
		{[]string{"--log", "columns", "--columns", "3-1"}, `range "3-1" ends before it starts`},
		{[]string{"--log", "columns", "--columns", "1", "--delimiter", "ab"}, `--delimiter must be one byte other than a newline, or \t for a tab, not "ab"`},
		{[]string{"--log", "columns", "--columns", "1", "--delimiter", "\n"}, `--delimiter must be one byte other than a newline, or \t for a tab, not "\n"`},
		{[]string{"--log", "columns", "--columns", "+1"}, `"+1" is not a column number`},
		{[]string{"--log", "columns", "--columns", "1", "--field", "m"}, "--field and --base do not go with --log columns"},
		{[]string{"--log", "jsonl", "--field", "m", "--columns", "1"}, "--columns and --delimiter go with --log columns"},
		{[]string{"--columns", "1"}, "--columns and --delimiter go with --log"},
	} {
		if code, out, errs := cli(t, "a\n", append([]string{"extract"}, tc.args...)...); code != exitUsage || out != "" || !strings.Contains(errs, tc.why) {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", tc.args, code, out, errs, tc.why)
		}
	}
}

// TestExtractLogWorkers: log mode gives the same output with any number
// of workers and any chunk size, on the shared access log (first 2 MB).
func TestExtractLogWorkers(t *testing.T) {
	if !shareddata.Available(t) {
		t.Skip("shared data absent")
	}
	d, _ := shareddata.Dir()
	log, err := os.ReadFile(filepath.Join(d, "logs", "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	f := filepath.Join(t.TempDir(), "access.log")
	os.WriteFile(f, log[:2<<20], 0o644)
	args := []string{"extract", "--log", "combined", "--base", "http://h/", "--format", "jsonl", "--rejects", f}
	_, want, wantErr := cli(t, "", append(args, "--workers", "1")...)
	if n := strings.Count(want, "\n"); n < 15000 {
		t.Fatalf("only %d matches", n)
	}
	for _, size := range []int{300, 64 << 10} {
		tn := chunks(size, 1<<20)
		for _, w := range []string{"1", "2", "3"} {
			_, out, errs := cliT(t, tn, "", append(args, "--workers", w)...)
			if out != want || errs != wantErr {
				t.Errorf("chunks of %d, --workers %s: %s", size, w, firstDiff(out, want, errs, wantErr))
			}
		}
	}
}

// TestDedupExtract: dedup --extract writes what "extract | dedup" writes,
// counts the URIs apart from the lines, and a checkpoint made with
// --extract is refused by a run without it.
func TestDedupExtract(t *testing.T) {
	in := "see http://A.example/x and HTTP://a.example:80/x\nnone here\n\nhttp://b/ twice http://b/, <https://c/>\n" + strings.Repeat("x", 300) + " http://long/\n"
	// The last line is over --max-line: dedup reads lines, and reports
	// that one (extract, which reads text, has no line limit).
	short := in[:strings.LastIndex(in[:len(in)-1], "\n")+1]
	_, extracted, _ := cli(t, short, "extract")
	_, want, _ := cli(t, extracted, "dedup")
	code, out, errs := cli(t, in, "dedup", "--extract", "--max-line", "200")
	if code != 1 || out != want || out != "http://A.example/x\nhttp://b/\nhttps://c/\n" {
		t.Errorf("exit %d, stdout %q, want %q", code, out, want)
	}
	if got := dropElapsed(lastLine(errs)); got != "uriscan: dedup: lines 5, blank 1, invalid 1, uris 5, unique 3, duplicates 2" {
		t.Errorf("summary %q (stderr %q)", got, errs)
	}
	dir := t.TempDir()
	f := writeFile(t, "in.txt", in)
	outFile := filepath.Join(dir, "new.txt")
	// Lines of text are not invalid for not being URIs (only the long
	// one was, under --max-line 200): exit 0, and --max-errors does not
	// stop on them.
	if code, _, errs := cli(t, "", "dedup", "--extract", "--max-errors", "1", "--output", outFile, f); code != 0 || strings.Contains(errs, "stopped") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if b := readFile(t, outFile); b != "http://A.example/x\nhttp://b/\nhttps://c/\nhttp://long/\n" {
		t.Errorf("--output: %q", b)
	}
	if code, _, errs := cli(t, "", "dedup", "--output", outFile, f); code != 2 || !strings.Contains(errs, `it was made with extract "http,https", this run has ""`) {
		t.Errorf("without --extract: exit %d, stderr %q", code, errs)
	}
	if code, _, errs := cli(t, "", "dedup", "--schemes", "ftp", f); code != 2 || !strings.Contains(errs, "--schemes, --any-scheme, --min-scheme, --log, --field, --base, --host-field, --columns and --delimiter go with --extract") {
		t.Errorf("--schemes alone: exit %d, stderr %q", code, errs)
	}
}

// TestExtractLogLongLines: a log line over --max-line is reported the same
// way whether the reader held it whole or read past it, with any number
// of workers, and the lines after it are read.
func TestExtractLogLongLines(t *testing.T) {
	line := func(ua string) string {
		return `1.2.3.4 - - [01/Mar/2024:00:00:00 +0000] "GET /a HTTP/1.1" 200 5 "-" "` + ua + `"` + "\n"
	}
	in := line("x") + line(strings.Repeat("u", 3000)) + line("see http://after.example/") + line(strings.Repeat("v", 300))
	f := writeFile(t, "long.log", in)
	for _, errs := range []string{"text", "jsonl"} {
		var want [3]any
		first := true
		for _, size := range []int{64, 1000, 128 << 10} {
			tn := chunks(size, 1<<20)
			for _, w := range []string{"1", "2"} {
				code, out, e := cliT(t, tn, "", "extract", "--log", "combined", "--max-line", "500", "--errors", errs, "--workers", w, f)
				got := [3]any{code, out, e}
				if first {
					want, first = got, false
					if code != 1 || !strings.Contains(out, "http://after.example/") || strings.Count(e, "is longer than the limit of 500 bytes") != 1 {
						t.Fatalf("--errors %s: exit %d, stdout %q, stderr %q", errs, code, out, e)
					}
					continue
				}
				if got != want {
					t.Errorf("--errors %s, chunks of %d, --workers %s: %v, want %v", errs, size, w, got, want)
				}
			}
		}
	}
}

// TestKeepEncodedDotsFlag: normalize and dedup remove "%2E%2E" segments
// as RFC 3986 §6.2.2 orders it, keep them with --keep-encoded-dots, and a
// disk store records which (one made keeping them is refused without it).
func TestKeepEncodedDotsFlag(t *testing.T) {
	if code, out, _ := cli(t, "", "normalize", "-u", "http://a/b/%2E%2E/c", "-u", "http://a/b/%2e/c"); code != 0 || out != "http://a/c\nhttp://a/b/c\n" {
		t.Errorf("normalize: exit %d, %q", code, out)
	}
	if code, out, _ := cli(t, "", "normalize", "--keep-encoded-dots", "-u", "http://a/b/%2e%2e/c"); code != 0 || out != "http://a/b/%2E%2E/c\n" {
		t.Errorf("normalize --keep-encoded-dots: exit %d, %q", code, out)
	}
	in := "http://a/b/%2E%2E/c\nhttp://a/c\n"
	if _, out, _ := cli(t, in, "dedup"); out != "http://a/b/%2E%2E/c\n" {
		t.Errorf("dedup: %q", out)
	}
	if _, out, _ := cli(t, in, "dedup", "--keep-encoded-dots"); out != in {
		t.Errorf("dedup --keep-encoded-dots: %q", out)
	}
	storeRecordsFlag(t, in, "--keep-encoded-dots")
}

// TestKeepRootlessDotsFlag: normalize and dedup remove the dot segments
// of a rootless path with a scheme (RFC 3986 §6.2.2.3), keep them with
// --keep-rootless-dots, keep a relative reference's either way, and a
// disk store records which (one made keeping them is refused without
// the flag).
func TestKeepRootlessDotsFlag(t *testing.T) {
	if code, out, _ := cli(t, "", "normalize", "-u", "foo:a/../b", "-u", "f:./x", "-u", "f:a/..//g", "-u", "a/../../b"); code != 0 || out != "foo:/b\nf:x\nf:/.//g\na/../../b\n" {
		t.Errorf("normalize: exit %d, %q", code, out)
	}
	if code, out, _ := cli(t, "", "normalize", "--keep-rootless-dots", "-u", "foo:a/../b", "-u", "f:a/..//g", "-u", "f:/a/../b"); code != 0 || out != "foo:a/../b\nf:a/..//g\nf:/b\n" {
		t.Errorf("normalize --keep-rootless-dots: exit %d, %q", code, out)
	}
	if code, _, errs := cli(t, "", "normalize", "--level", "w3lib", "--keep-rootless-dots", "-u", "foo:a"); code != 2 || !strings.Contains(errs, "--keep-rootless-dots applies to the RFC levels") {
		t.Errorf("normalize --level w3lib --keep-rootless-dots: exit %d, %q", code, errs)
	}
	in := "foo:a/../b\nfoo:/b\n"
	if _, out, _ := cli(t, in, "dedup"); out != "foo:a/../b\n" {
		t.Errorf("dedup: %q", out)
	}
	if _, out, _ := cli(t, in, "dedup", "--keep-rootless-dots"); out != in {
		t.Errorf("dedup --keep-rootless-dots: %q", out)
	}
	storeRecordsFlag(t, in, "--keep-rootless-dots")
}

// TestIPv6Flag: --ipv6-rfc5952 writes IPv6 hosts in RFC 5952 form in
// normalize and dedup (where the two spellings become duplicates).
func TestIPv6Flag(t *testing.T) {
	in := "http://[2001:DB8:0:0:0:0:0:1]/\nhttp://[2001:db8::1]/\n"
	if code, out, _ := cli(t, in, "normalize", "--ipv6-rfc5952"); code != 0 || out != "http://[2001:db8::1]/\nhttp://[2001:db8::1]/\n" {
		t.Errorf("normalize: exit %d, %q", code, out)
	}
	if _, out, _ := cli(t, in, "normalize"); out != "http://[2001:db8:0:0:0:0:0:1]/\nhttp://[2001:db8::1]/\n" {
		t.Errorf("normalize without: %q", out)
	}
	if _, out, _ := cli(t, in, "dedup", "--ipv6-rfc5952"); out != "http://[2001:DB8:0:0:0:0:0:1]/\n" {
		t.Errorf("dedup: %q", out)
	}
	if _, out, _ := cli(t, in, "dedup"); out != in {
		t.Errorf("dedup without: %q", out)
	}
}

// TestHeuristicFlags: each crawler heuristic is a flag of its own on
// normalize and dedup (implying --level crawler with only those), with
// --strip-param's globs; dedup --repair takes an invalid line repaired;
// a disk store records the heuristics.
func TestHeuristicFlags(t *testing.T) {
	u := "HTTP://WWW.Example.COM:80//a//index.html?b=2&utm_source=x&a=1&sid=7#frag"
	for _, tc := range []struct {
		flags []string
		want  string
	}{
		{nil, "http://www.example.com//a//index.html?b=2&utm_source=x&a=1&sid=7#frag"},
		{[]string{"--level", "crawler"}, "http://example.com/a/?a=1&b=2"},
		{[]string{"--drop-fragment"}, "http://www.example.com//a//index.html?b=2&utm_source=x&a=1&sid=7"},
		{[]string{"--strip-params"}, "http://www.example.com//a//index.html?b=2&a=1#frag"},
		{[]string{"--sort-query"}, "http://www.example.com//a//index.html?a=1&b=2&sid=7&utm_source=x#frag"},
		{[]string{"--collapse-slashes"}, "http://www.example.com/a/index.html?b=2&utm_source=x&a=1&sid=7#frag"},
		{[]string{"--strip-www"}, "http://example.com//a//index.html?b=2&utm_source=x&a=1&sid=7#frag"},
		{[]string{"--drop-index"}, "http://www.example.com//a//?b=2&utm_source=x&a=1&sid=7#frag"},
		{[]string{"--strip-param", "UTM_*", "--strip-param", "*a"}, "http://www.example.com//a//index.html?b=2&sid=7#frag"},
		{[]string{"--strip-www", "--drop-fragment", "--level", "crawler"}, "http://example.com//a//index.html?b=2&utm_source=x&a=1&sid=7"},
	} {
		code, out, errs := cli(t, "", append([]string{"normalize", "-u", u}, tc.flags...)...)
		if code != 0 || out != tc.want+"\n" {
			t.Errorf("normalize %q: exit %d, %q (%s), want %q", tc.flags, code, out, errs, tc.want)
		}
	}
	if code, _, errs := cli(t, "", "normalize", "--level", "syntax", "--strip-www", "-u", u); code != 2 || !strings.Contains(errs, "apply at --level crawler") {
		t.Errorf("--level syntax --strip-www: exit %d, %q", code, errs)
	}
	// dedup --repair: the repaired form is the record, and is written.
	in := "http://a b/\nhttp://a%20b/\nhttp://[bad\n"
	code, out, errs := cli(t, in, "dedup", "--repair")
	if code != 1 || out != "http://a%20b/\n" || !strings.Contains(errs, "repaired 1, unique 1, duplicates 1") || !strings.Contains(errs, "<stdin>:1: repaired:") {
		t.Errorf("dedup --repair: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// A disk store made with --strip-www is refused without it.
	dir := t.TempDir()
	key := writeFile(t, "key.hex", strings.Repeat("ef", 32))
	store := "disk:" + filepath.Join(dir, "seen")
	if code, _, errs := cli(t, "http://www.a/\n", "dedup", "--store", store, "--key-file", key, "--strip-www"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := cli(t, "http://www.a/\n", "dedup", "--store", store, "--key-file", key, "--level", "crawler"); code != 2 || !strings.Contains(errs, "was made with --strip-www;") {
		t.Errorf("the store's heuristics differ: exit %d, %q", code, errs)
	}
}

// TestIDNAFlag: at --level crawler (or with --idna) a percent-encoded
// Unicode host is written as its A-label, so dedup takes the two spellings
// as one; a disk store records it, and one made before (without the
// "idna" parameter) is refused rather than mixed.
func TestIDNAFlag(t *testing.T) {
	in := "http://b%C3%BCcher.example/\nhttp://xn--bcher-kva.example/\n"
	if code, out, _ := cli(t, in, "normalize", "--idna"); code != 0 || out != "http://xn--bcher-kva.example/\nhttp://xn--bcher-kva.example/\n" {
		t.Errorf("normalize --idna: exit %d, %q", code, out)
	}
	if _, out, _ := cli(t, in, "dedup", "--level", "crawler"); out != "http://b%C3%BCcher.example/\n" {
		t.Errorf("dedup --level crawler: %q", out)
	}
	if _, out, _ := cli(t, in, "dedup"); out != in {
		t.Errorf("dedup at scheme level (no IDNA): %q", out)
	}
	// Every heuristic but IDNA: the two stay apart.
	if _, out, _ := cli(t, in, "dedup", "--strip-www", "--drop-fragment"); out != in {
		t.Errorf("dedup without --idna: %q", out)
	}
	dir := t.TempDir()
	key := writeFile(t, "key.hex", strings.Repeat("cd", 32))
	store := "disk:" + filepath.Join(dir, "seen")
	if code, _, errs := cli(t, in, "dedup", "--store", store, "--key-file", key, "--strip-www"); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := cli(t, in, "dedup", "--store", store, "--key-file", key, "--strip-www", "--idna"); code != 2 || !strings.Contains(errs, "idna") {
		t.Errorf("a store made without IDNA, used with it: exit %d, stderr %q", code, errs)
	}
}

// storeRecordsFlag: a disk store dedup made from in with flag (a
// normal-form option) is refused without it, naming the flag.
func storeRecordsFlag(t *testing.T, in, flag string) {
	t.Helper()
	key := writeFile(t, "key.hex", strings.Repeat("cd", 32))
	store := "disk:" + filepath.Join(t.TempDir(), "seen")
	if code, _, errs := cli(t, in, "dedup", "--store", store, "--key-file", key, flag); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := cli(t, in, "dedup", "--store", store, "--key-file", key); code != 2 || !strings.Contains(errs, "was made with "+flag+";") {
		t.Errorf("a store made with %s, used without: exit %d, stderr %q", flag, code, errs)
	}
}
