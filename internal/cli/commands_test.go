package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/cpufeat"
	"github.com/uriscan/uriscan/internal/cpuinfo"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

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

func TestCPU(t *testing.T) {
	code, out, _ := cli(t, "", "cpu")
	if code != 0 || !strings.Contains(out, "\nkernel:      "+uriscan.Kernel()) /* GODEBUG may follow */ || !strings.Contains(out, "\nbatch:       "+uriscan.BatchPath()+"\n") ||
		!strings.Contains(out, "\nhints:       "+normalize.HintsPath()+"\n") || !strings.Contains(out, "\nhash:        "+urikey.HashPath()+"\n") || !strings.HasPrefix(out, "cpu:") {
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
	// The pinned digest of urikey/hash_test.go: same key, same normal form.
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

// TestCPULines: what the system says of the CPU, as uriscan cpu writes
// it, and "unknown" for what it does not say.
func TestCPULines(t *testing.T) {
	var b strings.Builder
	line := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
	cpuLines(cpuinfo.Info{Brand: "X", Vendor: "V", Family: "6", Model: "143", Stepping: "8", Logical: 4, Physical: 2, L1D: 48 << 10, L2: 2 << 20, L3: 0, LineSize: 64}, line)
	cpuLines(cpuinfo.Info{}, line)
	procs := strconv.Itoa(runtime.GOMAXPROCS(0))
	want := "cpu=X\nvendor=V\nfamily=6 model 143 stepping 8\ncores=2 physical, 4 logical, GOMAXPROCS " + procs + "\ncache=L1d 48 KiB, L2 2048 KiB, L3 unknown, line 64 B\n" +
		"cpu=unknown\nvendor=unknown\nfamily=unknown model unknown stepping unknown\ncores=unknown physical, unknown logical, GOMAXPROCS " + procs + "\ncache=L1d unknown, L2 unknown, L3 unknown, line unknown B\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
