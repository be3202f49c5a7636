package cli

import (
	"strings"
	"testing"
)

// TestRawLevels: normalize and dedup at --level safebrowsing and w3lib
// read every line as the level's owner does (an RFC 3986-invalid line is
// no error), report the lines the owner refuses, and take no RFC option.
func TestRawLevels(t *testing.T) {
	in := "http://www.GOOgle.com/blah/..\nhttp://host/%25%32%35\nmailto:x\n\thttp://a b/?b=2&a=1#f\n"
	code, out, errs := cli(t, in, "normalize", "--level", "safebrowsing")
	if want := "http://www.google.com/\nhttp://host/%25\n\nhttp://a%20b/?b=2&a=1\n"; code != 1 || out != want {
		t.Errorf("safebrowsing: exit %d, %q, want %q", code, out, want)
	}
	if !strings.Contains(errs, "<stdin>:3: offset 0: safe browsing:") || strings.Count(errs, "\n") != 1 {
		t.Errorf("safebrowsing stderr %q", errs)
	}
	code, out, errs = cli(t, in, "normalize", "--level", "w3lib")
	if want := "http://www.google.com/blah/..\nhttp://host/%25\nmailto:x\nhttp://a b/?a=1&b=2\n"; code != 0 || out != want {
		t.Errorf("w3lib: exit %d, %q, want %q (stderr %q)", code, out, want, errs)
	}
	_, out, _ = cli(t, "http://h/a\n", "normalize", "--level", "w3lib", "--format", "jsonl")
	if !strings.Contains(out, `"input":"http://h/a","valid":true,"normalized":"http://h/a","hash":"`) {
		t.Errorf("w3lib jsonl %q", out)
	}
	_, out, _ = cli(t, "mailto:x\n", "normalize", "--level", "safebrowsing", "--format", "jsonl")
	if !strings.Contains(out, `"valid":false,"error":{"offset":0,"reason":"safe browsing:`) {
		t.Errorf("safebrowsing jsonl refusal %q", out)
	}
	// Workers: the same lines, the same answers.
	if _, out2, _ := cli(t, strings.Repeat(in, 3000), "normalize", "--level", "safebrowsing", "--workers", "2"); out2 != strings.Repeat("http://www.google.com/\nhttp://host/%25\n\nhttp://a%20b/?b=2&a=1\n", 3000) {
		t.Errorf("safebrowsing --workers 2 differs")
	}
	// dedup: Safe Browsing merges what it unescapes and resolves; an
	// RFC-invalid line is a line like another.
	code, out, errs = cli(t, "http://h/a%2Fb\nhttp://h/a/b\nhttp://h/x/../a/b\nhttp://h/a b\nhttp://h/a%20b\nmailto:x\n", "dedup", "--level", "safebrowsing")
	if want := "http://h/a%2Fb\nhttp://h/a b\n"; code != 1 || out != want {
		t.Errorf("dedup safebrowsing: exit %d, %q, want %q (stderr %q)", code, out, want, errs)
	}
	if !strings.Contains(errs, "<stdin>:6: offset 0: safe browsing:") {
		t.Errorf("dedup safebrowsing stderr %q", errs)
	}
	for _, args := range [][]string{
		{"normalize", "--level", "w3lib", "--strip-www"},
		{"normalize", "--level", "safebrowsing", "--keep-encoded-dots"},
		{"dedup", "--level", "w3lib", "--repair"},
		{"normalize", "--level", "w3libb"},
	} {
		if code, _, errs := cli(t, "", args...); code != 2 || !strings.Contains(errs, "--") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}

// TestGrammarFlag: --grammar rfc2396 parses every line by RFC 2396 (with
// RFC 2732) on validate, split, normalize, dedup and resolve, with and
// without workers; a disk store records it.
func TestGrammarFlag(t *testing.T) {
	in := "http://a/%21b;p?q\nhttp://[v1.x]/\nmailto:a?b\nhttp://a_b/\n"
	code, out, _ := cli(t, in, "split", "--grammar", "rfc2396")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 1 || len(lines) != 4 || !strings.Contains(lines[1], `"valid":false`) || !strings.Contains(lines[2], `"path":"a?b","query":null`) {
		t.Errorf("split: exit %d\n%s", code, out)
	}
	if _, out3986, _ := cli(t, in, "split"); !strings.Contains(out3986, `"path":"a","query":"b"`) || strings.Count(out3986, `"valid":false`) != 0 {
		t.Errorf("split rfc3986: %s", out3986)
	}
	if _, w2, _ := cli(t, strings.Repeat(in, 2000), "split", "--grammar", "rfc2396", "--workers", "2"); w2 != strings.Repeat(out, 2000) && !strings.Contains(w2, `"line":8000`) {
		t.Errorf("split --workers 2 differs")
	}
	if code, out, _ := cli(t, in, "validate", "--grammar", "rfc2396"); code != 1 || !strings.HasPrefix(out, "<stdin>:2: offset 8:") || strings.Count(out, "\n") != 1 {
		t.Errorf("validate: exit %d, %q", code, out)
	}
	if _, out, _ := cli(t, "http://a/%21b\n", "normalize", "--grammar", "rfc2396"); out != "http://a/!b\n" {
		t.Errorf("normalize: %q", out)
	}
	if _, out, _ := cli(t, "http://a/%21b\nhttp://a/!b\n", "dedup", "--grammar", "rfc2396"); out != "http://a/%21b\n" {
		t.Errorf("dedup: %q", out)
	}
	if _, out, _ := cli(t, "http://a/%21b\nhttp://a/!b\n", "dedup"); out != "http://a/%21b\nhttp://a/!b\n" {
		t.Errorf("dedup rfc3986: %q", out)
	}
	if _, out, _ := cli(t, "../../../g\n", "resolve", "--grammar", "rfc2396", "--base", "http://a/b/c/d;p?q"); out != "http://a/../g\n" {
		t.Errorf("resolve rfc2396: %q", out)
	}
	if _, out, _ := cli(t, "../../../g\n", "resolve", "--base", "http://a/b/c/d;p?q"); out != "http://a/g\n" {
		t.Errorf("resolve rfc3986: %q", out)
	}
	if code, _, errs := cli(t, "", "split", "--grammar", "rfc1738"); code != 2 || !strings.Contains(errs, "--grammar") {
		t.Errorf("bad grammar: exit %d, %q", code, errs)
	}
	dir := t.TempDir()
	key := writeFile(t, "key.hex", strings.Repeat("cd", 32))
	store := "disk:" + dir + "/seen"
	if code, _, errs := cli(t, in, "dedup", "--store", store, "--key-file", key, "--grammar", "rfc2396"); code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := cli(t, in, "dedup", "--store", store, "--key-file", key); code != 2 || !strings.Contains(errs, "grammar") {
		t.Errorf("a store made with rfc2396, used without: exit %d, %q", code, errs)
	}
}

// TestSURTFormat: normalize --format surt writes each line's SURT key as
// the Internet Archive's surt() does, with its usual options, and takes
// no option of the other formats.
func TestSURTFormat(t *testing.T) {
	in := "http://www.Example.com/a?b\nhttp://archive.org/goo/?a=2&b&a=1\nhttps://u:p@www.x.org:443/\n"
	code, out, _ := cli(t, in, "normalize", "--format", "surt")
	if want := "com,example)/a?b\norg,archive)/goo?a=1&a=2&b\norg,x)/\n"; code != 0 || out != want {
		t.Errorf("surt: exit %d, %q, want %q", code, out, want)
	}
	if _, out, _ := cli(t, "http://www.Example.com/a?b\n", "normalize", "--format", "surt", "--surt-scheme", "--surt-trailing-comma", "--surt-keep-www"); out != "http://(com,example,www,)/a?b\n" {
		t.Errorf("surt options: %q", out)
	}
	if _, out2, _ := cli(t, strings.Repeat(in, 2000), "normalize", "--format", "surt", "--workers", "2"); out2 != strings.Repeat(out, 2000) {
		t.Errorf("surt --workers 2 differs")
	}
	for _, args := range [][]string{
		{"normalize", "--format", "surt", "--level", "crawler"},
		{"normalize", "--surt-scheme"},
	} {
		if code, _, errs := cli(t, "", args...); code != 2 || !strings.Contains(errs, "surt") {
			t.Errorf("%v: exit %d, %q", args, code, errs)
		}
	}
}
