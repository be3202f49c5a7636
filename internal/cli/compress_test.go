package cli

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bz2Sample is "http://a/\nhttp://b c\nhttp://c/\n" compressed by bzip2
// 1.0.8 (the standard library reads bzip2 but does not write it).
const bz2Sample = "425a6839314159265359635fbe3c000009d98000104000801038404400200021b4a34f4210030e291c8518356ecd469f177245385090635fbe3c"

func TestBzip2AndXZInput(t *testing.T) {
	const plain = "http://a/\nhttp://b c\nhttp://c/\n"
	bz, _ := hex.DecodeString(bz2Sample)
	dir := t.TempDir()
	for name, data := range map[string][]byte{"in.bz2": bz, "in.dat": bz} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, data, 0o644)
		// by its magic number, whatever its name; from a file and a pipe
		for _, args := range [][]string{{"split", "--get", "{host}", p}, {"split", "--get", "{host}", "--verify-input", p}} {
			code, out, stderr := cli(t, "", args...)
			if code != 1 || out != "a\n\nc\n" || !strings.Contains(stderr, ":2: offset 8") {
				t.Errorf("%s %v: exit %d, %q, %q", name, args[len(args)-2:], code, out, stderr)
			}
		}
		code, out, _ := cli(t, string(data), "split", "--get", "{host}")
		if code != 1 || out != "a\n\nc\n" {
			t.Errorf("%s on standard input: exit %d, %q", name, code, out)
		}
		// cut short: an error, exit 2, and with --verify-input no line
		p2 := filepath.Join(dir, "cut-"+name)
		os.WriteFile(p2, data[:len(data)*2/3], 0o644)
		code, out, stderr := cli(t, "", "split", "--get", "{host}", "--verify-input", p2)
		if code != 2 || out != "" || !strings.Contains(stderr, "fails verification") {
			t.Errorf("cut %s --verify-input: exit %d, %q, %q", name, code, out, stderr)
		}
	}
	// Text that begins like a bzip2 header is text.
	if code, out, _ := cli(t, "BZh1.example/x\n", "split", "--get", "{path}"); code != 0 || out != "BZh1.example/x\n" {
		t.Errorf("a text line \"BZh1...\": exit %d, %q", code, out)
	}
	// xz is refused by its magic number, with what to do instead.
	xzHead := append([]byte{0xfd, '7', 'z', 'X', 'Z', 0}, plain...)
	p := filepath.Join(dir, "in.xz")
	os.WriteFile(p, xzHead, 0o644)
	if code, out, stderr := cli(t, "", "split", p); code != 2 || out != "" || !strings.Contains(stderr, "xz input is not read") || !strings.Contains(stderr, "xz -dc") {
		t.Errorf("xz: exit %d, %q, %q", code, out, stderr)
	}
}
