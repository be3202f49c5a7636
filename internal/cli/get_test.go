package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan"
)

func TestGet(t *testing.T) {
	in := "https://u:pw@www.Example.co.uk:8443/a/b%20c?x=1&y=2&x=3#f\nnot a uri\nhttp://user.github.io/\n"
	for _, c := range []struct {
		args     []string
		in, want string
		code     int
	}{
		{[]string{"split", "--get", `{scheme}\t{host}\t{rdn}\t{subdomain}\t{etld}\t{path:-1}\t{query-all:x}\t{query-keys}\t{default:port}`}, in,
			"https\twww.Example.co.uk\tExample.co.uk\twww\tco.uk\tb c\t1 3\tx y\t8443\n\nhttp\tuser.github.io\tgithub.io\tuser\tio\t\t\t\t80\n", 1},
		{[]string{"split", "--get", "{rdn}", "--private-suffixes"}, in, "Example.co.uk\n\nuser.github.io\n", 1},
		// the password is redacted whichever variable shows it
		{[]string{"split", "--get", "{password} {url}"}, in, "*** https://u:***@www.Example.co.uk:8443/a/b%20c?x=1&y=2&x=3#f\n\n http://user.github.io/\n", 1},
		{[]string{"split", "--get", "{password}", "--show-passwords"}, in, "pw\n\n\n", 1},
		{[]string{"normalize", "--level", "crawler", "--get", "{host}|{port}|{query}"}, "HTTP://WWW.Example.COM:80/a/./b?b=2&a=1\n", "example.com||a=1&b=2\n", 0},
		{[]string{"extract", "--get", "{rdn}{path}"}, "see https://www.example.co.uk/a?x=1 and ftp://x.y/z, http://foo.github.io/z.\n", "example.co.uk/a\ngithub.io/z\n", 0},
		{[]string{"extract", "--log", "combined", "--base", "https://www.example.org", "--get", "{host} {query:q}"},
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /s?q=a+b HTTP/1.1" 200 2326 "-" "-"` + "\n", "www.example.org a b\n", 0},
	} {
		code, out, stderr := cli(t, c.in, c.args...)
		if code != c.code || out != c.want {
			t.Errorf("%s: exit %d, output %q; want %d, %q (stderr %q)", strings.Join(c.args, " "), code, out, c.code, c.want, stderr)
		}
	}
}

func TestGetUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"split", "--get", "{hots}"}, `split: --get: unknown variable "hots"`},
		{[]string{"split", "--get", "{host}", "--format", "tsv"}, "--format does not apply"},
		{[]string{"split", "--private-suffixes"}, "--private-suffixes goes with --get"},
		{[]string{"normalize", "--get", "{host}", "--format", "jsonl"}, "normalize: --get"},
		{[]string{"normalize", "--get", "{host}", "--level", "w3lib"}, "normalize: --get"},
		{[]string{"extract", "--get", "{host}", "--format", "jsonl"}, "extract: --get writes its own lines"},
		{[]string{"extract", "--get", "{path:0}"}, "path:N needs a segment number"},
		{[]string{"dedup", "--get", "{host}", "--level", "w3lib"}, "dedup: --get takes URIs apart"},
		{[]string{"dedup", "--get", "{host}", "--output", "OUT"}, "a resume refills a memory set from --output's lines"},
		{[]string{"dedup", "--get", "{host}", "--rebuild"}, "--rebuild adds back the keys of --output's lines"},
		{[]string{"dedup", "--private-suffixes"}, "dedup: --private-suffixes goes with --get or --scope"},
		{[]string{"dedup", "--get", "{nope}"}, `dedup: --get: unknown variable "nope"`},
	} {
		code, out, stderr := cli(t, "http://h/\n", c.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, c.msg) {
			t.Errorf("%s: exit %d, output %q, stderr %q; want 2 and %q", strings.Join(c.args, " "), code, out, stderr, c.msg)
		}
	}
}

// TestGetHelp checks that "uriscan help get" is there and that its example
// says what the command writes.
func TestGetHelp(t *testing.T) {
	code, out, _ := cli(t, "", "help", "get")
	if code != 0 || !strings.Contains(out, "{rdn}") {
		t.Fatalf("help get: exit %d, %q", code, out)
	}
	ls := lines(strings.TrimSpace(out))
	cmd, want := strings.TrimSpace(ls[len(ls)-2]), strings.TrimSpace(ls[len(ls)-1])
	const pre = `$ echo 'https://shop.example.co.uk/items/blue%20cup?id=42' | uriscan split --get '{rdn} {path:-1} {query:id}'`
	if cmd != pre {
		t.Fatalf("the example is %q; this test runs %q", cmd, pre)
	}
	if _, got, _ := cli(t, "https://shop.example.co.uk/items/blue%20cup?id=42\n", "split", "--get", "{rdn} {path:-1} {query:id}"); strings.TrimSpace(got) != want {
		t.Errorf("the example writes %q; help says %q", got, want)
	}
	if code, _, stderr := cli(t, "", "help", "nope"); code != 2 || !strings.Contains(stderr, "topics: completion, get, man") {
		t.Errorf("help nope: exit %d, %q", code, stderr)
	}
}

func TestSURTPublicSuffixFlag(t *testing.T) {
	code, out, stderr := cli(t, "http://www.images.amazon.co.uk/a\n", "normalize", "--format", "surt", "--surt-public-suffix")
	if code != 0 || out != "uk,co,amazon)/a\n" {
		t.Errorf("exit %d, %q (%s)", code, out, stderr)
	}
	if code, _, stderr := cli(t, "http://h/\n", "normalize", "--surt-public-suffix"); code != 2 || !strings.Contains(stderr, "goes with --format surt") {
		t.Errorf("without --format surt: exit %d, %q", code, stderr)
	}
}

func TestSplitDomains(t *testing.T) {
	in := "https://www.Example.co.uk/\nhttp://localhost/\nbad uri\nhttp://a.user.github.io/\n"
	code, out, _ := cli(t, in, "split", "--domains")
	ls := lines(out)
	if code != 1 || len(ls) != 4 {
		t.Fatalf("exit %d, %d lines:\n%s", code, len(ls), out)
	}
	for i, want := range []map[string]any{
		{"etld": "co.uk", "rdn": "Example.co.uk", "subdomain": "www"},
		{"etld": nil, "rdn": nil, "subdomain": nil},
		nil, // invalid: no domain keys
		{"etld": "io", "rdn": "github.io", "subdomain": "a.user"},
	} {
		m := decode(t, ls[i])
		for _, k := range []string{"etld", "rdn", "subdomain"} {
			v, has := m[k]
			if want == nil && has || want != nil && (!has || v != want[k]) {
				t.Errorf("line %d: %s = %v (present %v), want %v", i+1, k, v, has, want[k])
			}
		}
	}
	_, out, _ = cli(t, in, "split", "--domains", "--private-suffixes", "--format", "tsv", "--header")
	ls = lines(out)
	if !strings.HasSuffix(ls[0], "\tetld\trdn\tsubdomain") || !strings.HasSuffix(ls[4], "\tgithub.io\tuser.github.io\ta") ||
		!strings.HasSuffix(ls[3], "\t\\N\t\\N\t\\N") || !strings.HasSuffix(ls[2], "\t\\N\t\\N\t\\N") {
		t.Errorf("tsv:\n%s", out)
	}
}

func TestLevelShape(t *testing.T) {
	in := "https://Example.com/users/123/posts?page=2&sort=new\nhttps://example.com/users/77/posts?sort=old&page=9#x\nhttps://example.com/users/77/likes\n"
	code, out, stderr := cli(t, in, "dedup", "--level", "shape", "--no-progress")
	if code != 0 || out != "https://Example.com/users/123/posts?page=2&sort=new\nhttps://example.com/users/77/likes\n" || !strings.Contains(stderr, "unique 2, duplicates 1") {
		t.Errorf("dedup --level shape: exit %d, %q, %q", code, out, stderr)
	}
	if code, out, _ := cli(t, in, "normalize", "--level", "shape", "--strip-www"); code != 0 || lines(out)[0] != "https://example.com/users/:int/posts?page&sort" {
		t.Errorf("normalize --level shape --strip-www: exit %d, %q", code, out)
	}
}

func TestValidateQuietAndJSONL(t *testing.T) {
	in := "http://a b\nhttp://ok\n"
	if code, out, stderr := cli(t, in, "validate", "-q"); code != 1 || out != "" || stderr != "" {
		t.Errorf("validate -q: exit %d, %q, %q", code, out, stderr)
	}
	code, out, _ := cli(t, in, "validate", "--errors", "jsonl")
	if m := decode(t, strings.TrimSpace(out)); code != 1 || m["line"] != float64(1) || m["offset"] != float64(8) || m["input"] != "http://a b" {
		t.Errorf("validate --errors jsonl: exit %d, %q", code, out)
	}
}

func TestAllowInvalid(t *testing.T) {
	in := "http://a b\nhttp://ok\n"
	for _, args := range [][]string{{"validate"}, {"split"}, {"normalize", "--repair"}, {"dedup", "--no-progress"}, {"resolve", "--base", "http://b/"}} {
		if code, _, _ := cli(t, in, args...); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
		code, _, stderr := cli(t, in, append(args, "--allow-invalid")...)
		if code != 0 || !strings.Contains(stderr, "1") && args[0] != "validate" {
			t.Errorf("%v --allow-invalid: exit %d (stderr %q), want 0 and the report", args, code, stderr)
		}
	}
	if code, _, stderr := cli(t, in, "split", "--allow-invalid", "--max-errors", "1"); code != 2 || !strings.Contains(stderr, "contradict") {
		t.Errorf("--allow-invalid --max-errors: exit %d, %q", code, stderr)
	}
}

func TestHelpFlagLines(t *testing.T) {
	_, out, _ := cli(t, "", "help", "split")
	for _, want := range []string{"\n  -q, --quiet\n", "\n  -u, --uri URI\n", "\n  --format FORMAT\n", "\n  --max-line BYTES\n", "\n  --get TEMPLATE\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("help split lacks %q", want)
		}
	}
	for _, bad := range []string{"\n  --q\n", "\n  --u ", "short for --"} {
		if strings.Contains(out, bad) {
			t.Errorf("help split has %q", bad)
		}
	}
	if _, out, _ := cli(t, "", "help", "normalize"); !strings.Contains(out, "\n  --level LEVEL\n") || !strings.Contains(out, "(default scheme)") {
		t.Errorf("help normalize: --level LEVEL with its default, got\n%s", out)
	}
}

func TestCombinedShortFlags(t *testing.T) {
	code, out, stderr := cli(t, "", "split", "-qu", "http://a b")
	if code != 1 || !strings.Contains(out, `"valid":false`) || stderr != "" {
		t.Errorf("split -qu URI: exit %d, %q, %q", code, out, stderr)
	}
	// In -uq the value-taking -u comes first: the group is not split, and
	// the flag package refuses it.
	if code, _, stderr := cli(t, "", "split", "-uq", "http://a"); code != 2 || !strings.Contains(stderr, "uq") {
		t.Errorf("split -uq: exit %d, %q", code, stderr)
	}
}

// dropElapsed removes the time and rate from dedup's summary line in s
// ("...duplicates 1; 3ms, 942 lines/s" ends "...duplicates 1").
func dropElapsed(s string) string {
	i := strings.LastIndex(s, "uriscan: dedup: lines ")
	if i < 0 {
		return s
	}
	j := strings.Index(s[i:], "; ")
	if j < 0 {
		return s
	}
	k := strings.IndexByte(s[i+j:], '\n')
	if k < 0 {
		return s[:i+j]
	}
	return s[:i+j] + s[i+j+k:]
}

func TestDedupSummaryElapsed(t *testing.T) {
	// Not a terminal: no time (stderr is the same from run to run).
	_, _, errs := cli(t, "http://a/\nhttp://a/\n", "dedup")
	if errs != "uriscan: dedup: lines 2, blank 0, invalid 0, unique 1, duplicates 1\n" {
		t.Errorf("summary %q", errs)
	}
	for _, c := range []struct {
		d     time.Duration
		lines int64
		want  string
	}{
		{1500 * time.Millisecond, 3_000_000, "; 1.5s, 2.0 M lines/s"},
		{2 * time.Millisecond, 3, "; 2ms, 1.5 k lines/s"},
		{0, 0, "; 0s"},
	} {
		if got := string(appendElapsed(nil, c.d, c.lines)); got != c.want {
			t.Errorf("appendElapsed(%v, %d) = %q, want %q", c.d, c.lines, got, c.want)
		}
		if got := dropElapsed("uriscan: dedup: lines 2, unique 1" + string(appendElapsed(nil, c.d, c.lines)) + "\n"); got != "uriscan: dedup: lines 2, unique 1\n" {
			t.Errorf("dropElapsed: %q", got)
		}
	}
}

// TestExtractJSONLRequestTarget: a Caddy-style line whose request.uri is
// an origin-form target, with its host in request.host.
func TestExtractJSONLRequestTarget(t *testing.T) {
	in := `{"request":{"uri":"/a?b=1","host":"example.com"},"msg":"/var/log/x failed, see http://x.example/y"}` + "\n" +
		`{"request":{"uri":"/c","host":"bad host"}}` + "\n" +
		`{"request":{"uri":"//evil.example/p"}}` + "\n"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--field", "request.uri", "--field", "msg"}, "http://x.example/y\n"}, // without --base: searched, as text
		{[]string{"--field", "request.uri", "--base", "https://f.example"}, "https://f.example/a?b=1\nhttps://f.example/c\n"},
		{[]string{"--field", "request.uri", "--base", "https://f.example", "--host-field", "request.host"}, "https://example.com/a?b=1\nhttps://f.example/c\n"},
		{[]string{"--field", "request.uri", "--base", "https://f.example", "--get", "{host}{path}"}, "f.example/a\nf.example/c\n"},
		{[]string{"--field", "msg", "--base", "https://f.example"}, "http://x.example/y\n"},
	} {
		code, out, stderr := cli(t, in, append([]string{"extract", "--log", "jsonl"}, c.args...)...)
		if code != 0 || out != c.want {
			t.Errorf("%v: exit %d, %q (stderr %q), want %q", c.args, code, out, stderr, c.want)
		}
	}
	for _, args := range [][]string{
		{"extract", "--log", "jsonl", "--field", "a", "--host-field", "h"},
		{"extract", "--log", "combined", "--base", "https://b/", "--host-field", "h"},
		{"extract", "--host-field", "h"},
	} {
		if code, _, stderr := cli(t, "", args...); code != 2 || !strings.Contains(stderr, "--host-field") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}

func TestDedupScope(t *testing.T) {
	in := "https://www.example.com/a\nhttps://EXAMPLE.com/a\nhttps://other.org/\nhttp://127.0.0.1/\nhttps://blog.example.co.uk/x\nnot a uri\nhttps://user.github.io/\n"
	want := "https://www.example.com/a\nhttps://EXAMPLE.com/a\nhttps://blog.example.co.uk/x\n"
	for _, w := range []string{"1", "2"} {
		code, out, stderr := cli(t, in, "dedup", "--workers", w, "--scope", "rdn=example.com, Example.co.uk")
		if code != 1 || out != want || !strings.Contains(stderr, "invalid 1, out of scope 3, unique 3, duplicates 0") {
			t.Errorf("--workers %s: exit %d, %q, %q", w, code, out, stderr)
		}
	}
	// private suffixes: user.github.io is its own registrable domain
	if _, out, _ := cli(t, in, "dedup", "--scope", "rdn=user.github.io", "--private-suffixes"); out != "https://user.github.io/\n" {
		t.Errorf("--private-suffixes: %q", out)
	}
	// the host of the normal form decides: %77ww is www; at the crawler
	// level an IDN host is its A-label
	if _, out, _ := cli(t, "http://%77ww.example.com/\nhttp://b%C3%BCcher.example.com/\n", "dedup", "--scope", "rdn=example.com", "--level", "crawler"); out != "http://%77ww.example.com/\nhttp://b%C3%BCcher.example.com/\n" {
		t.Errorf("normal form's host: %q", out)
	}
	// --extract: URIs out of scope are left out
	if _, out, _ := cli(t, "see https://a.example.com/x and https://b.example.org/y\n", "dedup", "--extract", "--scope", "rdn=example.org"); out != "https://b.example.org/y\n" {
		t.Errorf("--extract: %q", out)
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--scope", "rdn=co.uk"}},
		{[]string{"--scope", "example.com"}},
		{[]string{"--scope", "rdn=www.example.com"}},
		{[]string{"--scope", "rdn="}},
		{[]string{"--private-suffixes"}},
		{[]string{"--scope", "rdn=example.com", "--level", "w3lib"}},
	} {
		if code, _, stderr := cli(t, "", append([]string{"dedup"}, c.args...)...); code != 2 || !strings.Contains(stderr, "dedup: --") {
			t.Errorf("%v: exit %d, %q", c.args, code, stderr)
		}
	}
}

// TestMessagesNameTheCommand: a URI given where a file goes says how to
// give it as a URI; a bad key file is reported by the command that read it.
func TestMessagesNameTheCommand(t *testing.T) {
	code, _, stderr := cli(t, "", "split", "http://example.com/")
	if code != 2 || !strings.Contains(stderr, "no such file") || !strings.Contains(stderr, "uriscan split -u 'http://example.com/'") {
		t.Errorf("split URI: exit %d, %q", code, stderr)
	}
	if _, _, stderr := cli(t, "", "dedup", "http://example.com/"); !strings.Contains(stderr, "echo 'http://example.com/' | uriscan dedup") {
		t.Errorf("dedup URI: %q", stderr)
	}
	if _, _, stderr := cli(t, "", "split", "no-such-file.txt"); strings.Contains(stderr, "a URI, not a file") {
		t.Errorf("a file name that is no URI: %q", stderr)
	}
	key := filepath.Join(t.TempDir(), "bad.key")
	os.WriteFile(key, []byte("zz\n"), 0o600)
	if code, _, stderr := cli(t, "http://a\n", "dedup", "--key-file", key); code != 2 || !strings.HasPrefix(stderr, "uriscan: dedup: key file ") {
		t.Errorf("dedup bad key file: exit %d, %q", code, stderr)
	}
}

// TestExtractLongRun: a run of more than uriscan.MaxExtractLength bytes
// that a URI may hold is skipped but for its end, and reported with
// --rejects (once, with its line, offsets and first bytes), read from a
// pipe or a file, with any chunk size and number of workers; the
// URIs around it are found, and without --rejects nothing is said.
func TestExtractLongRun(t *testing.T) {
	run := "http://long.example/" + strings.Repeat("a", uriscan.DefaultBufferSize+uriscan.MaxExtractLength)
	in := "before http://a/ x\nsee " + run + " after http://b/\nhttp://c/\n"
	file := writeFile(t, "long.txt", in)
	want := []string{"http://a/", run[:echoMax], "http://b/", "http://c/"}
	for _, size := range []int{4096, 256 << 10} {
		tn := chunks(size, 1<<20)
		for _, w := range []string{"1", "2"} {
			for _, how := range []string{"file", "stdin"} {
				args := []string{"extract", "--format", "jsonl", "--rejects", "--workers", w}
				if how != "stdin" {
					args = append(args, file)
				}
				code, out, errs := cliT(t, tn, in, args...)
				got := lines(out)
				if code != 0 || errs != "" || len(got) != len(want) {
					t.Fatalf("chunks of %d, --workers %s, %s: exit %d, stderr %q, %d records", size, w, how, code, errs, len(got))
				}
				for i, l := range got {
					m := decode(t, l)
					uri, _ := m["uri"].(string)
					if i != 1 && uri != want[i] {
						t.Errorf("record %d: %.300s, want %.300s", i, l, want[i])
					}
				}
				m := decode(t, got[1])
				if m["valid"] != false || m["line"] != 2.0 || m["offset"] != 4.0 || m["byte_offset"] != float64(strings.Index(in, run)) ||
					m["uri"] != run[:echoMax] || !strings.Contains(m["reason"].(string), "skipped") {
					t.Errorf("chunks of %d, --workers %s, %s: the run's record %.300s", size, w, how, got[1])
				}
			}
		}
	}
	// Text: on standard error, with its line and offset; not without
	// --rejects.
	if code, out, errs := cli(t, in, "extract", "--rejects"); code != 0 || out != "http://a/\nhttp://b/\nhttp://c/\n" ||
		!strings.HasPrefix(errs, "uriscan: <stdin>:2: offset 4: a run of 262144 bytes or more") || strings.Count(errs, "\n") != 1 {
		t.Errorf("text --rejects: exit %d, stdout %.300q, stderr %.300q", code, out, errs)
	}
	if code, out, errs := cli(t, in, "extract"); code != 0 || out != "http://a/\nhttp://b/\nhttp://c/\n" || errs != "" {
		t.Errorf("text: exit %d, stdout %.300q, stderr %.300q", code, out, errs)
	}
}

// TestDedupExtractOptions: dedup --extract takes extract's options (--log
// in each format, --base, --host-field, --any-scheme) and writes the
// first of each URI extract finds with them, in order, with one worker or
// two; a line of another shape is reported and makes the exit status 1;
// an extract option without --extract is a usage error.
func TestDedupExtractOptions(t *testing.T) {
	combined := strings.Repeat(`1.2.3.4 - - [01/Mar/2024:00:00:00 +0000] "GET /a?b=1 HTTP/1.1" 200 5 "https://ref.example/p" "bot (+http://bot.example/)"`+"\n"+
		"not a log line\n"+
		`5.6.7.8 - - [01/Mar/2024:00:00:01 +0000] "GET /c HTTP/1.1" 200 5 "-" "x mailto:a@b.example"`+"\n", 3)
	jsonl := `{"request":{"uri":"/x?y=1","host":"h.example"},"msg":"see http://m.example/"}` + "\n" +
		`{"request":{"uri":"/x?y=1","host":"other.example"}}` + "\n" +
		`{"request":{"uri":"/x?y=1","host":"h.example"}}` + "\n"
	columns := "a\thttp://c1.example/\tx http://c3.example/\nb\thttp://c1.example/\t-\n"
	for _, tc := range []struct {
		in   string
		args []string
		code int
	}{
		{combined, []string{"--log", "combined", "--base", "https://site.example/"}, 1},
		{combined, []string{"--log", "combined", "--any-scheme"}, 1},
		{jsonl, []string{"--log", "jsonl", "--field", "request.uri", "--field", "msg", "--base", "https://b.example/", "--host-field", "request.host"}, 0},
		{columns, []string{"--log", "columns", "--columns", "2-3"}, 0},
	} {
		// What extract finds, deduplicated by the line.
		_, found, xerrs := cli(t, tc.in, append([]string{"extract"}, tc.args...)...)
		_, want, _ := cli(t, found, "dedup")
		if len(lines(want)) < 2 {
			t.Fatalf("%v: extract found %q", tc.args, found)
		}
		for _, w := range []string{"1", "2"} {
			code, out, errs := cli(t, tc.in, append([]string{"dedup", "--extract", "--workers", w}, tc.args...)...)
			if code != tc.code || out != want || !strings.HasPrefix(errs, xerrs) {
				t.Errorf("%v --workers %s: exit %d, stdout %q, want %q; stderr %q, extract's %q", tc.args, w, code, out, want, errs, xerrs)
			}
		}
	}
	for _, args := range [][]string{{"dedup", "--log", "combined"}, {"dedup", "--any-scheme"}, {"dedup", "--extract", "--field", "x"}, {"dedup", "--extract", "--log", "xml"}} {
		if code, _, errs := cli(t, "", args...); code != 2 || !strings.Contains(errs, "uriscan: dedup: --") {
			t.Errorf("%q: exit %d, stderr %q", args, code, errs)
		}
	}
}

// TestDedupGet: dedup --get writes the template for the first URI of each
// class (as written), the same with one worker or two, with --extract too;
// with a disk store and --output the template is recorded in the
// checkpoint, and a resume with another is refused.
func TestDedupGet(t *testing.T) {
	in := "http://a.example/x?q=1\nHTTP://A.example:80/x?q=1\nhttp://b.example/y\nnot a uri\nhttp://u:secret@c.example/\n"
	for _, w := range []string{"1", "2"} {
		code, out, _ := cli(t, in, "dedup", "--workers", w, "--get", `{scheme} {host}{path}\t{query:q}`)
		if want := "http a.example/x\t1\nhttp b.example/y\t\nhttp c.example/\t\n"; code != 1 || out != want {
			t.Errorf("--workers %s: exit %d, %q, want %q", w, code, out, want)
		}
	}
	// A password is redacted in every variable unless --show-passwords.
	if _, out, _ := cli(t, in, "dedup", "--get", "{url}"); !strings.Contains(out, "http://u:"+uriscan.Redacted+"@c.example/") {
		t.Errorf("{url}: %q", out)
	}
	if _, out, _ := cli(t, "see http://a.example/1 and http://a.example/1 and http://b.example/2\n", "dedup", "--extract", "--get", "{host}"); out != "a.example\nb.example\n" {
		t.Errorf("--extract: %q", out)
	}
	dir := t.TempDir()
	args := []string{"dedup", "--store", "disk:" + filepath.Join(dir, "seen"), "--key-file", writeKey(t, dir), "--output", filepath.Join(dir, "out.txt"), "--get", "{host}"}
	if code, _, errs := cli(t, in, args...); code != 1 || readFile(t, filepath.Join(dir, "out.txt")) != "a.example\nb.example\nc.example\n" {
		t.Fatalf("disk store: exit %d, %q, stderr %q", code, readFile(t, filepath.Join(dir, "out.txt")), errs)
	}
	args[len(args)-1] = "{host}{path}"
	if code, _, errs := cli(t, in, args...); code != 2 || !strings.Contains(errs, "get") {
		t.Errorf("a resume with another template: exit %d, stderr %q", code, errs)
	}
}
