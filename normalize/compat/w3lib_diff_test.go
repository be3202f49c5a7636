package compat

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// w3libPythonBin is the interpreter that has python3-w3lib (Debian's).
const w3libPythonBin = "/usr/bin/python3"

// w3libRequireEnv makes a missing Python or w3lib a failure, not a skip.
const w3libRequireEnv = "URISCAN_W3LIB_REQUIRE"

// w3libNeedPython skips (or, with URISCAN_W3LIB_REQUIRE=1, fails) t when
// /usr/bin/python3 or its w3lib is missing, and returns the helper script.
func w3libNeedPython(tb testing.TB) string {
	tb.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "w3lib_canon.py"))
	if err != nil {
		tb.Fatal(err)
	}
	out, err := w3libCommand(script, "--version").CombinedOutput()
	if err != nil {
		msg := fmt.Sprintf("%s with w3lib is needed for the w3lib differential (%v: %s); install python3-w3lib (Debian) or set %s=1 to make this a failure",
			w3libPythonBin, err, bytes.TrimSpace(out), w3libRequireEnv)
		if os.Getenv(w3libRequireEnv) == "1" {
			tb.Fatal(msg)
		}
		tb.Skip(msg)
	}
	tb.Logf("python w3lib %s", bytes.TrimSpace(out))
	return script
}

// w3libCommand runs /usr/bin/python3 with args, with PYTHONHASHSEED and
// PYTHONDONTWRITEBYTECODE set so the run leaves nothing behind.
func w3libCommand(args ...string) *exec.Cmd {
	cmd := exec.Command(w3libPythonBin, args...)
	cmd.Env = append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0")
	return cmd
}

// w3libResult is one line of w3lib_canon.py: ok and the canonical URL, or
// the exception class.
type w3libResult struct {
	ok   bool
	text string // canonical URL, or exception class and message
}

// w3libRunPython runs the helper over lines (joined with "\n") and returns
// one result per line.
func w3libRunPython(tb testing.TB, script string, lines [][]byte, opts W3libOptions) []w3libResult {
	tb.Helper()
	f, err := os.CreateTemp(tb.TempDir(), "urls*.txt")
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		if bytes.IndexByte(l, '\n') >= 0 {
			tb.Fatalf("line with a newline: %q", l)
		}
		w.Write(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	args := []string{script}
	if opts.KeepFragments {
		args = append(args, "--keep-fragments")
	}
	if opts.DropBlankValues {
		args = append(args, "--drop-blank")
	}
	args = append(args, f.Name())
	cmd := w3libCommand(args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("%s: %v\n%s", script, err, stderr.Bytes())
	}
	res := make([]w3libResult, 0, len(lines))
	for _, l := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		var a []string
		if err := json.Unmarshal(l, &a); err != nil || len(a) < 2 {
			tb.Fatalf("bad helper output %q: %v", l, err)
		}
		if a[0] == "ok" {
			res = append(res, w3libResult{true, a[1]})
		} else {
			res = append(res, w3libResult{false, strings.Join(a[1:], ": ")})
		}
	}
	if len(res) != len(lines) {
		tb.Fatalf("helper gave %d results for %d lines", len(res), len(lines))
	}
	return res
}

// w3libDiffClass names why Go and Python disagree on in.
func w3libDiffClass(in []byte, gotErr error, want w3libResult) string {
	switch {
	case gotErr != nil && !want.ok:
		return "different exception (Go " + w3libPyException(gotErr) + ")"
	case gotErr != nil && want.ok:
		return "Go error, Python result"
	case gotErr == nil && !want.ok:
		return "Python raises (" + strings.SplitN(want.text, ":", 2)[0] + "), Go result"
	}
	s := string(in)
	if i := strings.Index(s, "//"); i >= 0 {
		host := s[i+2:]
		if j := strings.IndexAny(host, "/?#"); j >= 0 {
			host = host[:j]
		}
		if w3libASCII([]byte(host)) {
			return "other (ASCII netloc)"
		}
		return "non-ASCII netloc (IDNA 2003 nameprep vs UTS #46)"
	}
	return "other"
}

// w3libPyException is the Python exception class AppendW3lib's error
// stands for.
func w3libPyException(err error) string {
	if err == ErrW3libNotUTF8 {
		return "UnicodeDecodeError"
	}
	return "ValueError"
}

// w3libCompare compares AppendW3lib with Python over lines: it returns
// how many agree (the same bytes, or both raising the same exception class)
// and logs a few examples of each class of difference.
func w3libCompare(t *testing.T, what string, lines [][]byte, want []w3libResult, opts W3libOptions) (agree int) {
	t.Helper()
	classes := map[string][]string{}
	counts := map[string]int{}
	bothErr := 0
	var buf []byte
	for i, in := range lines {
		var err error
		buf, err = AppendW3lib(buf[:0], in, opts)
		w := want[i]
		switch {
		case err == nil && w.ok && string(buf) == w.text:
			agree++
			continue
		case err != nil && !w.ok && w3libPyException(err) == strings.SplitN(w.text, ":", 2)[0]:
			agree++
			bothErr++
			continue
		}
		c := w3libDiffClass(in, err, w)
		counts[c]++
		if len(classes[c]) < 4 {
			got := string(buf)
			if err != nil {
				got = "error " + err.Error()
			}
			classes[c] = append(classes[c], fmt.Sprintf("%q\n\t\tgo     %q\n\t\tpython %q (ok=%v)", in, got, w.text, w.ok))
		}
	}
	t.Logf("%s %+v: %d lines, %d identical (%d of them raising in both), %.3f%%", what, opts, len(lines), agree, bothErr, 100*float64(agree)/float64(max(len(lines), 1)))
	names := make([]string, 0, len(counts))
	for c := range counts {
		names = append(names, c)
	}
	sort.Strings(names)
	for _, c := range names {
		t.Logf("  class %q: %d, e.g.\n\t%s", c, counts[c], strings.Join(classes[c], "\n\t"))
	}
	return agree
}

// w3libHTTPLine reports whether a list line is an http(s) URL: after C0
// controls, spaces and a UTF-8 byte order mark, "http://" or "https://"
// in any case. The line itself is compared as is (BOM included).
func w3libHTTPLine(l []byte) bool {
	l = bytes.TrimLeft(l, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	l = bytes.TrimPrefix(l, []byte("\xef\xbb\xbf"))
	if len(l) < 8 {
		return false
	}
	p := strings.ToLower(string(l[:8]))
	return strings.HasPrefix(p, "http://") || p == "https://"
}

// w3libSharedHTTPLines returns the http(s) lines of every shared URL list
// (nil when the shared data is absent: shareddata writes a notice).
func w3libSharedHTTPLines(tb testing.TB) [][]byte {
	tb.Helper()
	var lines [][]byte
	for _, p := range shareddata.URLFiles() {
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		data := shareddata.URLList(tb, name)
		for _, l := range bytes.Split(data, []byte("\n")) {
			l = bytes.TrimSuffix(l, []byte("\r"))
			if w3libHTTPLine(l) {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

func TestW3libDifferential(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the python3-w3lib differential runs in the full (native) test run")
	}
	script := w3libNeedPython(t)
	t.Run("shared", func(t *testing.T) {
		lines := w3libSharedHTTPLines(t)
		if len(lines) == 0 {
			t.Skipf("no shared URL lists with http(s) lines (set %s)", shareddata.Env)
		}
		for _, opts := range []W3libOptions{{}, {KeepFragments: true, DropBlankValues: true}} {
			want := w3libRunPython(t, script, lines, opts)
			agree := w3libCompare(t, "shared lists' http(s) lines", lines, want, opts)
			if 1000*agree < 999*len(lines) {
				t.Errorf("%+v: %d of %d identical, below 99.9%%", opts, agree, len(lines))
			}
		}
	})
	t.Run("hostile", func(t *testing.T) {
		lines := w3libHostile(rand.New(rand.NewSource(3986)), 4000)
		for _, opts := range []W3libOptions{{}, {KeepFragments: true}, {DropBlankValues: true}} {
			want := w3libRunPython(t, script, lines, opts)
			agree := w3libCompare(t, "generated hostile http URLs", lines, want, opts)
			if 1000*agree < w3libHostilePermille*len(lines) {
				t.Errorf("%+v: %d of %d identical, below %d‰", opts, agree, len(lines), w3libHostilePermille)
			}
		}
	})
	t.Run("vectors", func(t *testing.T) {
		// The table of w3lib_test.go, checked against Python too.
		var lines [][]byte
		for _, tc := range w3libCases {
			if !strings.Contains(tc.in, "\n") { // the helper reads lines
				lines = append(lines, []byte(tc.in))
			}
		}
		for _, opts := range []W3libOptions{{}, {KeepFragments: true}, {DropBlankValues: true}} {
			want := w3libRunPython(t, script, lines, opts)
			if agree := w3libCompare(t, "table inputs", lines, want, opts); agree != len(lines) {
				t.Errorf("%+v: %d of %d table inputs identical", opts, agree, len(lines))
			}
		}
	})
}

// w3libHostilePermille is the agreement asserted on the generated URLs.
// A third of their hosts are random code points, where the port of IDNA
// 2003 rests on golang.org/x/net/idna plus tables taken from Python (see
// AppendW3lib): 100% agree today (and on 50,000 more such URLs tried while
// writing it), but a release of x/net with newer Unicode tables (Go 1.27
// switches it to Unicode 17) can move a few code points; 99% leaves room
// for that and still fails on any error outside hosts (the path, query,
// params, fragment and error handling are exact).
const w3libHostilePermille = 990

// w3libHostile generates n hostile http(s) URLs (no "\n": the helper reads
// lines): mixed-case schemes and hosts, IDNs, IP literals and broken
// brackets, userinfo, odd ports, percent escapes of every case and lone
// "%", non-ASCII and control bytes, ";" params, "|", queries with blanks,
// duplicates, "+", ";" and "=", fragments, and now and then bytes that are
// not UTF-8.
func w3libHostile(r *rand.Rand, n int) [][]byte {
	pick := func(s ...string) string { return s[r.Intn(len(s))] }
	hosts := []string{"www.example.com", "WWW.EXAMPLE.COM", "Ex-Ample.ORG", "a.b.c", "localhost",
		"127.0.0.1", "[::1]", "[2001:DB8::1]", "[::ffff:1.2.3.4]", "[v1.x]", "[fe80::1%25eth0]",
		"[1.2.3.4]", "[::1", "::1]", "bücher.de", "WWW.Bücher.DE", "例え.jp", "はじめよう.みんな",
		"россия.рф", "ПРИМЕР.РФ", "שלום.il", "a\u05d0.x", "☃.net", "ß.de", "Σίσυφος.gr",
		"ｅｘａｍｐｌｅ．ｃｏｍ", "a..b", ".a", "a.", "x" + strings.Repeat("y", 70) + ".com",
		"é" + strings.Repeat("e", 62) + ".com", "xn--bcher-kva.de", "xn--ü.de", "İstanbul.tr",
		"a\u00adb.com", "a\u200db.com", "e\u0301.fr", "😀.ws", "a b.com", "a%20b.com", "_srv.x", ""}
	seg := func() string {
		var b strings.Builder
		for k := r.Intn(8); k > 0; k-- {
			switch r.Intn(12) {
			case 0:
				fmt.Fprintf(&b, "%%%02x", r.Intn(256))
			case 1:
				fmt.Fprintf(&b, "%%%02X", r.Intn(256))
			case 2:
				b.WriteString(pick("%", "%2", "%zz", "%2f", "%2F", "%3f", "%3F", "%25", "%252f", "%23", "%7e", "%7E", "%20", "+", "%2B"))
			case 3:
				b.WriteString(pick("é", "ü", "€", "£", "例", "\u00a0", "\u3000", "😀", "\u0301", "ſ"))
			case 4:
				b.WriteByte(byte(r.Intn(0x20)))
			case 5:
				b.WriteString(pick(";", ";p=1", ":", "@", "!", "$", "'", "(", ")", "*", ",", "|", "[", "]", "{", "}", "\\", "^", "`", "\"", "<", ">", " ", "\x7f"))
			case 6:
				if r.Intn(40) == 0 {
					b.WriteByte(byte(0x80 + r.Intn(0x80))) // maybe not UTF-8
				} else {
					b.WriteString("x")
				}
			default:
				b.WriteString(pick("a", "B", "c", "Do", "index.html", "..", ".", "~u", "_", "-", "9"))
			}
		}
		return strings.ReplaceAll(b.String(), "\n", "")
	}
	lines := make([][]byte, 0, n)
	for len(lines) < n {
		var b strings.Builder
		if r.Intn(20) == 0 {
			b.WriteString(pick(" ", "\t", "\x00", "\r", "\x1f "))
		}
		b.WriteString(pick("http", "https", "HTTP", "HtTpS", "http", "https"))
		b.WriteString("://")
		if r.Intn(8) == 0 {
			b.WriteString(pick("user@", "User:PaSs@", "u%40x:p@", "@", "a:@", ":b@", "ü:ß@", "u[1]@"))
		}
		if r.Intn(3) == 0 {
			b.WriteString(w3libRandomHost(r))
		} else {
			b.WriteString(pick(hosts...))
		}
		if r.Intn(6) == 0 {
			b.WriteString(pick(":80", ":8080", ":", "::", ":0", ":65536", ":abc", ":８０"))
		}
		for k := r.Intn(5); k > 0; k-- {
			b.WriteString("/")
			b.WriteString(seg())
		}
		if r.Intn(3) > 0 {
			b.WriteString("?")
			for k := r.Intn(6); k > 0; k-- {
				switch r.Intn(8) {
				case 0:
					b.WriteString(pick("a", "b=", "=", "=x", "&", ";", "a=1", "A=1", "a=2", "a=1"))
				default:
					b.WriteString(seg())
					if r.Intn(2) == 0 {
						b.WriteString("=")
						b.WriteString(seg())
					}
				}
				b.WriteString(pick("&", ";", "&&", "&"))
			}
		}
		if r.Intn(4) == 0 {
			b.WriteString("#")
			b.WriteString(seg())
			if r.Intn(3) == 0 {
				b.WriteString("#" + seg())
			}
		}
		if r.Intn(20) == 0 {
			b.WriteString(pick(" ", "\t", "\x00", "\r"))
		}
		lines = append(lines, []byte(b.String()))
	}
	return lines
}

// w3libRandomHost makes a host of one to three labels of random code
// points: ASCII, Latin, Greek, Cyrillic, Hebrew, Arabic, combining marks,
// conjoining Hangul jamo, CJK, fullwidth and compatibility forms, symbols,
// emoji, and any code point at all.
func w3libRandomHost(r *rand.Rand) string {
	blocks := [][2]rune{{'a', 'z'}, {'A', 'Z'}, {'0', '9'}, {0xc0, 0x24f}, {0x370, 0x3ff},
		{0x400, 0x4ff}, {0x591, 0x5f4}, {0x600, 0x6ff}, {0x300, 0x36f}, {0x1100, 0x11ff},
		{0xac00, 0xd7a3}, {0x4e00, 0x4fff}, {0x3040, 0x30ff}, {0xff01, 0xff5e}, {0xfb00, 0xfb4f},
		{0x2000, 0x2bff}, {0x1f300, 0x1f64f}, {0x10a0, 0x10ff}, {0x13a0, 0x13ff}, {0x80, 0x10ffff}}
	var b strings.Builder
	for l := 1 + r.Intn(3); l > 0; l-- {
		for k := 1 + r.Intn(5); k > 0; k-- {
			bl := blocks[r.Intn(len(blocks))]
			c := bl[0] + rune(r.Intn(int(bl[1]-bl[0]+1)))
			if c >= 0xd800 && c <= 0xdfff {
				c = 'x'
			}
			b.WriteRune(c)
		}
		if l > 1 {
			b.WriteByte('.')
		}
	}
	return strings.NewReplacer("\n", "", "/", "", "?", "", "#", "").Replace(b.String())
}

// TestW3libCodePoints (with URISCAN_W3LIB_ALLCP=1: Python takes about half
// a minute) compares "http://<c>.x/" for every code point c >= U+0080 but
// the surrogates: the one-code-point labels on which the IDNA tables of
// w3lib.go were built, all identical when they were.
func TestW3libCodePoints(t *testing.T) {
	if os.Getenv("URISCAN_W3LIB_ALLCP") != "1" {
		t.Skip("set URISCAN_W3LIB_ALLCP=1 to compare every code point as a host label")
	}
	script := w3libNeedPython(t)
	var lines [][]byte
	for c := rune(0x80); c <= 0x10ffff; c++ {
		if c < 0xd800 || c > 0xdfff {
			lines = append(lines, []byte("http://"+string(c)+".x/"))
		}
	}
	want := w3libRunPython(t, script, lines, W3libOptions{})
	if agree := w3libCompare(t, "one-code-point host labels", lines, want, W3libOptions{}); agree != len(lines) {
		t.Errorf("%d of %d code points differ", len(lines)-agree, len(lines))
	}
}
