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
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
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
// their names: a.txt (3000 lines, the last unterminated, mapped unless
// told not to), one that starts with a byte-order mark (mapped too), a
// missing one, gzip, an empty one.
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
// output, standard error and exit status with 1, 2 and 3 workers, files
// mapped or read, as the streaming loop (eachRecord, dedup's), whatever
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
			var mappedCount atomic.Int64
			tn.afterMap = func(*os.File) { mappedCount.Add(1) }
			for _, args := range cmds {
				args = append(args, files...)
				tn.streamOnly = args[0] != "extract"
				code1, out1, err1 := cliT(t, tn, "", args...)
				tn.streamOnly = false
				if len(out1) == 0 {
					t.Fatalf("%v: no output", args)
				}
				for _, w := range []string{"1", "2", "3", "2 read"} {
					w, read := strings.CutSuffix(w, " read")
					tn.mapInputs = map[bool]int{false: mapAlways, true: mapNever}[read]
					mapped := mappedCount.Load()
					code, out, errs := cliT(t, tn, "", append(args, "--workers", w)...)
					tn.mapInputs = mapAuto
					// a.txt and bom.txt are mapped unless told not to;
					// gzip, the missing and the empty file are read.
					if n := mappedCount.Load() - mapped; n != map[bool]int64{false: 2, true: 0}[read] {
						t.Fatalf("%s --workers %s (read: %v): %d inputs mapped", args[0], w, read, n)
					}
					if code != code1 || out != out1 || errs != err1 {
						t.Errorf("chunks of %d bytes, pieces of %d, %s: --workers %s (read: %v) differs from the streaming loop: exit %d vs %d\n%s", size, piece, strings.Join(args[:2], " "), w, read, code, code1, firstDiff(out, out1, errs, err1))
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
			for _, w := range []string{"1", "2", "1 file", "2 file", "1 mapped", "2 mapped"} {
				w, how, _ := strings.Cut(w, " ")
				mapped := how != ""
				args := []string{"extract", "--format", "jsonl", "--workers", w}
				if mapped {
					args = append(args, file)
				}
				tn.mapInputs = map[string]int{"": mapAuto, "file": mapNever, "mapped": mapAlways}[how]
				code, jsonl, errs := cliReaderT(t, tn, bytes.NewReader(in), args...)
				tn.mapInputs = mapAuto
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
					t.Errorf("input %d, chunks of %d, --workers %s (mapped %v): exit %d, stderr %q: %s", i, size, w, mapped, code, errs, firstDiff(out, want.String(), "", ""))
				}
			}
		}
	}
}

// TestMappedFileShrinks: a mapped file cut short after it was mapped (a
// fault reading the mapping, SIGBUS) is an input error naming the file;
// the run goes on with the next file, and nothing panics.
func TestMappedFileShrinks(t *testing.T) {
	if e := os.Getenv("URISCAN_TEST_EXEC"); strings.Contains(e, "qemu") {
		// qemu-user delivers SIGBUS with a fault address of 0, so the
		// fault cannot be told from a nil dereference (which stays a
		// crash); on hardware the address is the mapping's.
		t.Skipf("under %s: no fault address", e)
	}
	tn := chunks(4096, 1<<20)
	big := filepath.Join(t.TempDir(), "big.txt")
	os.WriteFile(big, bytes.Repeat([]byte("http://a.example/x\n"), 100000), 0o644)
	next := writeFile(t, "next.txt", "http://after/\n")
	tn.afterMap = func(f *os.File) {
		if f.Name() == big {
			os.Truncate(big, 0)
		}
	}
	tn.mapInputs = mapAlways
	for _, cmd := range []string{"validate", "split", "extract"} {
		os.WriteFile(big, bytes.Repeat([]byte("http://a.example/x\n"), 100000), 0o644)
		code, out, errs := cliT(t, tn, "", cmd, "--workers", "2", big, next)
		if code != 2 || !strings.Contains(errs, big+": the file changed while it was read") || (cmd != "validate" && !strings.Contains(out, "http://after/")) {
			t.Errorf("%s: exit %d, stderr %.300q, stdout ends %q", cmd, code, errs, out[max(0, len(out)-100):])
		}
	}
}

// TestMapWhenBusy: plain files are mapped when the workers use every CPU,
// and read when one is to spare (read(2) copies on it, which is faster).
func TestMapWhenBusy(t *testing.T) {
	f := writeFile(t, "a.txt", "http://a/\n")
	for _, tc := range []struct {
		workers int
		mapped  int64
	}{{runtime.GOMAXPROCS(0) - 1, 0}, {runtime.GOMAXPROCS(0), 1}, {runtime.GOMAXPROCS(0) + 1, 1}} {
		if tc.workers < 1 {
			continue
		}
		var mapped atomic.Int64
		tn := defaultTuning()
		tn.afterMap = func(*os.File) { mapped.Add(1) }
		if code, out, _ := cliT(t, tn, "", "split", "--workers", strconv.Itoa(tc.workers), f); code != 0 || !strings.Contains(out, `"host":"a"`) {
			t.Fatalf("--workers %d: exit %d, %q", tc.workers, code, out)
		}
		if n := mapped.Load(); n != tc.mapped {
			t.Errorf("--workers %d with %d CPUs: %d inputs mapped, want %d", tc.workers, runtime.GOMAXPROCS(0), n, tc.mapped)
		}
	}
}
