package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// reportInput has invalid lines 2, 4, 6 ... among valid ones.
func reportInput(n int) string {
	var b strings.Builder
	for i := range n {
		if i%2 == 1 {
			b.WriteString("http://bad host/\n")
		} else {
			b.WriteString("http://ok.example/" + strings.Repeat("p", i%7) + "\n")
		}
	}
	return b.String()
}

// TestQuietAndErrorsJSONL: --quiet leaves only I/O errors on standard
// error; --errors jsonl makes each report a JSON object with the file,
// line, offset, reason and input.
func TestQuietAndErrorsJSONL(t *testing.T) {
	in := reportInput(6) + strings.Repeat("x", 300) + "\n"
	for _, cmd := range []string{"validate", "split", "normalize", "resolve", "dedup"} {
		args := []string{cmd, "--max-line", "200"}
		if cmd == "resolve" {
			args = append(args, "--base", "http://b/")
		}
		code, _, errs := cli(t, in, append(args, "--quiet")...)
		if cmd == "dedup" {
			errs = strings.Join(lines(errs)[:len(lines(errs))-1], "\n") // the summary stays
		}
		if code != 1 || errs != "" {
			t.Errorf("%s --quiet: exit %d, stderr %q", cmd, code, errs)
		}
		code, _, errs = cli(t, in, append(args, "--errors", "jsonl")...)
		ls := lines(errs)
		if cmd == "dedup" {
			ls = ls[:len(ls)-1]
		}
		if cmd == "validate" {
			ls = nil // validate reports on standard output
		}
		for i, l := range ls {
			var r struct {
				File        *string
				Line        *int
				Offset      *int
				Reason      *string
				Input       *string
				InputLength *int `json:"input_length"`
			}
			// One input: no "file" (docs/output.md).
			if err := json.Unmarshal([]byte(l), &r); err != nil || r.File != nil || r.Line == nil || r.Offset == nil || r.Reason == nil || r.Input == nil {
				t.Errorf("%s --errors jsonl: report %d %q: %v", cmd, i, l, err)
				continue
			}
			if want := []int{2, 4, 6, 7}[i]; *r.Line != want || (want == 7) != (r.InputLength != nil) {
				t.Errorf("%s --errors jsonl: report %d %q: want line %d", cmd, i, l, want)
			}
		}
		if code != 1 || (cmd != "validate" && len(ls) != 4) {
			t.Errorf("%s --errors jsonl: exit %d, %d reports: %q", cmd, code, len(ls), errs)
		}
	}
	if code, _, errs := cli(t, "", "split", "--errors", "xml"); code != 2 || !strings.Contains(errs, "--errors must be text or jsonl") {
		t.Errorf("--errors xml: exit %d, %q", code, errs)
	}
}

// TestMaxErrors: --max-errors N stops right after the N-th invalid line,
// with exit status 1 and a message, the output the same whatever the
// number of workers and the chunk size, and the same as the streaming
// loop's.
func TestMaxErrors(t *testing.T) {
	in := reportInput(4000)
	f := writeFile(t, "in.txt", in)
	key := writeFile(t, "key.hex", strings.Repeat("ab", 32))
	for _, cmd := range [][]string{{"split"}, {"validate"}, {"normalize", "--format", "jsonl", "--key-file", key}} {
		stream := defaultTuning()
		stream.streamOnly = true
		code, want, wantErr := cliT(t, stream, "", append(cmd, "--max-errors", "700", f)...)
		if code != 1 || !strings.HasSuffix(wantErr, "uriscan: stopped after 700 invalid lines (--max-errors)\n") {
			t.Fatalf("%s: exit %d, stderr ends %q", cmd[0], code, wantErr[max(0, len(wantErr)-100):])
		}
		if cmd[0] != "validate" && len(lines(want)) != 1400 {
			t.Fatalf("%s: %d lines of output, want 1400 (to the 700th invalid line)", cmd[0], len(lines(want)))
		}
		for _, size := range []int{100, 4096, 128 << 10} {
			for _, piece := range []int{512, 1 << 20} {
				tn := chunks(size, piece)
				for _, w := range []string{"1", "2", "3"} {
					code, out, errs := cliT(t, tn, "", append(cmd, "--max-errors", "700", "--workers", w, f)...)
					if code != 1 || out != want || errs != wantErr {
						t.Errorf("%s, chunks of %d, pieces of %d, --workers %s: exit %d: %s", cmd[0], size, piece, w, code, firstDiff(out, want, errs, wantErr))
					}
				}
			}
		}
	}
}

// TestSummaryJSON: dedup and extract write their summary as one JSON
// object to --summary FILE, and with --errors jsonl as the last line of
// standard error (what "2>&1 | tail -1 | jq" reads).
func TestSummaryJSON(t *testing.T) {
	dir := t.TempDir()
	sum := filepath.Join(dir, "sum.json")
	in := "http://a/\nhttp://A/\nbad line\n\nsee http://b/ and http://c/\n"
	code, _, errs := cli(t, in, "dedup", "--summary", sum, "--errors", "jsonl")
	var d struct {
		Command                                   string
		Lines, Blank, Invalid, Unique, Duplicates int64
	}
	last := lastLine(errs)
	if err := json.Unmarshal([]byte(last), &d); err != nil || code != 1 || d != (struct {
		Command                                   string
		Lines, Blank, Invalid, Unique, Duplicates int64
	}{"dedup", 5, 1, 2, 1, 1}) {
		t.Errorf("dedup: exit %d, last line %q (%v): %+v", code, last, err, d)
	}
	if b := readFile(t, sum); strings.TrimSpace(b) != last {
		t.Errorf("dedup --summary: %q, stderr's %q", b, last)
	}
	code, out, errs := cli(t, in, "extract", "--summary", sum, "--errors", "jsonl")
	var x extractSummary
	if err := json.Unmarshal([]byte(lastLine(errs)), &x); err != nil || code != 0 || x != (extractSummary{"extract", 1, int64(len(in)), 4, 0, 0}) || len(lines(out)) != 4 {
		t.Errorf("extract: exit %d, stdout %q, stderr %q: %+v", code, out, errs, x)
	}
	if b := readFile(t, sum); strings.TrimSpace(b) != lastLine(errs) {
		t.Errorf("extract --summary: %q", b)
	}
	// Without either, extract says nothing.
	if _, _, errs := cli(t, in, "extract"); errs != "" {
		t.Errorf("extract: stderr %q", errs)
	}
}

// outputSchemas reads the schema block of docs/output.md: record kind ->
// its keys in order, "K?" optional, "A|B" one of two.
func outputSchemas(t *testing.T) map[string][]string {
	t.Helper()
	doc := readFile(t, filepath.Join("..", "..", "docs", "output.md"))
	_, block, ok := strings.Cut(doc, "```schema\n")
	block, _, ok2 := strings.Cut(block, "```")
	if !ok || !ok2 {
		t.Fatal("docs/output.md: no schema block")
	}
	schemas := map[string][]string{}
	for _, l := range lines(block) {
		kind, keys, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("docs/output.md: schema line %q", l)
		}
		schemas[kind] = strings.Fields(keys)
	}
	return schemas
}

// matchSchema reports whether keys (a record's, in order) fit schema.
func matchSchema(keys, schema []string) bool {
	i := 0
	for _, k := range schema {
		name, optional := strings.CutSuffix(k, "?")
		alts := strings.Split(name, "|")
		if i < len(keys) && slices.Contains(alts, keys[i]) {
			i++
		} else if !optional {
			return false
		}
	}
	return i == len(keys)
}

// TestJSONSchemas: every JSON record the commands write (split,
// normalize --format jsonl, extract --format jsonl, the --errors jsonl
// reports and summaries) has exactly the keys, in order, that
// docs/output.md gives its kind; "file" is there exactly when the run
// reads more than one input; "offset" is in the line and "byte_offset"
// in the input.
func TestJSONSchemas(t *testing.T) {
	schemas := outputSchemas(t)
	if len(schemas) < 12 {
		t.Fatalf("docs/output.md: %d kinds", len(schemas))
	}
	if matchSchema([]string{"line", "x"}, schemas["error"]) || !matchSchema([]string{"line", "input_base64", "valid", "error"}, schemas["split.invalid"]) {
		t.Fatal("matchSchema")
	}
	a := writeFile(t, "a.txt", "http://u@h:1/p?q#f\nbad line\n HTTP://x/\\a b\nhttp://0x7f.1/ http://www.example.co.uk/\n\xff\n")
	b := writeFile(t, "b.txt", "see http://x/ here\n")
	bom := writeFile(t, "bom.txt", "\xEF\xBB\xBFhttp://bom.example/\nbad line\n")
	clf := writeFile(t, "c.log", `1.2.3.4 - - [01/Mar/2024:00:00:00 +0000] "GET /a?b=1 HTTP/1.1" 200 5 "https://ref.example/\x22" "-"`+"\nnot a log line\n")
	seen := map[string]bool{}
	for _, tc := range []struct {
		args   []string
		stdout func(m map[string]any) string // kind of a record on standard output
		stderr func(m map[string]any) string // and on standard error
	}{
		{[]string{"split", "--errors", "jsonl", a}, splitKind, reportKind},
		{[]string{"split", "--flags", "--domains", "--max-line", "20", "--errors", "jsonl", a, b}, splitKind, reportKind},
		{[]string{"normalize", "--format", "jsonl", "--errors", "jsonl", a, b}, normalizeKind, reportKind},
		{[]string{"normalize", "--format", "jsonl", "--repair", "--errors", "jsonl", a}, normalizeKind, reportKind},
		{[]string{"extract", "--format", "jsonl", "--any-scheme", "--rejects", "--errors", "jsonl", a}, extractKind, summaryKind},
		{[]string{"extract", "--format", "jsonl", "--rejects", "--errors", "jsonl", a, b}, extractKind, summaryKind},
		{[]string{"extract", "--format", "jsonl", "--log", "combined", "--rejects", "--errors", "jsonl", clf, b}, extractKind, summaryKind},
		{[]string{"validate", "--errors", "jsonl", a}, reportKind, nil},
		{[]string{"validate", "--errors", "jsonl", a, bom}, reportKind, reportKind},
		{[]string{"dedup", "--errors", "jsonl", a, b}, nil, summaryKind},
		{[]string{"dedup", "--repair", "--errors", "jsonl", a}, nil, summaryKind},
		{[]string{"dedup", "--extract", "--errors", "jsonl", a}, nil, summaryKind},
	} {
		withFile := 0
		for _, a := range tc.args[1:] {
			if strings.HasSuffix(a, ".txt") || strings.HasSuffix(a, ".log") {
				withFile++
			}
		}
		_, out, errs := cli(t, "", tc.args...)
		for _, o := range []struct {
			text string
			kind func(map[string]any) string
		}{{out, tc.stdout}, {errs, tc.stderr}} {
			if o.kind == nil {
				continue
			}
			for _, l := range lines(o.text) {
				m := decode(t, l)
				kind := o.kind(m)
				keys := jsonKeys(t, l)
				seen[kind] = true
				if !matchSchema(keys, schemas[kind]) {
					t.Errorf("%v: %s: keys %v are not a %s record's %v", tc.args, l, keys, kind, schemas[kind])
				}
				if _, ok := m["file"]; ok != (withFile > 1) && kind != "summary.dedup" && kind != "summary.extract" {
					t.Errorf("%v: %s: \"file\" with %d inputs", tc.args, l, withFile)
				}
				var raw map[string]json.RawMessage
				json.Unmarshal([]byte(l), &raw)
				for _, sub := range []struct{ key, kind string }{{"error", "error"}, {"repaired", "repaired"}} {
					if v, ok := raw[sub.key]; ok && len(v) > 0 && v[0] == '{' {
						seen[sub.kind] = true
						if !matchSchema(jsonKeys(t, string(v)), schemas[sub.kind]) {
							t.Errorf("%v: %s: %q is not a %s record", tc.args, l, sub.key, sub.kind)
						}
					}
				}
				if kind == "extract.valid" && m["field"] == nil {
					// A URI found in text: byte_offset is where its bytes are,
					// offset the same place counted from its line's start.
					file := map[string]string{"a.txt": a, "b.txt": b}[filepath.Base(tc.args[len(tc.args)-1])]
					if withFile > 1 {
						file = m["file"].(string)
					}
					in, uri := readFile(t, file), m["uri"].(string)
					at, off := int(m["byte_offset"].(float64)), int(m["offset"].(float64))
					if !strings.HasPrefix(in[at:], uri) || at-off != strings.LastIndexByte(in[:at], '\n')+1 {
						t.Errorf("%v: %s: offsets are not the URI's", tc.args, l)
					}
				}
			}
		}
	}
	for kind := range schemas {
		if !seen[kind] {
			t.Errorf("docs/output.md's %s: no record of that kind was seen", kind)
		}
	}
}

func splitKind(m map[string]any) string {
	if m["valid"] == true {
		return "split.valid"
	}
	return "split.invalid"
}

func normalizeKind(m map[string]any) string {
	if m["valid"] == true {
		return "normalize.valid"
	}
	return "normalize.invalid"
}

func extractKind(m map[string]any) string {
	if m["valid"] == true {
		return "extract.valid"
	}
	return "extract.rejected"
}

func reportKind(m map[string]any) string {
	if _, ok := m["notice"]; ok {
		return "notice"
	}
	if _, ok := m["repaired"]; ok {
		return "report.repair"
	}
	return "report"
}

// summaryKind: extract's and dedup's reports on standard error with
// --errors jsonl are rejections, reports and a summary, last.
func summaryKind(m map[string]any) string {
	switch {
	case m["command"] == "dedup":
		return "summary.dedup"
	case m["command"] == "extract":
		return "summary.extract"
	case m["uri"] != nil:
		return extractKind(m)
	}
	return reportKind(m)
}

func readFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestURIFlag: --uri and -u give the URIs to read on the command line, in
// order, named <uri> in messages; not together with files, not with a
// line end in one.
func TestURIFlag(t *testing.T) {
	code, out, errs := cli(t, "", "split", "-u", "http://x/a", "--uri", "b c")
	if ls := lines(out); code != 1 || len(ls) != 2 || decode(t, ls[0])["host"] != "x" || errs != "<uri>:2: offset 1: invalid character ' ' in path\n" {
		t.Errorf("split: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if code, out, _ := cli(t, "", "normalize", "-u", "HTTP://A:80/./b"); code != 0 || out != "http://a/b\n" {
		t.Errorf("normalize: exit %d, %q", code, out)
	}
	if code, out, _ := cli(t, "", "resolve", "--base", "http://a/b/c", "-u", "../d", "-u", "g?y"); code != 0 || out != "http://a/d\nhttp://a/b/g?y\n" {
		t.Errorf("resolve: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"split", "-u", "x", "file"}, {"validate", "-u", "a\nb"}} {
		if code, _, errs := cli(t, "", args...); code != 2 || !strings.Contains(errs, "usage:") {
			t.Errorf("%q: exit %d, %q", args, code, errs)
		}
	}
}

// blockingReader gives its text, then blocks in Read for ever (tail -f).
type blockingReader struct {
	text []byte
	done bool
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if !r.done {
		r.done = true
		return copy(p, r.text), nil
	}
	select {} // never returns
}

// TestMaxErrorsSlowInput: --max-errors ends the run at once even when the
// input waits for more (tail -f log | uriscan validate --max-errors 1):
// the run does not wait for a read that does not end.
func TestMaxErrorsSlowInput(t *testing.T) {
	for _, w := range []string{"1", "2"} {
		done := make(chan int, 1)
		go func() {
			code, _, _ := cliReader(t, &blockingReader{text: []byte("http://ok/\nbad line\nhttp://ok2/\n")}, "validate", "--max-errors", "1", "--workers", w)
			done <- code
		}()
		select {
		case code := <-done:
			if code != 1 {
				t.Errorf("--workers %s: exit %d", w, code)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("--workers %s: still running 10 s after the first invalid line", w)
		}
	}
}

// TestSummaryEdges: the summary counts every byte read (a byte-order mark
// too), comes after the other messages, is not written for a usage error,
// and a --summary that cannot be written is an I/O error (exit 2).
func TestSummaryEdges(t *testing.T) {
	in := "\xef\xbb\xbfsee http://a/\nbad\n"
	f := writeFile(t, "in.txt", in)
	code, _, errs := cli(t, "", "extract", "--errors", "jsonl", f)
	var x extractSummary
	if err := json.Unmarshal([]byte(lastLine(errs)), &x); err != nil || code != 0 || x.Bytes != int64(len(in)) || x.URIs != 1 {
		t.Errorf("extract: exit %d, stderr %q: %+v", code, errs, x)
	}
	code, _, errs = cli(t, "http://a/\nbad line\nbad line\n", "dedup", "--errors", "jsonl", "--max-errors", "1")
	if !strings.HasPrefix(lastLine(errs), `{"command":"dedup"`) || !strings.Contains(errs, "stopped after 1 invalid lines") || code != 1 {
		t.Errorf("dedup --max-errors: exit %d, stderr %q: the summary is not last", code, errs)
	}
	sum := filepath.Join(t.TempDir(), "sum.json")
	if code, _, errs := cli(t, "", "extract", "--log", "xml", "--summary", sum, f); code != 2 || strings.Contains(errs, `"command"`) {
		t.Errorf("usage error: exit %d, stderr %q", code, errs)
	}
	if _, err := os.Stat(sum); err == nil {
		t.Errorf("usage error: %s was written", sum)
	}
	bad := filepath.Join(t.TempDir(), "missing", "sum.json")
	for _, cmd := range []string{"extract", "dedup"} {
		if code, _, errs := cli(t, "", cmd, "--summary", bad, f); code != 2 || !strings.Contains(errs, "--summary") {
			t.Errorf("%s --summary %s: exit %d, stderr %q", cmd, bad, code, errs)
		}
	}
}

// TestStderrWriteError: a run whose standard error cannot be written
// (/dev/full) exits 2, an I/O error, whether it loses reports (the first
// ones, or more than a buffer's worth from two workers) or dedup's
// summary; exit 1 says only that some line was invalid. Its output is
// still all written, and a run with nothing to say there exits 0.
func TestStderrWriteError(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	dir := t.TempDir()
	write := func(name, s string) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	one := write("one", "http://a/\nhttp://a b/\n")
	many := write("many", reportInput(20000)) // 10,000 reports, 600 KB
	valid := write("valid", "http://a/\nhttp://b/\n")
	for _, c := range []struct {
		args  []string
		code  int
		lines int // of standard output
	}{
		{[]string{"split", one}, 2, 2},
		{[]string{"split", "--workers", "2", many}, 2, 20000},
		{[]string{"normalize", "--errors", "jsonl", "--workers", "1", many}, 2, 20000},
		{[]string{"dedup", valid}, 2, 2}, // the summary
		{[]string{"split", valid}, 0, 2},
		{[]string{"split", "--quiet", one}, 1, 2},
	} {
		cmd := child(t, dir, c.args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, full
		code := 0
		if err := cmd.Run(); err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) {
				t.Fatal(err)
			}
			code = ee.ExitCode()
		}
		if n := strings.Count(out.String(), "\n"); code != c.code || n != c.lines {
			t.Errorf("%v, standard error /dev/full: exit %d, %d output lines; want exit %d, %d lines", c.args, code, n, c.code, c.lines)
		}
	}
}
