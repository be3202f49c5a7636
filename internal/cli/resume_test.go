package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// sigReader hands out data in two halves and "delivers" a signal (sets
// e.sig as the signal goroutine does) in its first Read.
type sigReader struct {
	e    *env
	data []byte
	n    int
}

func (r *sigReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	r.n++
	if r.n == 1 {
		r.e.sig.Store(int32(syscall.SIGINT))
	}
	k := min(len(p), len(r.data), len(r.data)/2+1)
	copy(p, r.data[:k])
	r.data = r.data[k:]
	return k, nil
}

// TestDedupSignalDuringReplay: a signal while a resumed run re-reads the
// last batch stops it quietly (130), not as an input that does not match
// the checkpoint.
func TestDedupSignalDuringReplay(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	var in strings.Builder
	for i := range 200 {
		in.WriteString("http://h/" + string(rune('a'+i%26)) + "/" + string(rune('a'+i/26)) + "\n")
	}
	// Run 1: one batch (Batch = 0, Next = end), to completion.
	code, _, stderr := cli(t, in.String(), "dedup", "--output", out)
	if code != 0 {
		t.Fatal(code, stderr)
	}
	// Run 2: resumes, replays the batch, and a SIGINT arrives meanwhile.
	var o, eb bytes.Buffer
	e := newTestEnv(nil, &o, &eb)
	e.stdin = &sigReader{e: e, data: []byte(in.String())}
	code = e.run([]string{"dedup", "--output", out})
	if code != 130 || strings.Contains(eb.String(), "checkpoint's position") || strings.Contains(eb.String(), "stopped") {
		t.Errorf("exit %d, stderr:\n%s", code, eb.String())
	}
}

// TestDedupExitStatusAfterResume: a resumed run exits as the uninterrupted
// one would: 1 for an invalid line decided before the resume, 2 for an
// input that could not be read.
func TestDedupExitStatusAfterResume(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte("http://a b/\nhttp://a/\nhttp://b/\nhttp://c/\nhttp://d/\n"), 0o644)
	out := filepath.Join(dir, "out.txt")
	c1, _, e1 := cli(t, "", "dedup", "--output", out, "--batch", "2", in)
	c2, _, e2 := cli(t, "", "dedup", "--output", out, "--batch", "2", in)
	if c1 != 1 || c2 != 1 {
		t.Errorf("exit %d uninterrupted, %d after a resume, for the same counts:\n%s\n%s", c1, c2, e1, e2)
	}
	// A missing input: the batch does not span it, a rerun (once it
	// exists) completes, and says what the run before could not read.
	a, b, c := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt"), filepath.Join(dir, "c.txt")
	os.WriteFile(a, []byte("http://a/\n"), 0o644)
	os.WriteFile(c, []byte("http://c/\n"), 0o644)
	out2 := filepath.Join(dir, "out2.txt")
	if code, _, errs := cli(t, "", "dedup", "--output", out2, a, b, c); code != 2 || !strings.Contains(errs, "b.txt") {
		t.Fatalf("missing input: exit %d, %q", code, errs)
	}
	os.WriteFile(b, []byte("http://b/\n"), 0o644)
	code, _, errs := cli(t, "", "dedup", "--output", out2, a, b, c)
	got, _ := os.ReadFile(out2)
	if code != 2 || !strings.Contains(errs, "(before the resume)") || string(got) != "http://a/\nhttp://c/\n" {
		t.Errorf("rerun: exit %d, output %q, stderr %q", code, got, errs)
	}
}

// hookReader returns one chunk per Read and runs hook before the second.
type hookReader struct {
	chunks []string
	hook   func()
	n      int
}

func (r *hookReader) Read(p []byte) (int, error) {
	r.n++
	if r.n == 2 && r.hook != nil {
		r.hook()
	}
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks = r.chunks[1:]
	return n, nil
}

// TestDedupCheckpointFailure: when the checkpoint cannot be written, the
// batch is not decided: the summary does not count it and says where the
// input is decided up to, as the checkpoint does. (One worker, which
// decides its batch before each read: the first read's lines are
// decided before the hook runs.)
func TestDedupCheckpointFailure(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	ckpt := out + ".checkpoint"
	var before testCheckpoint
	r := &hookReader{chunks: []string{"http://a/\nhttp://b/\n", "http://c/\nhttp://d/\n"}}
	r.hook = func() {
		// The checkpoint of the first batch, then a directory where the
		// next one would be renamed to: its write fails.
		before, _, _ = readCheckpoint(ckpt)
		os.Remove(ckpt)
		os.MkdirAll(filepath.Join(ckpt, "x"), 0o755)
	}
	var o, eb bytes.Buffer
	e := newTestEnv(r, &o, &eb)
	code := e.run([]string{"dedup", "--workers", "1", "--output", out})
	if code != 2 || before.Next.Line != 2 || !strings.Contains(eb.String(), "lines 2, blank 0, invalid 0, unique 2") ||
		!strings.Contains(eb.String(), "decided up to <stdin>:2; 2 lines read after it were not decided") {
		t.Errorf("exit %d, checkpoint at line %d, stderr:\n%s", code, before.Next.Line, eb.String())
	}
}

// TestDedupChangedInput: a resume over an input that is not the one the
// checkpoint was made for (here: the same line lengths, other lines) is
// refused, not taken as decided.
func TestDedupChangedInput(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "day.txt"), filepath.Join(dir, "out.txt")
	os.WriteFile(in, []byte("http://a1/\nhttp://a2/\nhttp://a3/\nhttp://a4/\n"), 0o644)
	if code, _, errs := cli(t, "", "dedup", "--output", out, in); code != 0 {
		t.Fatalf("exit %d %q", code, errs)
	}
	// The same input again: nothing to do, nothing written twice.
	if code, _, errs := cli(t, "", "dedup", "--output", out, in); code != 0 || !strings.Contains(errs, "unique 4") {
		t.Fatalf("rerun: exit %d %q", code, errs)
	}
	os.WriteFile(in, []byte("http://b1/\nhttp://b2/\nhttp://b3/\nhttp://b4/\nhttp://b5/\n"), 0o644)
	code, _, errs := cli(t, "", "dedup", "--output", out, in)
	got, _ := os.ReadFile(out)
	if code != 2 || !strings.Contains(errs, "the input changed since the checkpoint") || string(got) != "http://a1/\nhttp://a2/\nhttp://a3/\nhttp://a4/\n" {
		t.Fatalf("changed input: exit %d, output %q, stderr %q", code, got, errs)
	}
}

// TestDedupOutputLocked: a second run on the same --output while the
// first is running is refused.
func TestDedupOutputLocked(t *testing.T) {
	dir := t.TempDir()
	cmd := child(t, dir, "dedup", "--output", "out.txt")
	w, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close(); cmd.Wait() }()
	io.WriteString(w, "http://a/\n")
	waitGrow(t, filepath.Join(dir, "out.txt"), 10)
	code, _, errs := cli(t, "http://b/\n", "dedup", "--output", filepath.Join(dir, "out.txt"))
	if code != 2 || !strings.Contains(errs, "is in use by another run") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
}
