package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/klauspost/compress/zstd"
	"github.com/uriscan/uriscan"
)

// cli runs the command in-process.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliReaderT(t, defaultTuning(), strings.NewReader(stdin), args...)
}

func cliReader(t *testing.T, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliReaderT(t, defaultTuning(), stdin, args...)
}

// cliT runs the command in-process with the tuning tn (chunk sizes, how
// inputs are read, the tests' hooks).
func cliT(t *testing.T, tn tuning, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cliReaderT(t, tn, strings.NewReader(stdin), args...)
}

func cliReaderT(t *testing.T, tn tuning, stdin io.Reader, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := newTestEnv(stdin, &out, &errb)
	e.tune = tn
	code = e.run(args)
	return code, out.String(), errb.String()
}

func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

var validKeys = []string{"line", "input", "valid", "scheme", "userinfo", "host", "host_type", "port", "path", "query", "fragment"}

// jsonKeys returns the top-level keys of a JSON object, in order, and
// checks that it is exactly one object.
func jsonKeys(t *testing.T, obj string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("%s: not an object: %v %v", obj, tok, err)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
		keys = append(keys, tok.(string))
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: %v", obj, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: trailing data", obj)
	}
	return keys
}

func decode(t *testing.T, obj string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(obj), &m); err != nil {
		t.Fatalf("%s: %v", obj, err)
	}
	return m
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeGzip(t *testing.T, name, content string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write([]byte(content))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, buf.String())
}

func TestFilesAndStdin(t *testing.T) {
	a := writeFile(t, "a.txt", "http://a/\na b\n")
	gz := writeGzip(t, "b.txt.gz", "http://gz/\r\nc d\r\n")
	code, out, _ := cli(t, "x y\n", "validate", a, "-", gz)
	// Line numbers restart at 1 in each file.
	want := a + `:2: offset 1: invalid character ' ' in path: "a b"` + "\n" +
		`<stdin>:1: offset 1: invalid character ' ' in path: "x y"` + "\n" +
		gz + `:2: offset 1: invalid character ' ' in path: "c d"` + "\n"
	if code != 1 || out != want {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s", code, out, want)
	}

	code, out, _ = cli(t, "", "split", gz)
	got := lines(out)
	if code != 1 || len(got) != 2 || decode(t, got[0])["host"] != "gz" {
		t.Errorf("gzip split: exit %d\n%s", code, out)
	}

	// "-" reads stdin, as does no file at all.
	for _, args := range [][]string{{"split", "-"}, {"split"}} {
		code, out, _ = cli(t, "http://s/", args...)
		if code != 0 || decode(t, strings.TrimSuffix(out, "\n"))["host"] != "s" {
			t.Errorf("%q: exit %d, stdout %q", args, code, out)
		}
	}
}

func TestIOErrors(t *testing.T) {
	a := writeFile(t, "a.txt", "http://a/\n")
	missing := filepath.Join(t.TempDir(), "missing")
	code, out, errs := cli(t, "", "split", missing, a)
	// The command, the input and why: not the system call.
	if code != 2 || len(lines(out)) != 1 || errs != "uriscan: split: "+missing+": no such file or directory\n" {
		t.Errorf("missing file: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// Compression is told by the magic number, not the name: a ".gz"
	// that is text is read as text, a gzip magic with a broken header is
	// an error.
	notGzip := writeFile(t, "x.gz", "http://plain/\n")
	if code, out, errs := cli(t, "", "normalize", notGzip); code != 0 || out != "http://plain/\n" {
		t.Errorf("text named .gz: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	badGzip := writeFile(t, "bad.txt", "\x1f\x8bnot really gzip\n")
	code, _, errs = cli(t, "", "validate", badGzip)
	if code != 2 || !strings.Contains(errs, "gunzip "+badGzip) {
		t.Errorf("broken gzip: exit %d, stderr %q", code, errs)
	}
	// A truncated gzip stream is an error, not a silent end of input.
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(bytes.Repeat([]byte("http://a/\n"), 1000))
	zw.Close()
	trunc := writeFile(t, "t.gz", buf.String()[:buf.Len()-10])
	code, _, errs = cli(t, "", "validate", trunc)
	if code != 2 || !strings.Contains(errs, trunc) {
		t.Errorf("truncated gzip: exit %d, stderr %q", code, errs)
	}
	// A read error on stdin.
	r := io.MultiReader(strings.NewReader("http://a/\n"), iotest.ErrReader(errors.New("disk on fire")))
	code, out, errs = cliReader(t, r, "split")
	if code != 2 || len(lines(out)) != 1 || errs != "uriscan: split: <stdin>: disk on fire\n" {
		t.Errorf("read error: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestWriteError(t *testing.T) {
	var errb bytes.Buffer
	in := strings.Repeat("http://a/\n", 100000)
	code := run([]string{"split"}, strings.NewReader(in), failWriter{}, &errb)
	if code != 2 || !strings.Contains(errb.String(), "writing output") {
		t.Errorf("exit %d, stderr %q", code, errb.String())
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("no space left") }

// TestLongLines: lines far longer than the read buffer, within --max-line,
// are kept whole.
func TestLongLines(t *testing.T) {
	long := "http://h/" + strings.Repeat("a", 3<<20)
	longBad := strings.Repeat("b", 1<<20+5) + " x"
	in := "http://first/\n" + long + "\r\n" + longBad + "\nhttp://last/"
	code, out, errs := cli(t, in, "split", "--max-line", strconv.Itoa(4<<20))
	got := lines(out)
	if code != 1 || len(got) != 4 {
		t.Fatalf("exit %d, %d lines", code, len(got))
	}
	if m := decode(t, got[1]); m["input"] != long || m["path"] != long[len("http://h"):] || m["line"] != 2.0 {
		t.Errorf("long valid line not kept intact")
	}
	m := decode(t, got[2])
	if m["input"] != longBad || m["valid"] != false || m["line"] != 3.0 {
		t.Errorf("long invalid line not kept intact")
	}
	if want := "<stdin>:3: offset " + strconv.Itoa(1<<20+5) + ": invalid character ' ' in path\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
	if decode(t, got[3])["input"] != "http://last/" {
		t.Errorf("last line: %s", got[3])
	}
}

// TestMaxLine: a line over --max-line (1 MiB by default) is invalid in
// every command, reported with its length, echoed cut, never a record;
// the lines after it are read.
func TestMaxLine(t *testing.T) {
	long := "http://h/" + strings.Repeat("a", 1<<20) // 1 MiB + 9
	in := "http://first/\n" + long + "\r\n\nhttp://last/\n"
	report := "<stdin>:2: offset 1048576: line of 1048585 bytes is longer than the limit of 1048576 bytes\n"
	code, out, errs := cli(t, in, "split")
	got := lines(out)
	if code != 1 || len(got) != 4 || errs != report {
		t.Fatalf("split: exit %d, %d lines, stderr %q", code, len(got), errs)
	}
	m := decode(t, got[1])
	if m["input"] != long[:uriscan.LongLineKept] || m["input_length"] != float64(len(long)) || m["valid"] != false {
		t.Errorf("split: %.300s", got[1])
	}
	if decode(t, got[3])["input"] != "http://last/" || decode(t, got[2])["valid"] != true {
		t.Errorf("split: lines after: %s %s", got[2], got[3])
	}
	code, out, errs = cli(t, in, "validate")
	if want := "<stdin>:2: offset 1048576: line of 1048585 bytes is longer than the limit of 1048576 bytes: " + strconv.Quote(long[:200]) + "...(1048585 bytes)\n"; code != 1 || out != want || errs != "" {
		t.Errorf("validate: exit %d, out %.400q, stderr %q", code, out, errs)
	}
	for _, c := range [][]string{{"normalize"}, {"normalize", "--repair"}, {"resolve", "--base", "http://b/"}} {
		code, out, errs = cli(t, in, c...)
		if got := lines(out); code != 1 || len(got) != 4 || got[1] != "" || got[3] != "http://last/" || errs != report {
			t.Errorf("%v: exit %d, out %q, stderr %q", c, code, got, errs)
		}
	}
	code, out, errs = cli(t, in, "dedup")
	if code != 1 || out != "http://first/\nhttp://last/\n" || dropElapsed(errs) != report+"uriscan: dedup: lines 4, blank 1, invalid 1, unique 2, duplicates 0\n" {
		t.Errorf("dedup: exit %d, out %q, stderr %q", code, out, errs)
	}
	// A smaller limit, and the limit's bounds.
	code, out, _ = cli(t, "http://a/\nhttp://bb/\n", "dedup", "--max-line", "9")
	if code != 1 || out != "http://a/\n" {
		t.Errorf("--max-line 9: exit %d, out %q", code, out)
	}
	for _, bad := range []string{"0", "-1", "x"} {
		if code, _, errs := cli(t, "", "split", "--max-line", bad); code != 2 || !strings.Contains(errs, "max-line") {
			t.Errorf("--max-line %s: exit %d, %q", bad, code, errs)
		}
	}
}

// TestTruncatedInput: a .gz cut short ends with an I/O error naming the
// line, and its partial last line is not taken.
func TestTruncatedInput(t *testing.T) {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	for i := range 20000 {
		fmt.Fprintf(zw, "https://www.example.com/%d\n", i)
	}
	zw.Close()
	name := filepath.Join(t.TempDir(), "cut.gz")
	os.WriteFile(name, z.Bytes()[:z.Len()/2], 0o644)
	for _, c := range []string{"split", "dedup", "normalize"} {
		// Streamed (dedup verifies first by default: see verify_test.go).
		code, out, errs := cli(t, "", c, "--verify-input=false", name)
		got := lines(out)
		last := got[len(got)-1]
		if code != 2 || !strings.Contains(errs, "was cut short by a read error, and is not taken: unexpected EOF") {
			t.Errorf("%s: exit %d, stderr %q", c, code, errs)
		}
		// Every line written is a whole one.
		if !strings.HasSuffix(last, strconv.Itoa(len(got)-1)) && !strings.Contains(last, "/"+strconv.Itoa(len(got)-1)+`"`) {
			t.Errorf("%s: %d lines, the last %q", c, len(got), last)
		}
	}
}

// TestNilError: the methods of a nil *uriscan.Error do not panic.
func TestNilError(t *testing.T) {
	var e *uriscan.Error
	if e.Error() == "" || e.Reason() == "" || e.Unwrap() != nil {
		t.Fatal("nil *Error")
	}
}

func TestManyLinesInOrder(t *testing.T) {
	const n = 100000
	var in strings.Builder
	for i := range n {
		switch i % 7 {
		case 3:
			fmt.Fprintf(&in, "http://bad host/%d\n", i)
		case 5:
			in.WriteString("\n")
		default:
			fmt.Fprintf(&in, "http://h%d/p?%d\r\n", i, i)
		}
	}
	path := writeGzip(t, "many.gz", in.String())
	for _, args := range [][]string{{"split"}, {"split", path}} {
		stdin := in.String()
		if len(args) > 1 {
			stdin = ""
		}
		var out, errb bytes.Buffer
		// Feed stdin in small irregular reads, as a pipe would.
		code := run(args, iotest.HalfReader(strings.NewReader(stdin)), &out, &errb)
		if code != 1 {
			t.Errorf("%q: exit %d", args, code)
		}
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 1<<20)
		i := 0
		for ; sc.Scan(); i++ {
			var obj struct {
				Line  int     `json:"line"`
				Input string  `json:"input"`
				Query *string `json:"query"`
			}
			if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
				t.Fatalf("%q: line %d: %v", args, i+1, err)
			}
			if obj.Line != i+1 {
				t.Fatalf("%q: output %d has line %d", args, i+1, obj.Line)
			}
			var want string
			switch i % 7 {
			case 3:
				want = fmt.Sprintf("http://bad host/%d", i)
			case 5:
			default:
				want = fmt.Sprintf("http://h%d/p?%d", i, i)
				if obj.Query == nil || *obj.Query != strconv.Itoa(i) {
					t.Fatalf("%q: line %d query %v", args, i+1, obj.Query)
				}
			}
			if obj.Input != want {
				t.Fatalf("%q: line %d input %q, want %q", args, i+1, obj.Input, want)
			}
		}
		if i != n {
			t.Errorf("%q: %d output lines, want %d", args, i, n)
		}
		if got := strings.Count(errb.String(), "\n"); got != (n+3)/7 {
			t.Errorf("%q: %d stderr lines, want %d", args, got, (n+3)/7)
		}
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "help"}} {
		code, out, errs := cli(t, "", args...)
		if code != 0 || errs != "" || !strings.HasPrefix(out, "Usage: uriscan COMMAND") {
			t.Errorf("%q: exit %d, stderr %q, stdout %q", args, code, errs, out)
		}
		for _, c := range commands {
			if !strings.Contains(out, c.example) || !strings.Contains(out, "  "+c.name+" ") {
				t.Errorf("%q: no %s example", args, c.name)
			}
		}
	}
	for _, c := range commands {
		for _, args := range [][]string{{"help", c.name}, {c.name, "--help"}, {c.name, "-h"}, {c.name, "x.txt", "-help"}} {
			code, out, errs := cli(t, "", args...)
			if code != 0 || errs != "" || !strings.HasPrefix(out, "Usage: uriscan "+c.name) || !strings.Contains(out, c.example) {
				t.Errorf("%q: exit %d, stderr %q, stdout %q", args, code, errs, out)
			}
		}
	}
	for _, args := range [][]string{{}, {"bogus"}, {"--bogus"}, {"split", "--bogus"}, {"help", "bogus"}, {"help", "a", "b"}} {
		code, out, errs := cli(t, "", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "uriscan: ") && len(args) > 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	// "--" ends the flags: what follows is a file name.
	code, _, errs := cli(t, "", "validate", "--", "--help")
	if code != 2 || !strings.Contains(errs, "--help") {
		t.Errorf("-- --help: exit %d, stderr %q", code, errs)
	}
}

func TestRecordScannerLines(t *testing.T) {
	in := "a\r\n\nb\r\r\n" + strings.Repeat("x", 300000) + "\nlast\r"
	want := []string{"a", "", "b\r", strings.Repeat("x", 300000), "last"}
	for _, r := range []io.Reader{strings.NewReader(in), iotest.OneByteReader(strings.NewReader(in)), iotest.DataErrReader(strings.NewReader(in))} {
		var s recordScanner
		s.Reset(r)
		var got []string
		for s.Scan() {
			got = append(got, string(s.Bytes()))
		}
		if s.Err() != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%T: got %d lines, err %v", r, len(got), s.Err())
		}
	}
	var s recordScanner
	s.Reset(strings.NewReader(""))
	if s.Scan() {
		t.Error("empty input gave a line")
	}
}

// TestCompressedAndBOM: gzip and zstd inputs are told by their magic
// numbers whatever their names, from files and standard input; a UTF-8
// byte-order mark at the start is skipped and said once; a dedup resume
// over such inputs (an input that grew since the run before) reads on
// from the right byte.
func TestCompressedAndBOM(t *testing.T) {
	var text strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&text, "http://h/%d\n", i%2000)
	}
	plain := text.String()
	const bom = "\xef\xbb\xbf"
	gzipped := func(s string) string {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write([]byte(s))
		zw.Close()
		return b.String()
	}
	zstded := func(s string) string {
		var b bytes.Buffer
		enc, _ := zstd.NewWriter(&b)
		enc.Write([]byte(s))
		enc.Close()
		return b.String()
	}
	_, want, _ := cli(t, plain, "normalize")
	for _, tc := range []struct {
		name, content string
		bom           bool
	}{
		{"a.txt", gzipped(plain), false}, {"b.data", zstded(bom + plain), true},
		{"c.zst", gzipped(plain), false}, {"d.txt", bom + plain, true}, {"e.gz", gzipped(bom + plain), true},
	} {
		f := writeFile(t, tc.name, tc.content)
		code, out, errs := cli(t, "", "normalize", f)
		if n := strings.Count(errs, "skipped a UTF-8 byte-order mark"); code != 0 || out != want || n != map[bool]int{true: 1}[tc.bom] {
			t.Errorf("%s: exit %d, %d lines, stderr %q", tc.name, code, len(lines(out)), errs)
		}
		if code, out, _ := cli(t, tc.content, "normalize"); code != 0 || out != want {
			t.Errorf("%s on stdin: exit %d, %d lines", tc.name, code, len(lines(out)))
		}
	}
	_, wantOut, _ := cli(t, plain, "dedup")
	half := plain[:strings.Index(plain, "http://h/1500\n")]
	for _, enc := range []struct {
		name string
		f    func(string) string
	}{{"bom", func(s string) string { return bom + s }}, {"zstd", func(s string) string { return zstded(bom + s) }}, {"gzip", gzipped}} {
		dir := t.TempDir()
		in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out.txt")
		os.WriteFile(in, []byte(enc.f(half)), 0o644)
		if code, _, errs := cli(t, "", "dedup", "--output", out, "--batch", "100", in); code != 0 {
			t.Fatalf("%s: first half: exit %d %q", enc.name, code, errs)
		}
		os.WriteFile(in, []byte(enc.f(plain)), 0o644)
		code, _, errs := cli(t, "", "dedup", "--output", out, "--batch", "100", in)
		got, _ := os.ReadFile(out)
		if code != 0 || string(got) != wantOut || !strings.Contains(errs, "lines 3000, blank 0, invalid 0, unique 2000") {
			t.Errorf("%s: resumed over the grown input: exit %d, %d lines, stderr %q", enc.name, code, len(lines(string(got))), errs)
		}
	}
}

// TestFlagErrorsAsTyped: an unknown flag, or one without its value, is
// named as the user typed it; --version says what this is.
func TestFlagErrorsAsTyped(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"split", "--nope"}, "uriscan: split: unknown flag --nope\n"},
		{[]string{"split", "-nope=3"}, "uriscan: split: unknown flag -nope\n"},
		{[]string{"dedup", "--store"}, "uriscan: dedup: flag --store needs a value\n"},
		{[]string{"split", "--workers", "many"}, "uriscan: split: --workers takes a whole number, not \"many\"\n"},
		{[]string{"split", "--workers", "99999999999999999999"}, "uriscan: split: --workers takes a whole number that fits in 64 bits, not \"99999999999999999999\"\n"},
		{[]string{"validate", "--quiet=maybe"}, "uriscan: validate: --quiet takes true or false, joined by '=' (--quiet=false), not \"maybe\"\n"},
		{[]string{"validate", "-q=maybe"}, "uriscan: validate: -q takes true or false, joined by '=' (-q=false), not \"maybe\"\n"},
		{[]string{"extract", "--workers=-1"}, "uriscan: extract: --workers must be 0 (the number of CPUs) or more, not -1\n"},
	} {
		code, _, errs := cli(t, "", tc.args...)
		if code != 2 || !strings.HasPrefix(errs, tc.want) {
			t.Errorf("%q: exit %d, stderr %q, want %q", tc.args, code, errs, tc.want)
		}
	}
	for _, a := range []string{"--version", "version"} {
		if code, out, _ := cli(t, "", a); code != 0 || !strings.HasPrefix(out, "uriscan ") || !strings.Contains(out, " kernel "+uriscan.Kernel()) {
			t.Errorf("%s: exit %d, %q", a, code, out)
		}
	}
}
