package cli

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/cpufeat"
	"github.com/uriscan/uriscan/internal/shareddata"
	"github.com/uriscan/uriscan/normalize"
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
	e := newEnv(stdin, &out, &errb)
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

func TestSplitDesignExamples(t *testing.T) {
	// The two objects the README (and the project's design notes) show,
	// byte for byte.
	code, out, errs := cli(t, "http://h?\nhttp://a b\n", "split")
	want := `{"line":1,"input":"http://h?","valid":true,"scheme":"http","userinfo":null,"host":"h","host_type":"reg-name","port":null,"path":"","query":"","fragment":null}
{"line":2,"input":"http://a b","valid":false,"error":{"offset":8,"reason":"invalid character ' ' in host"}}
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "<stdin>:2: offset 8: invalid character ' ' in host\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
}

func TestSplitLines(t *testing.T) {
	// Empty lines, "\r\n", a final line without "\n", and invalid lines in
	// between all give one object each, in order.
	in := "http://h?\r\n\nhttp://a b\r\n\r\nhttp://u@[::1]:8080/p?q#f\nmailto:x@y.z"
	code, out, _ := cli(t, in, "split")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := lines(out)
	wantInputs := []string{"http://h?", "", "http://a b", "", "http://u@[::1]:8080/p?q#f", "mailto:x@y.z"}
	if len(got) != len(wantInputs) {
		t.Fatalf("%d output lines, want %d:\n%s", len(got), len(wantInputs), out)
	}
	for i, obj := range got {
		m := decode(t, obj)
		if m["line"] != float64(i+1) || m["input"] != wantInputs[i] {
			t.Errorf("line %d: %s", i+1, obj)
		}
		keys := jsonKeys(t, obj)
		if m["valid"] == true {
			if !reflect.DeepEqual(keys, validKeys) {
				t.Errorf("line %d keys %v, want %v", i+1, keys, validKeys)
			}
		} else if want := []string{"line", "input", "valid", "error"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("line %d keys %v, want %v", i+1, keys, want)
		}
	}
	m := decode(t, got[4])
	want := map[string]any{
		"line": 5.0, "input": "http://u@[::1]:8080/p?q#f", "valid": true, "scheme": "http",
		"userinfo": "u", "host": "[::1]", "host_type": "ipv6", "port": "8080",
		"path": "/p", "query": "q", "fragment": "f",
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %v\nwant %v", m, want)
	}
	if m := decode(t, got[2]); !reflect.DeepEqual(m["error"], map[string]any{"offset": 8.0, "reason": "invalid character ' ' in host"}) {
		t.Errorf("error object: %v", m["error"])
	}
}

func TestSplitNullVersusEmpty(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]any // the fields to check
	}{
		{"http://h?", map[string]any{"query": "", "fragment": nil, "port": nil, "userinfo": nil}},
		{"http://h", map[string]any{"query": nil, "fragment": nil, "path": ""}},
		{"http://h:", map[string]any{"port": "", "host": "h"}},
		{"http://h#", map[string]any{"query": nil, "fragment": ""}},
		{"http://@h", map[string]any{"userinfo": "", "host": "h"}},
		{"file:///etc", map[string]any{"host": "", "host_type": "reg-name", "path": "/etc"}},
		{"a/b", map[string]any{"scheme": nil, "host": nil, "host_type": nil, "path": "a/b"}},
		{"", map[string]any{"scheme": nil, "host": nil, "host_type": nil, "path": "", "query": nil}},
		{"//1.2.3.4", map[string]any{"scheme": nil, "host": "1.2.3.4", "host_type": "ipv4"}},
		{"x://[v7.a:b]", map[string]any{"host": "[v7.a:b]", "host_type": "ipvfuture"}},
	}
	for _, tt := range tests {
		_, out, _ := cli(t, tt.in+"\n", "split")
		m := decode(t, strings.TrimSuffix(out, "\n"))
		if m["valid"] != true {
			t.Errorf("%q: not valid: %s", tt.in, out)
			continue
		}
		for k, v := range tt.want {
			got, ok := m[k]
			if !ok || got != v {
				t.Errorf("%q: %s = %#v (present %v), want %#v", tt.in, k, got, ok, v)
			}
		}
	}
}

func TestSplitNotUTF8(t *testing.T) {
	bad := "http://h/\xff\xfe\x00"
	code, out, errs := cli(t, "ok\n"+bad+"\n", "split")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := lines(out)
	if len(got) != 2 {
		t.Fatalf("want 2 lines:\n%s", out)
	}
	if keys := jsonKeys(t, got[1]); !reflect.DeepEqual(keys, []string{"line", "input_base64", "valid", "error"}) {
		t.Errorf("keys %v", keys)
	}
	m := decode(t, got[1])
	raw, err := base64.StdEncoding.DecodeString(m["input_base64"].(string))
	if err != nil || string(raw) != bad {
		t.Errorf("input_base64 decodes to %q, %v; want %q", raw, err, bad)
	}
	if m["line"] != 2.0 || !strings.Contains(errs, "<stdin>:2: offset 9: ") {
		t.Errorf("got %s, stderr %q", got[1], errs)
	}
}

func TestSplitEscaping(t *testing.T) {
	// Invalid lines may hold anything; their input must round-trip.
	for _, in := range []string{"a\"b", `a\b`, "a\tb\x01\x1f\x7f", "héllo wörld", "\u2028 <x>", "a\rb"} {
		_, out, _ := cli(t, in+"\n", "split")
		m := decode(t, strings.TrimSuffix(out, "\n"))
		if m["input"] != in || m["valid"] != false {
			t.Errorf("%q: got %s", in, out)
		}
		if strings.ContainsAny(strings.TrimSuffix(out, "\n"), "\x00\x01\x1f\t\r\n") {
			t.Errorf("%q: raw control character in %q", in, out)
		}
	}
	// appendJSONString never writes invalid UTF-8 or an unparsable string.
	for _, s := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "ok"} {
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%q -> %s: %v", s, b, err)
		}
	}
}

func TestValidate(t *testing.T) {
	code, out, errs := cli(t, "http://ok/\n\nhttp://a b\nhttp://x/%zz\r\n//[::1\n", "validate")
	want := `<stdin>:3: offset 8: invalid character ' ' in host: "http://a b"
<stdin>:4: offset 9: percent-encoding "%zz" is not '%' followed by two hex digits: "http://x/%zz"
<stdin>:5: offset 6: IP-literal has no closing ']': "//[::1"
`
	if code != 1 || out != want || errs != "" {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %q", code, out, want, errs)
	}
	code, out, errs = cli(t, "http://ok/\nmailto:a@b\n\n", "validate")
	if code != 0 || out != "" || errs != "" {
		t.Errorf("all valid: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	code, out, _ = cli(t, "a\x00\xff", "validate")
	if code != 1 || out != "<stdin>:1: offset 1: invalid character byte 0x00 in path: \"a\\x00\\xff\"\n" {
		t.Errorf("exit %d, stdout %q", code, out)
	}
}

func TestResolve(t *testing.T) {
	const base = "http://a/b/c/d;p?q"
	// RFC 3986 §5.4.1 and §5.4.2 examples.
	examples := [][2]string{
		{"g:h", "g:h"}, {"g", "http://a/b/c/g"}, {"./g", "http://a/b/c/g"}, {"g/", "http://a/b/c/g/"},
		{"/g", "http://a/g"}, {"//g", "http://g"}, {"?y", "http://a/b/c/d;p?y"}, {"g?y", "http://a/b/c/g?y"},
		{"#s", "http://a/b/c/d;p?q#s"}, {"g;x?y#s", "http://a/b/c/g;x?y#s"}, {"", "http://a/b/c/d;p?q"},
		{".", "http://a/b/c/"}, {"..", "http://a/b/"}, {"../..", "http://a/"}, {"../../g", "http://a/g"},
		{"../../../g", "http://a/g"}, {"/./g", "http://a/g"}, {"g/../h", "http://a/b/c/h"},
		{"g;x=1/../y", "http://a/b/c/y"}, {"http:g", "http:g"},
	}
	var in, want strings.Builder
	for _, ex := range examples {
		in.WriteString(ex[0] + "\n")
		want.WriteString(ex[1] + "\n")
	}
	code, out, errs := cli(t, in.String(), "resolve", "--base", base)
	if code != 0 || out != want.String() || errs != "" {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %q", code, out, want.String(), errs)
	}

	// --non-strict: "http:g" is relative to an http base; the flag may
	// follow the file name.
	code, out, _ = cli(t, "http:g\nHTTP:g\nftp:g\n", "resolve", "-", "--non-strict", "--base="+base)
	if want := "http://a/b/c/g\nhttp://a/b/c/g\nftp:g\n"; code != 0 || out != want {
		t.Errorf("non-strict: exit %d, stdout %q, want %q", code, out, want)
	}

	// An invalid line gives an empty line, and a message on stderr.
	code, out, errs = cli(t, "g\na b\r\n#s", "resolve", "--base", base)
	if want := "http://a/b/c/g\n\nhttp://a/b/c/d;p?q#s\n"; code != 1 || out != want {
		t.Errorf("invalid line: exit %d, stdout %q, want %q", code, out, want)
	}
	if want := "<stdin>:2: offset 1: invalid character ' ' in path\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
}

func TestResolveBadBase(t *testing.T) {
	for _, args := range [][]string{
		{"resolve"},
		{"resolve", "--base"},
		{"resolve", "--base", "/relative/path"},
		{"resolve", "--base", ""},
		{"resolve", "--base", "http://a b/"},
		{"resolve", "--base", "http://a/", "--bogus"},
	} {
		code, out, errs := cli(t, "g\n", args...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, "uriscan: ") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
	_, _, errs := cli(t, "", "resolve", "--base", "/x")
	if !strings.Contains(errs, "not absolute") {
		t.Errorf("stderr %q does not say the base is not absolute", errs)
	}
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

// TestSplitNoAllocs checks that the per-line work for valid lines (read,
// parse, write JSON) does not allocate.
func TestSplitNoAllocs(t *testing.T) {
	in := []byte(strings.Repeat("http://user@example.com:8080/a/b?q=1#f\r\nmailto:a@b\n//[::1]/x\n", 300))
	// Invalid lines are reported without allocating too (split's JSON
	// and the report on standard error, as log pipelines see thousands).
	bad := []byte(strings.Repeat("http://a b/\n%zz\nhttp://[::1\n\xff\n"+strings.Repeat("x", 300)+"\n", 300))
	var ks recordScanner
	ks.ls.SetMaxLine(200)
	var kb []byte
	bn := 0
	if allocs := testing.AllocsPerRun(20, func() {
		ks.ls.ResetBytes(bad)
		for ks.Scan() {
			if ks.ParseError() == nil {
				t.Fatalf("line %d is valid", ks.Line())
			}
			kb = appendSplitInvalid(kb[:0], "", ks.Line(), ks.Bytes(), ks.Len(), ks.ParseError(), true)
			kb = appendReport(kb, "f", &ks)
			kb = appendEcho(kb, ks.Bytes(), ks.Len(), true)
			bn++
		}
	}); allocs != 0 || bn == 0 {
		t.Errorf("invalid lines: %v allocations per run of %d lines", allocs, bn/21)
	}
	src := bytes.NewReader(in)
	var s recordScanner
	w := bufio.NewWriter(io.Discard)
	var buf []byte
	n := 0
	allocs := testing.AllocsPerRun(20, func() {
		src.Reset(in)
		s.Reset(src)
		for s.Scan() {
			if s.ParseError() != nil {
				t.Fatal(s.ParseError())
			}
			buf = appendSplitValid(buf[:0], "", s.Line(), s.URI(), true)
			buf = append(buf, '\n')
			w.Write(buf)
			n++
		}
	})
	if n == 0 {
		t.Fatal("no lines scanned")
	}
	if allocs != 0 {
		t.Errorf("%v allocations per run of %d lines", allocs, n/21)
	}
}

func TestCPU(t *testing.T) {
	code, out, _ := cli(t, "", "cpu")
	if code != 0 || !strings.Contains(out, "\nkernel:      "+uriscan.Kernel()) /* GODEBUG may follow */ || !strings.Contains(out, "\nbatch:       "+uriscan.BatchPath()+"\n") ||
		!strings.Contains(out, "\nhints:       "+normalize.HintsPath()+"\n") || !strings.Contains(out, "\nhash:        "+normalize.HashPath()+"\n") || !strings.HasPrefix(out, "cpu:") {
		t.Errorf("cpu: exit %d, output %q", code, out)
	}
	// The features are dispatch's (internal/cpufeat), GODEBUG applied.
	_, feats, _ := strings.Cut(out, "\nfeatures:    ")
	feats, _, _ = strings.Cut(feats, "\n")
	on, _, _ := strings.Cut(feats, " (without")
	on, _, _ = strings.Cut(on, ";") // "; this build has no assembly (purego)"
	for _, f := range cpufeat.Features() {
		if slices.Contains(strings.Fields(on), f.Name) != f.Has {
			t.Errorf("cpu: features %q, but %s is %v", feats, f.Name, f.Has)
		}
	}
	if code, _, errs := cli(t, "", "cpu", "x"); code != 2 || !strings.Contains(errs, "no arguments") {
		t.Errorf("cpu x: exit %d, stderr %q", code, errs)
	}
}

func TestNormalize(t *testing.T) {
	in := "HTTP://Example.COM:80/a/./b/%7e\nhttp://a b\n\nfoo://H:80\r\n"
	code, out, errs := cli(t, in, "normalize")
	if want := "http://example.com/a/b/~\n\n\nfoo://h:80\n"; code != 1 || out != want {
		t.Errorf("normalize: exit %d, output %q, want %q", code, out, want)
	}
	if !strings.Contains(errs, ":2: offset 8: invalid character ' ' in host") {
		t.Errorf("stderr %q", errs)
	}
	_, out, _ = cli(t, "http://h:80\n", "normalize", "--level", "syntax")
	if out != "http://h:80\n" {
		t.Errorf("syntax level kept the port? %q", out)
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte(strings.Repeat("5a", 32)+"\n"), 0o600)
	_, out, _ = cli(t, "HTTP://www.Example.COM:80/a/./b/../%7ec?x=%2f#F\n", "normalize", "--format", "jsonl", "--key-file", key)
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	// The pinned digest of normalize/hash_test.go: same key, same normal form.
	if obj["normalized"] != "http://www.example.com/a/~c?x=%2F#F" || obj["hash"] != "239c8095a621c95dd06af0f81b6addd6" || obj["line"] != 1.0 {
		t.Errorf("jsonl: %v", obj)
	}
	if code, _, errs := cli(t, "", "normalize", "--level", "crawl"); code != 2 || !strings.Contains(errs, "--level") {
		t.Errorf("bad level: exit %d, %q", code, errs)
	}
	if code, _, _ := cli(t, "", "normalize", "--key-file", filepath.Join(dir, "missing")); code != 2 {
		t.Errorf("missing key file: exit %d", code)
	}
}

func TestNormalizeRepairAndCrawler(t *testing.T) {
	code, out, errs := cli(t, "http://h/a b\n1a:b c\nHTTP://www.X.com/index.html?b=1&utm_x=2&a=3#f\n", "normalize", "--repair", "--level", "crawler")
	if want := "http://h/a%20b\n\nhttp://x.com/?a=3&b=1\n"; code != 1 || out != want {
		t.Errorf("exit %d, output %q, want %q", code, out, want)
	}
	if !strings.Contains(errs, "<stdin>:1: repaired: 1 bytes percent-encoded") || !strings.Contains(errs, "<stdin>:2: offset 0: scheme must begin") {
		t.Errorf("stderr %q", errs)
	}
	_, out, _ = cli(t, "http://h/a b\n", "normalize", "--format", "jsonl", "--repair")
	if !strings.Contains(out, `"normalized":"http://h/a%20b"`) || !strings.Contains(out, `"repaired":{"trimmed":0,"backslashes":0,"encoded":1,"idna":0}`) {
		t.Errorf("jsonl repair: %q", out)
	}
	// IDNA: a Unicode host becomes its A-label under --repair, a
	// percent-encoded one at --level crawler, as a browser looks it up.
	code, out, errs = cli(t, "http://B\xc3\xbccher.example/\nhttp://b%C3%BCcher.example/\n", "normalize", "--repair", "--level", "crawler")
	if want := "http://xn--bcher-kva.example/\nhttp://xn--bcher-kva.example/\n"; code != 1 || out != want { // 1: line 1 was invalid as written
		t.Errorf("idna: exit %d, output %q, want %q (stderr %q)", code, out, want, errs)
	}
	if !strings.Contains(errs, "<stdin>:1: repaired: 1 host written as an A-label (IDNA)") {
		t.Errorf("idna stderr %q", errs)
	}
	if _, out, _ = cli(t, "http://b%C3%BCcher.example/\n", "normalize"); out != "http://b%C3%BCcher.example/\n" {
		t.Errorf("scheme level must keep the percent-encoded host (RFC 3986 has no IDNA): %q", out)
	}
}

func TestDedup(t *testing.T) {
	in := "http://a/\nHTTP://A:80/\nhttp://a b\nhttp://b/x/../\nhttp://b/\nhttp://a/\n\r\n"
	code, out, errs := cli(t, in, "dedup")
	if want := "http://a/\nhttp://b/x/../\n"; code != 1 || out != want {
		t.Errorf("dedup: exit %d, output %q, want %q", code, out, want)
	}
	if !strings.Contains(errs, "<stdin>:3: offset 8:") || !strings.Contains(errs, "dedup: lines 7, blank 1, invalid 1, unique 2, duplicates 3") {
		t.Errorf("stderr %q", errs)
	}
	// Syntax level keeps the port apart; crawler level merges the fragment.
	_, out, _ = cli(t, "http://a/\nhttp://a:80/\nhttp://a/#x\n", "dedup", "--level", "syntax")
	if out != "http://a/\nhttp://a:80/\nhttp://a/#x\n" {
		t.Errorf("syntax: %q", out)
	}
	_, out, _ = cli(t, "http://a/\nhttp://a:80/\nhttp://a/#x\n", "dedup", "--level", "crawler")
	if out != "http://a/\n" {
		t.Errorf("crawler: %q", out)
	}
	// More lines than one batch, order kept.
	var b strings.Builder
	for i := 0; i < 3*defaultDedupBatch; i++ {
		b.WriteString("http://h/" + strconv.Itoa(i%1500) + "\n")
	}
	code, out, errs = cli(t, b.String(), "dedup")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 1500 || lines[0] != "http://h/0" || lines[1499] != "http://h/1499" {
		t.Errorf("batches: exit %d, %d lines, stderr %q", code, len(lines), errs)
	}
	if code, _, errs := cli(t, "", "dedup", "--store", "floppy:"); code != 2 || !strings.Contains(errs, "--store") {
		t.Errorf("bad store: exit %d %q", code, errs)
	}
}

func TestDedupDiskStore(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	os.WriteFile(key, []byte(strings.Repeat("5a", 32)), 0o600)
	store := "disk:" + filepath.Join(dir, "seen")
	_, out, errs := cli(t, "http://a/\nhttp://b/\n", "dedup", "--store", store, "--key-file", key)
	if out != "http://a/\nhttp://b/\n" || !strings.Contains(errs, "unique 2, duplicates 0") {
		t.Fatalf("first run: %q %q", out, errs)
	}
	// A second run, a new process in real use, remembers the first.
	_, out, errs = cli(t, "HTTP://A:80/\nhttp://c/\n", "dedup", "--store", store, "--key-file", key)
	if out != "http://c/\n" || !strings.Contains(errs, "unique 1, duplicates 1") {
		t.Fatalf("second run: %q %q", out, errs)
	}
}

func TestDedupRedisStore(t *testing.T) {
	addr := os.Getenv("URISCAN_REDIS_ADDR")
	if addr == "" {
		t.Skip("URISCAN_REDIS_ADDR not set (see .ci/redis.sh)")
	}
	dir := t.TempDir()
	key := filepath.Join(dir, "key")
	// A key and a key prefix of this test run's own: the server is shared
	// and the set outlives the run (a set records its key's fingerprint).
	now := time.Now().UnixNano()
	os.WriteFile(key, []byte(fmt.Sprintf("%064x", now)), 0o600)
	prefix := fmt.Sprintf("uriscan-test:%d:", now)
	for _, store := range []string{"redis://" + addr, "redis://" + os.Getenv("URISCAN_REDIS_CLUSTER")} {
		if store == "redis://" {
			continue
		}
		in := fmt.Sprintf("http://h/%s/a\nHTTP://H:80/%s/a\n", store, store)
		_, out, errs := cli(t, in, "dedup", "--store", store, "--store-prefix", prefix, "--key-file", key)
		if strings.Count(out, "\n") != 1 || !strings.Contains(errs, "unique 1, duplicates 1") {
			t.Errorf("%s first run: %q %q", store, out, errs)
		}
		_, out, errs = cli(t, in, "dedup", "--store", store, "--store-prefix", prefix, "--key-file", key)
		if out != "" || !strings.Contains(errs, "unique 0, duplicates 2") {
			t.Errorf("%s second run: %q %q", store, out, errs)
		}
	}
}

// splitValidEscaped is appendSplitValid with every string escaped by
// appendJSONString: the reference for the unescaped copy.
func splitValidEscaped(b []byte, line int, u *uriscan.URI) []byte {
	comp := func(b []byte, c uriscan.Component) []byte {
		if !u.Has(c) {
			return append(b, "null"...)
		}
		return appendJSONString(b, u.Get(c))
	}
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"input":`...)
	b = appendJSONString(b, u.String())
	b = append(b, `,"valid":true,"scheme":`...)
	b = comp(b, uriscan.Scheme)
	b = append(b, `,"userinfo":`...)
	b = comp(b, uriscan.Userinfo)
	b = append(b, `,"host":`...)
	b = comp(b, uriscan.Host)
	b = append(b, `,"host_type":`...)
	if u.HasAuthority() {
		b = append(b, '"')
		b = append(b, u.HostType().String()...)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"port":`...)
	b = comp(b, uriscan.Port)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, u.Path())
	b = append(b, `,"query":`...)
	b = comp(b, uriscan.Query)
	b = append(b, `,"fragment":`...)
	b = comp(b, uriscan.Fragment)
	return append(b, '}')
}

// TestSplitValidUnescaped: copying a valid URI's components without
// escaping gives exactly the escaped JSON, for every byte a valid URI can
// hold and every line of the bundled sample and the shared lists.
func TestSplitValidUnescaped(t *testing.T) {
	var in bytes.Buffer
	for c := 0; c < 256; c++ {
		fmt.Fprintf(&in, "http://u%c@h%c:1/p%c?q%c#f%c\n", c, c, c, c, c)
	}
	sample, err := os.ReadFile("../../testdata/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	in.Write(sample)
	for _, name := range shareddata.URLFiles() {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
	}
	s := uriscan.NewLineScannerBytes(in.Bytes())
	valid := 0
	var got, want []byte
	for s.Scan() {
		if !s.Valid() {
			continue
		}
		valid++
		got = appendSplitValid(got[:0], "", s.Line(), s.URI(), false)
		want = splitValidEscaped(want[:0], s.Line(), s.URI())
		if !bytes.Equal(got, want) || !json.Valid(got) {
			t.Fatalf("line %d:\ngot  %s\nwant %s", s.Line(), got, want)
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid lines", valid)
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

// TestExtractCommand: the URIs of a log, one per line in input order, in
// every format, from a compressed file too; --rejects and schemes.
func TestExtractCommand(t *testing.T) {
	log := `1.2.3.4 - - [x] "GET http://a/b?c HTTP/1.1" 200 1 "https://r/x." "UA (+http://bot/)"` + "\n" +
		"see [t](http://md/x) and http://[::1 and mailto:joe@example.com\n"
	code, out, errs := cli(t, log, "extract")
	if code != 0 || out != "http://a/b?c\nhttps://r/x\nhttp://bot/\nhttp://md/x\n" || errs != "" {
		t.Fatalf("text: exit %d, %q, %q", code, out, errs)
	}
	_, out, _ = cli(t, log, "extract", "--format", "jsonl", "--rejects")
	var recs []map[string]any
	for _, l := range lines(out) {
		recs = append(recs, decode(t, l))
	}
	// "offset" is in the line, "byte_offset" in the input.
	if len(recs) != 5 || recs[0]["offset"] != 21.0 || recs[0]["host"] != "a" || recs[3]["line"] != 2.0 ||
		recs[3]["offset"] != 8.0 || recs[3]["byte_offset"] != float64(strings.Index(log, "http://md/x")) ||
		recs[4]["uri"] != "http://[::1" || recs[4]["valid"] != false {
		t.Fatalf("jsonl: %s", out)
	}
	_, out, _ = cli(t, log, "extract", "--format", "tsv", "--schemes", "mailto,https")
	if out != "1\t51\thttps://r/x\n2\t41\tmailto:joe@example.com\n" {
		t.Fatalf("tsv: %q", out)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(log))
	zw.Close()
	f := writeFile(t, "log", gz.String())
	if code, out, _ := cli(t, "", "extract", f); code != 0 || len(lines(out)) != 4 {
		t.Fatalf("gzip: exit %d, %q", code, out)
	}
	if code, _, errs := cli(t, "", "extract", "--format", "xml"); code != 2 || !strings.Contains(errs, "--format") {
		t.Fatalf("bad format: exit %d %q", code, errs)
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
