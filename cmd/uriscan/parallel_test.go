package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/shareddata"
)

// parallelInput makes n lines of everything the line commands meet:
// valid and invalid URIs, blank lines, CRLF, bytes that are not UTF-8,
// lines longer than a small --max-line, URIs inside prose for extract,
// and (with last) an unterminated last line.
func parallelInput(rng *rand.Rand, n int, last bool) []byte {
	pieces := []string{
		"http://example.com/a/b?q#f", "HTTP://Example.COM:80/%7euser/./x/../y", "mailto:a@b.c",
		"http://a b/", "http://[::1]:8080/", "//host/p", "../rel?x", "", "\r", "http://bad\xff/",
		"see <http://a.example/x> and (http://b.example/y).", "https://en.wikipedia.org/wiki/Go_(language),",
		`"GET /index.html HTTP/1.1" 200 1 "https://ref.example/p?q=1" "Mozilla/5.0 (+http://bot.example/)"`,
		"%zz", "http://h/" + strings.Repeat("p", 150), "ftp://f.example/" + strings.Repeat("%41", 60),
	}
	var b bytes.Buffer
	for i := range n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
		if rng.IntN(4) == 0 {
			b.WriteString(" http://x.example/" + fmt.Sprint(i))
		}
		if i < n-1 || !last {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// setChunks sets the pipeline's chunk size and line count for one test.
func setChunks(t *testing.T, size, lines int) {
	t.Helper()
	oldSize, oldLines := chunkSize, chunkLines
	chunkSize, chunkLines = size, lines
	t.Cleanup(func() { chunkSize, chunkLines = oldSize, oldLines })
}

// TestWorkersSameOutput: every command that takes --workers gives the
// same standard output, standard error and exit status with 2 and 3
// workers as with 1, whatever the chunk size (tiny chunks put a chunk
// boundary everywhere, and lines over --max-line through the reader's own
// scanner), over several files (a byte-order mark, gzip, a missing one).
// With one worker the line commands run the streaming loop, so this
// compares the two ways of reading.
func TestWorkersSameOutput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	key := writeFile(t, "key.hex", strings.Repeat("0f", 32)+"\n")
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, parallelInput(rng, 3000, true), 0o644)
	bom := filepath.Join(dir, "bom.txt")
	os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), parallelInput(rng, 200, false)...), 0o644)
	gz := writeGzip(t, "c.gz", string(parallelInput(rng, 500, true)))
	empty := writeFile(t, "empty.txt", "")
	files := []string{a, bom, filepath.Join(dir, "missing"), gz, empty}
	cmds := [][]string{
		{"validate", "--max-line", "100"},
		{"split", "--max-line", "120"},
		{"normalize", "--level", "crawler", "--repair"},
		{"normalize", "--format", "jsonl", "--key-file", key, "--max-line", "100"},
		{"resolve", "--base", "http://a/b/c/d;p?q"},
		{"extract", "--format", "jsonl", "--rejects", "--any-scheme"},
		{"extract", "--rejects"},
	}
	for _, size := range []int{64, 1000, 256 << 10} {
		for _, lines := range []int{3, 8192} {
			setChunks(t, size, lines)
			for _, args := range cmds {
				args = append(args, files...)
				code1, out1, err1 := cli(t, "", append(args, "--workers", "1")...)
				if len(out1) == 0 {
					t.Fatalf("%v: no output", args)
				}
				for _, w := range []string{"2", "3"} {
					code, out, errs := cli(t, "", append(args, "--workers", w)...)
					if code != code1 || out != out1 || errs != err1 {
						t.Errorf("chunks of %d bytes / %d lines, %s: --workers %s differs from 1: exit %d vs %d\n%s", size, lines, strings.Join(args[:2], " "), w, code, code1, firstDiff(out, out1, errs, err1))
					}
				}
			}
		}
	}
}

// firstDiff describes where two runs' outputs first differ.
func firstDiff(out, out1, errs, err1 string) string {
	for _, p := range [][2]string{{out, out1}, {errs, err1}} {
		a, b := lines(p[0]), lines(p[1])
		for i := range max(len(a), len(b)) {
			var x, y string
			if i < len(a) {
				x = a[i]
			}
			if i < len(b) {
				y = b[i]
			}
			if x != y {
				return fmt.Sprintf("line %d: %q, want %q", i+1, x, y)
			}
		}
	}
	return "same lines"
}

// TestWorkersReadError: a read error, after whole lines or inside one,
// is reported as with one worker (the cut last line is not taken), with
// every line before it handled.
func TestWorkersReadError(t *testing.T) {
	setChunks(t, 64, 4)
	in := parallelInput(rand.New(rand.NewPCG(3, 4)), 400, false)
	for _, at := range []int{0, 1, 100, bytes.IndexByte(in[200:], '\n') + 201, len(in) / 2, len(in) - 1} {
		for _, cmd := range [][]string{{"split"}, {"validate", "--max-line", "50"}, {"extract", "--format", "tsv"}} {
			var want [3]any
			for _, w := range []string{"1", "2"} {
				r := io.MultiReader(bytes.NewReader(in[:at]), errReader{errors.New("disk on fire")})
				code, out, errs := cliReader(t, r, append(cmd, "--workers", w)...)
				if !strings.Contains(errs, "disk on fire") || code != 2 {
					t.Errorf("%s --workers %s, error at %d: exit %d, stderr %q", cmd[0], w, at, code, errs)
				}
				got := [3]any{code, out, errs}
				if w == "1" {
					want = got
				} else if got != want {
					t.Errorf("%s, error at %d: --workers 2 differs from 1: %s", cmd[0], at, firstDiff(out, want[1].(string), errs, want[2].(string)))
				}
			}
		}
	}
}

// TestExtractChunksVsScanner: the command's chunked extraction (any chunk
// size, any number of workers) finds exactly what uriscan.ExtractScanner
// finds reading the same input as one stream.
func TestExtractChunksVsScanner(t *testing.T) {
	inputs := [][]byte{parallelInput(rand.New(rand.NewPCG(5, 6)), 2000, true)}
	// Text without line ends: chunks are cut after spaces.
	inputs = append(inputs, bytes.ReplaceAll(inputs[0], []byte("\n"), []byte(" ")))
	if shareddata.Available(t) {
		d, _ := shareddata.Dir()
		log, err := os.ReadFile(filepath.Join(d, "logs", "access.log"))
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, log[:4<<20])
	} else {
		t.Log("shared data absent: synthetic inputs only")
	}
	for i, in := range inputs {
		var want strings.Builder
		s := uriscan.NewExtractScanner(&uriscan.Extractor{}, bytes.NewReader(in))
		n := 0
		for s.Scan() {
			for _, m := range s.Matches() {
				fmt.Fprintf(&want, "-\t%d\t%d\t%s\n", m.Line, m.Start, s.Bytes(m))
				n++
			}
		}
		if n == 0 {
			t.Fatalf("input %d: the scanner found nothing", i)
		}
		for _, size := range []int{100, 4096, 256 << 10} {
			setChunks(t, size, 8192)
			for _, w := range []string{"1", "2"} {
				code, out, errs := cliReader(t, bytes.NewReader(in), "extract", "--format", "tsv", "--workers", w)
				out = strings.ReplaceAll(out, stdinName+"\t", "-\t")
				if code != 0 || out != want.String() {
					t.Errorf("input %d, chunks of %d, --workers %s: exit %d, stderr %q: %s", i, size, w, code, errs, firstDiff(out, want.String(), "", ""))
				}
			}
		}
	}
}
