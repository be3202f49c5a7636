package cli

import (
	"bytes"
	"encoding/json"
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
		"http://long.example/" + strings.Repeat("q", 5000), // longer than a chunk, and than --max-line
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

// parallelFiles writes the inputs the workers tests read, and returns
// their names: a.txt (3000 lines, the last unterminated), one that starts
// with a byte-order mark, a missing one, gzip, an empty one.
func parallelFiles(t *testing.T, rng *rand.Rand) []string {
	t.Helper()
	dir := t.TempDir()
	a := filepath.Join(dir, "a.txt")
	os.WriteFile(a, parallelInput(rng, 3000, true), 0o644)
	bom := filepath.Join(dir, "bom.txt")
	os.WriteFile(bom, append([]byte("\xef\xbb\xbf"), parallelInput(rng, 200, false)...), 0o644)
	gz := writeGzip(t, "c.gz", string(parallelInput(rng, 500, true)))
	empty := writeFile(t, "empty.txt", "")
	return []string{a, bom, filepath.Join(dir, "missing"), gz, empty}
}

// chunks is the default tuning with the given chunk and output piece
// sizes, for one test's runs.
func chunks(size, piece int) tuning {
	tn := defaultTuning()
	tn.chunkSize, tn.pieceSize = size, piece
	return tn
}

// TestWorkersSameOutput: every line command gives the same standard
// output, standard error and exit status with 1, 2 and 3 workers as the
// streaming loop (eachRecord, dedup's), whatever
// the chunk size (tiny chunks put a chunk boundary everywhere, and lines
// over --max-line through the reader's own scanner), over several files (a
// byte-order mark, gzip, a missing one, an empty one). Extract, which has
// no streaming loop, is compared across workers with its one-worker run
// here and with uriscan.ExtractScanner in TestExtractChunksVsScanner.
func TestWorkersSameOutput(t *testing.T) {
	key := writeFile(t, "key.hex", strings.Repeat("0f", 32)+"\n")
	files := parallelFiles(t, rand.New(rand.NewPCG(1, 2)))
	cmds := [][]string{
		{"validate", "--max-line", "100"},
		{"split", "--max-line", "120"},
		{"split", "--format", "tsv", "--header", "--flags", "--max-line", "120"},
		{"normalize", "--level", "crawler", "--repair"},
		{"normalize", "--format", "jsonl", "--key-file", key, "--max-line", "100"},
		{"resolve", "--base", "http://a/b/c/d;p?q"},
		{"extract", "--format", "jsonl", "--rejects", "--any-scheme"},
		{"extract", "--rejects"},
		{"extract", "--log", "columns", "--columns", "1-3", "--delimiter", " ", "--format", "tsv"},
	}
	for _, size := range []int{64, 1000, 256 << 10} {
		for _, piece := range []int{1, 1 << 20} {
			tn := chunks(size, piece)
			for _, args := range cmds {
				args = append(args, files...)
				tn.streamOnly = args[0] != "extract"
				code1, out1, err1 := cliT(t, tn, "", args...)
				tn.streamOnly = false
				if len(out1) == 0 {
					t.Fatalf("%v: no output", args)
				}
				for _, w := range []string{"1", "2", "3"} {
					code, out, errs := cliT(t, tn, "", append(args, "--workers", w)...)
					if code != code1 || out != out1 || errs != err1 {
						t.Errorf("chunks of %d bytes, pieces of %d, %s: --workers %s differs from the streaming loop: exit %d vs %d\n%s", size, piece, strings.Join(args[:2], " "), w, code, code1, firstDiff(out, out1, errs, err1))
					}
				}
			}
		}
	}
}

// firstDiff describes where two runs' outputs first differ.
func firstDiff(out, out1, errs, err1 string) string {
	if out != out1 {
		return firstDifference(lines(out), lines(out1))
	}
	if errs != err1 {
		return "stderr: " + firstDifference(lines(errs), lines(err1))
	}
	return "same lines"
}

// TestWorkersReadError: a read error, after whole lines or inside one,
// is reported as with one worker (the cut last line is not taken), with
// every line before it handled.
func TestWorkersReadError(t *testing.T) {
	tn := chunks(64, 100)
	in := parallelInput(rand.New(rand.NewPCG(3, 4)), 400, false)
	for _, at := range []int{0, 1, 100, bytes.IndexByte(in[200:], '\n') + 201, len(in) / 2, len(in) - 1} {
		for _, cmd := range [][]string{{"split"}, {"validate", "--max-line", "50"}, {"extract", "--format", "tsv"}} {
			var want [3]any
			for _, w := range []string{"stream", "1", "2"} {
				r := io.MultiReader(bytes.NewReader(in[:at]), errReader{errors.New("disk on fire")})
				tn.streamOnly = w == "stream" && cmd[0] != "extract"
				code, out, errs := cliReaderT(t, tn, r, append(cmd, "--workers", strings.Replace(w, "stream", "1", 1))...)
				tn.streamOnly = false
				if !strings.Contains(errs, "disk on fire") || code != 2 {
					t.Errorf("%s --workers %s, error at %d: exit %d, stderr %q", cmd[0], w, at, code, errs)
				}
				got := [3]any{code, out, errs}
				if w == "stream" {
					want = got
				} else if got != want {
					t.Errorf("%s, error at %d: --workers %s differs from the streaming loop: %s", cmd[0], at, w, firstDiff(out, want[1].(string), errs, want[2].(string)))
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
	// And with nginx's escapes before the URIs (the backslash is kept
	// across a cut, as the scanner keeps it).
	inputs = append(inputs, bytes.ReplaceAll(inputs[1], []byte(" "), []byte(`\x22`)))
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
		var lineStart, seen int64 // in[:seen] searched for '\n'
		for s.Scan() {
			for _, m := range s.Matches() {
				if i := bytes.LastIndexByte(in[seen:m.Start], '\n'); i >= 0 {
					lineStart = seen + int64(i) + 1
				}
				seen = m.Start
				// "offset" is in the line; a line of 1 MB spans chunks.
				fmt.Fprintf(&want, "%d\t%d\t%d\t%s\n", m.Line, m.Start-lineStart, m.Start, s.Bytes(m))
				n++
			}
		}
		if n == 0 {
			t.Fatalf("input %d: the scanner found nothing", i)
		}
		for _, size := range []int{100, 4096, 256 << 10} {
			tn := chunks(size, 1<<20)
			file := filepath.Join(t.TempDir(), "in.txt")
			os.WriteFile(file, in, 0o644)
			for _, w := range []string{"1", "2", "1 file", "2 file"} {
				w, how, _ := strings.Cut(w, " ")
				args := []string{"extract", "--format", "jsonl", "--workers", w}
				if how == "file" {
					args = append(args, file)
				}
				code, jsonl, errs := cliReaderT(t, tn, bytes.NewReader(in), args...)
				var got strings.Builder // line, offset, byte_offset and URI
				for _, l := range lines(jsonl) {
					var r struct {
						Line, Offset int64
						ByteOffset   int64 `json:"byte_offset"`
						URI          string
					}
					if err := json.Unmarshal([]byte(l), &r); err != nil {
						t.Fatalf("%q: %v", l, err)
					}
					fmt.Fprintf(&got, "%d\t%d\t%d\t%s\n", r.Line, r.Offset, r.ByteOffset, r.URI)
				}
				if out := got.String(); code != 0 || out != want.String() {
					t.Errorf("input %d, chunks of %d, --workers %s %s: exit %d, stderr %q: %s", i, size, w, how, code, errs, firstDiff(out, want.String(), "", ""))
				}
			}
		}
	}
}

// errReader returns its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }
