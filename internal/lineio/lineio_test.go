package lineio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// tsink is the test command's sink: its output and messages, and the
// numbers of the lines it holds (for the decisions).
type tsink struct {
	out, err []byte
	lines    []int
	decided  bool
}

func (k *tsink) Size() int    { return len(k.out) + len(k.err) }
func (k *tsink) Out() *[]byte { return &k.out }
func (k *tsink) Reset() {
	k.out, k.err, k.lines, k.decided = k.out[:0], k.err[:0], k.lines[:0], false
}
func (k *tsink) Trim(max int) {
	if cap(k.err) > max {
		k.err = nil
	}
}

// upper is a trivial command: each line as "NAME:LINE:OFFSET:LINE IN
// UPPER CASE" (a line over maxLine as "NAME:LINE:OFFSET:LONG N"), its
// messages as "ERR MSG".
type upper struct {
	maxLine  int
	out, err bytes.Buffer
	ends     []int
	// held is the output made and not yet committed, most its peak.
	held, most atomic.Int64
}

func (u *upper) NewSink() tsink { return tsink{} }

func (u *upper) Worker(int) func(c *Chunk[tsink]) {
	return func(c *Chunk[tsink]) {
		data, off, line := c.Data, c.Off, c.Line
		for len(data) > 0 {
			l, next := data, len(data)
			if i := bytes.IndexByte(data, '\n'); i >= 0 {
				l, next = data[:i], i+1
			}
			line++
			n := len(c.K.out)
			c.K.out = appendLine(c.K.out, c.Name, line, off, l, u.maxLine)
			c.K.lines = append(c.K.lines, line)
			u.grow(len(c.K.out) - n)
			data, off = data[next:], off+int64(next)
			c.HandOver()
		}
	}
}

func (u *upper) grow(n int) {
	h := u.held.Add(int64(n))
	for m := u.most.Load(); h > m && !u.most.CompareAndSwap(m, h); m = u.most.Load() {
	}
}

func appendLine(b []byte, name string, line int, off int64, l []byte, maxLine int) []byte {
	b = fmt.Appendf(b, "%s:%d:%d:", name, line, off)
	if len(l) > maxLine {
		return fmt.Appendf(b, "LONG %d\n", len(l))
	}
	return append(append(b, bytes.ToUpper(l)...), '\n')
}

func (u *upper) Commit(k *tsink, input int) bool {
	u.held.Add(-int64(len(k.out)))
	u.out.Write(k.out)
	u.err.Write(k.err)
	return false
}

func (u *upper) LongLine(k *tsink, name string, r io.Reader, off int64, line int) bool {
	l, err := io.ReadAll(r)
	if err != nil {
		u.InputError(k, name+": "+err.Error(), false)
		return false
	}
	l = bytes.TrimSuffix(l, []byte("\n"))
	k.out = fmt.Appendf(k.out, "%s:%d:%d:LONG %d\n", name, line+1, off, len(l))
	k.lines = append(k.lines, line+1)
	return true
}

func (u *upper) InputError(k *tsink, msg string, halt bool) {
	k.err = fmt.Appendf(k.err, "ERR %s\n", msg)
}

func (u *upper) Note(k *tsink, note string) { k.err = append(k.err, note...) }

// ender is upper, told of each input's end.
type ender struct{ *upper }

func (e ender) EndInput(input int) bool {
	e.ends = append(e.ends, input)
	return false
}

// want is what upper writes for input name: the reference, line by line.
func want(name string, in []byte, maxLine int) string {
	var b []byte
	off := int64(0)
	for i, l := range bytes.SplitAfter(in, []byte("\n")) {
		if len(l) == 0 {
			break
		}
		line := bytes.TrimSuffix(l, []byte("\n"))
		b = appendLine(b, name, i+1, off, line, maxLine)
		off += int64(len(l))
	}
	return string(b)
}

// input makes n lines: short ones, blank ones, and some over maxLine.
func input(rng *rand.Rand, n, maxLine int, last bool) []byte {
	var b bytes.Buffer
	for i := range n {
		switch rng.IntN(10) {
		case 0:
		case 1:
			b.WriteString(strings.Repeat("long", maxLine/4+rng.IntN(3*maxLine)))
		default:
			b.WriteString(fmt.Sprintf("http://a.example/%d?%s", i, strings.Repeat("q", rng.IntN(maxLine/2))))
		}
		if i < n-1 || !last {
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}

// files is a Source of files, mappable.
type files []string

func (f files) Len() int { return len(f) }
func (f files) Open(i int) (Input, error) {
	fh, err := os.Open(f[i])
	if err != nil {
		return Input{Name: f[i]}, err
	}
	return Input{Name: f[i], R: fh, Close: fh.Close}, nil
}

// readers is a Source of readers, none mappable.
type readers []io.Reader

func (r readers) Len() int { return len(r) }
func (r readers) Open(i int) (Input, error) {
	return Input{Name: fmt.Sprint("r", i), R: r[i]}, nil
}

func run(cfg Config, src Source) (*upper, Stats) {
	u := &upper{maxLine: cfg.MaxLine}
	st := Run[tsink](cfg, src, ender{u})
	return u, st
}

// TestSameOutput: upper's output is the reference, line numbers and
// offsets right, whatever the workers (1 to 4), the chunk and piece sizes
// (a chunk boundary everywhere), lines over MaxLine
// (LongLine) and an unterminated last line.
func TestSameOutput(t *testing.T) {
	const maxLine = 100
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	var names []string
	var wantOut string
	for i, in := range [][]byte{input(rng, 800, maxLine, true), {}, input(rng, 300, maxLine, false), []byte("x")} {
		name := filepath.Join(dir, fmt.Sprint(i, ".txt"))
		os.WriteFile(name, in, 0o644)
		names = append(names, name)
		wantOut += want(name, in, maxLine)
	}
	for _, size := range []int{16, 100, 1000, 64 << 10} {
		for _, piece := range []int{1, 200, 1 << 20} {
			for workers := 1; workers <= 4; workers++ {
				cfg := Config{Workers: workers, ChunkSize: size, PieceSize: piece, MaxLine: maxLine}
				u, _ := run(cfg, files(names))
				if got := u.out.String(); got != wantOut || u.err.Len() > 0 {
					t.Fatalf("chunks %d, pieces %d, %d workers: stderr %q, %s", size, piece, workers, u.err.String(), diff(got, wantOut))
				}
				if fmt.Sprint(u.ends) != "[0 1 2 3]" {
					t.Errorf("EndInput told of %v", u.ends)
				}
			}
		}
	}
}

// diff says where got first differs from want.
func diff(got, want string) string {
	g, w := strings.SplitAfter(got, "\n"), strings.SplitAfter(want, "\n")
	for i := range min(len(g), len(w)) {
		if g[i] != w[i] {
			return fmt.Sprintf("line %d: %q, want %q", i+1, g[i], w[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(g), len(w))
}

// failing reads in and then fails.
func failing(in []byte, at int) io.Reader {
	return io.MultiReader(bytes.NewReader(in[:at]), errReader{errors.New("disk on fire")})
}

// TestReadError: a read error midway gives every whole line before it,
// then the error (a cut last line is not taken), whatever the workers.
func TestReadError(t *testing.T) {
	const maxLine = 1000 // (no line over it)
	in := input(rand.New(rand.NewPCG(3, 4)), 400, 4*maxLine, false)
	in = bytes.ReplaceAll(in, []byte("long"), nil)
	for _, at := range []int{0, 1, 100, bytes.IndexByte(in[200:], '\n') + 201, len(in) / 2, len(in) - 1} {
		whole := bytes.LastIndexByte(in[:at], '\n') + 1
		wantOut := want("r0", in[:whole], maxLine)
		for workers := 1; workers <= 4; workers++ {
			u, _ := run(Config{Workers: workers, ChunkSize: 64, PieceSize: 100, MaxLine: maxLine}, readers{failing(in, at)})
			errs := u.err.String()
			cut := at > whole
			if u.out.String() != wantOut || !strings.Contains(errs, "disk on fire") || cut != strings.Contains(errs, "was cut short") {
				t.Errorf("error at %d, %d workers: stderr %q, %s", at, workers, errs, diff(u.out.String(), wantOut))
			}
			if line := fmt.Sprintf("r0:%d: the last line", bytes.Count(in[:at], []byte("\n"))+1); cut && !strings.Contains(errs, line) {
				t.Errorf("error at %d: stderr %q, want %q", at, errs, line)
			}
		}
	}
}

// TestRecords: a Source of records that is no file gives the lines the
// same text would; an error from it ends the input as a read error.
func TestRecords(t *testing.T) {
	const maxLine = 100
	in := input(rand.New(rand.NewPCG(5, 6)), 500, maxLine, false)
	recs := bytes.Split(bytes.TrimSuffix(in, []byte("\n")), []byte("\n"))
	next := func(end error) func() ([]byte, error) {
		i := 0
		return func() ([]byte, error) {
			if i == len(recs) {
				return nil, end
			}
			i++
			return recs[i-1], nil
		}
	}
	for workers := 1; workers <= 3; workers++ {
		cfg := Config{Workers: workers, ChunkSize: 50, PieceSize: 64, MaxLine: maxLine}
		u, st := run(cfg, Records("broker", next(io.EOF)))
		if got, w := u.out.String(), want("broker", in, maxLine); got != w || u.err.Len() > 0 || st.Bytes != int64(len(in)) {
			t.Errorf("%d workers: %d bytes read, stderr %q, %s", workers, st.Bytes, u.err.String(), diff(got, w))
		}
		u, _ = run(cfg, Records("broker", next(errors.New("broker gone"))))
		if got, w := u.out.String(), want("broker", in, maxLine); got != w || u.err.String() != "ERR broker: broker gone\n" {
			t.Errorf("%d workers, an error: stderr %q, %s", workers, u.err.String(), diff(got, w))
		}
	}
}

// decider is upper deciding its sinks in order: decided holds the
// lines' numbers in the order they were decided.
type decider struct {
	ender
	mu      sync.Mutex
	decided []int
}

func (d *decider) Decide(k *tsink, input int) {
	d.mu.Lock()
	d.decided = append(d.decided, k.lines...)
	d.mu.Unlock()
	k.decided = true
}

func (d *decider) Undecided(k *tsink) bool { return !k.decided && len(k.lines) > 0 }

// TestDecide: Decide sees every line once, in input order, whatever the
// workers; the workers decide whole chunks, the writer the pieces.
func TestDecide(t *testing.T) {
	const maxLine = 200
	in := input(rand.New(rand.NewPCG(7, 8)), 3000, maxLine, false)
	in = bytes.ReplaceAll(in, []byte("long"), nil) // (a long line's chunk is the writer's)
	for _, piece := range []int{64, 2048, 1 << 20} {
		for workers := 1; workers <= 4; workers++ {
			d := &decider{ender: ender{&upper{maxLine: maxLine}}}
			st := Run[tsink](Config{Workers: workers, ChunkSize: 512, PieceSize: piece, MaxLine: maxLine}, readers{bytes.NewReader(in)}, d)
			n := bytes.Count(in, []byte("\n"))
			for i, l := range d.decided {
				if l != i+1 {
					t.Fatalf("pieces of %d, %d workers: line %d decided %dth (of %d)", piece, workers, l, i+1, len(d.decided))
				}
			}
			if len(d.decided) != n {
				t.Fatalf("pieces of %d, %d workers: %d lines decided, want %d", piece, workers, len(d.decided), n)
			}
			t.Logf("pieces of %d, %d workers: decided by the workers %d, by the writer %d", piece, workers, st.DecidedByWorkers, st.DecidedByWriter)
			if piece == 1<<20 && st.DecidedByWriter != 0 || piece == 64 && st.DecidedByWriter < 10 {
				t.Errorf("pieces of %d: %d sinks decided by the writer", piece, st.DecidedByWriter)
			}
		}
	}
}

// TestBoundedOutput: lines whose output is 200 times their size are held
// a piece at a time: what the workers made and the writer has not
// committed stays within the pieces in flight, not the chunks' whole
// output (here 2 MB a chunk).
func TestBoundedOutput(t *testing.T) {
	in := bytes.Repeat([]byte("abcd\n"), 200000)
	u := &upper{maxLine: 100}
	big := &bigger{ender{u}}
	Run[tsink](Config{Workers: 4, ChunkSize: 10000, PieceSize: 4096, MaxLine: 100}, readers{bytes.NewReader(in)}, big)
	if n := u.out.Len(); n != 200000*1000 {
		t.Fatalf("%d bytes of output, want %d", n, 200000*1000)
	}
	if most := u.most.Load(); most > 1<<20 {
		t.Errorf("%d bytes of output held at once, want under 1 MiB", most)
	}
	t.Logf("most output held at once: %d bytes", u.most.Load())
}

// bigger writes each line as 1000 bytes.
type bigger struct{ ender }

func (b *bigger) Worker(int) func(c *Chunk[tsink]) {
	return func(c *Chunk[tsink]) {
		for range bytes.Count(c.Data, []byte("\n")) {
			c.K.out = append(c.K.out, bytes.Repeat([]byte("x"), 1000)...)
			b.grow(1000)
			c.HandOver()
		}
	}
}
