package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestDedupStoreRefusals: a persistent store opened with another key,
// another level, or no key at all is refused with a message that says
// what differs; a store in use by another process says so in one line.
func TestDedupStoreRefusals(t *testing.T) {
	dir := t.TempDir()
	key1, key2 := filepath.Join(dir, "k1"), filepath.Join(dir, "k2")
	os.WriteFile(key1, []byte(strings.Repeat("11", 32)), 0o600)
	os.WriteFile(key2, []byte(strings.Repeat("22", 32)), 0o600)
	store := "disk:" + filepath.Join(dir, "seen")
	if code, out, errs := cli(t, "http://a/\n", "dedup", "--store", store, "--key-file", key1); code != 0 || out != "http://a/\n" {
		t.Fatalf("first run: exit %d %q %q", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--key-file", key2}, "was made with --key-file (the key whose fingerprint is "},
		{[]string{"--key-file", key1, "--level", "crawler"}, "was made with --level scheme; this run has --level crawler: rerun with the store's, or use another store"},
		{nil, "needs --key-file"},
	} {
		code, out, errs := cli(t, "http://b/\n", append([]string{"dedup", "--store", store}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, out %q, stderr %q, want %q", tc.args, code, out, errs, tc.want)
		}
	}
	// The store still holds only what the first run wrote.
	if _, out, _ := cli(t, "http://a/\nhttp://b/\n", "dedup", "--store", store, "--key-file", key1); out != "http://b/\n" {
		t.Errorf("after the refusals: %q", out)
	}
	// In use: hold the store open in a child that blocks on its input,
	// once it has decided a line (so it holds the store).
	cmd := child(t, dir, "dedup", "--store", store, "--key-file", key1)
	w, _ := cmd.StdinPipe()
	r, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close(); cmd.Wait() }()
	io.WriteString(w, "http://held/\n")
	buf := make([]byte, 64)
	if n, err := r.Read(buf); err != nil || string(buf[:n]) != "http://held/\n" {
		t.Fatalf("holder: %q %v", buf[:n], err)
	}
	code, _, errs := cli(t, "", "dedup", "--store", store, "--key-file", key1)
	if code != 2 || !strings.Contains(errs, "in use by another process") || strings.Count(errs, "\n") != 1 {
		t.Errorf("store in use: exit %d, %q", code, errs)
	}
}

// TestDedupRedisURL: a password in the store URL never reaches the
// output, and a malformed URL is refused.
func TestDedupRedisURL(t *testing.T) {
	dir := t.TempDir()
	key := filepath.Join(dir, "k")
	os.WriteFile(key, []byte(strings.Repeat("33", 32)), 0o600)
	for _, spec := range []string{"redis://:s3cr3t-pw@127.0.0.1:1/2", "redis://user:s3cr3t-pw@127.0.0.1:1,127.0.0.1:2", "rediss://:s3cr3t-pw@127.0.0.1:1"} {
		code, out, errs := cli(t, "http://a/\n", "dedup", "--store", spec, "--key-file", key)
		if code != 2 || out != "" || strings.Contains(errs, "s3cr3t") || !strings.Contains(errs, "***") {
			t.Errorf("%s: exit %d, stderr %q", spec, code, errs)
		}
	}
	// No host: refused, not taken for the server on this machine.
	if code, out, errs := cli(t, "http://a/\n", "dedup", "--store", "redis://:s3cr3t-pw@/0", "--key-file", key); code != 2 || out != "" ||
		!strings.Contains(errs, "redis://:***@/0: the URL names no host") || strings.Contains(errs, "s3cr3t") || strings.Count(errs, "\n") != 1 {
		t.Errorf("a URL without a host: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	for _, spec := range []string{"redis://127.0.0.1:6379,", "redis://h:notaport"} {
		if code, _, errs := cli(t, "", "dedup", "--store", spec, "--key-file", key); code != 2 || !strings.Contains(errs, spec+": ") || strings.Count(errs, "\n") != 1 {
			t.Errorf("%s: exit %d, stderr %q", spec, code, errs)
		}
	}
}

// TestDedupSignals: SIGTERM while dedup waits for input, and SIGINT in the
// middle of a file, flush the output, commit, print the summary and exit
// 143 and 130; a rerun then completes the output exactly once.
func TestDedupSignals(t *testing.T) {
	if testing.Short() {
		t.Skip("signals child processes")
	}
	dir := t.TempDir()
	key := writeKey(t, dir)
	cmd := child(t, dir, "dedup", "--store", "disk:"+filepath.Join(dir, "seen"), "--key-file", key, "--checkpoint", "ckpt")
	w, _ := cmd.StdinPipe()
	r, _ := cmd.StdoutPipe()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for i := range 3000 {
		fmt.Fprintf(w, "http://h/%d\n", i%2000)
	}
	// All 2000 new lines arrive before dedup blocks on its input again.
	got := make([]byte, 0, 1<<16)
	buf := make([]byte, 4096)
	for strings.Count(string(got), "\n") < 2000 {
		n, err := r.Read(buf)
		if err != nil {
			t.Fatalf("after %d lines: %v", strings.Count(string(got), "\n"), err)
		}
		got = append(got, buf[:n]...)
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGTERM)
	rest, _ := io.ReadAll(r)
	err := cmd.Wait()
	if !isExit(err, 143) || len(rest) != 0 || !strings.Contains(errb.String(), "lines 3000, blank 0, invalid 0, unique 2000, duplicates 1000") ||
		!strings.Contains(errb.String(), "interrupted by SIGTERM") {
		t.Fatalf("SIGTERM: %v, %d more bytes, stderr %q", err, len(rest), errb.String())
	}
	c, ok, err := readCheckpoint(filepath.Join(dir, "ckpt"))
	if !ok || err != nil || c.Next.Line != 3000 || c.Tally.Unique != 2000 {
		t.Fatalf("checkpoint after SIGTERM: %+v %v %v", c, ok, err)
	}

	// SIGINT in the middle of a file.
	input := killInput(t, dir, 200000)
	want, summary := reference(t, input)
	args := []string{"dedup", "--output", "out.txt", "--store", "disk:" + filepath.Join(dir, "seen2"), "--key-file", key, "--batch", "64", input}
	cmd = child(t, dir, args...)
	errb.Reset()
	cmd.Stderr = &errb
	cmd.Start()
	waitGrow(t, filepath.Join(dir, "out.txt"), 1)
	cmd.Process.Signal(syscall.SIGINT)
	if err := cmd.Wait(); !isExit(err, 130) || !strings.Contains(errb.String(), "uriscan: dedup: lines ") || !strings.Contains(errb.String(), "interrupted by SIGINT") {
		t.Fatalf("SIGINT: %v, stderr %q", err, errb.String())
	}
	cmd = child(t, dir, args...)
	errb.Reset()
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil && !isExit(err, 1) {
		t.Fatal(err)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(out) != want ||
		strings.TrimSuffix(lastLine(errb.String()), " (resumed from out.txt.checkpoint)") != summary {
		t.Fatalf("after SIGINT and a rerun: %d lines, want %d; %q", len(lines(string(out))), len(lines(want)), lastLine(errb.String()))
	}
}

// TestBoundedMemory: a single huge line, random bytes, '%' and newlines
// go through every command with a peak RSS under 64 MB, the right exit
// status and the lines after them read. 64 MiB each here (16 MiB of
// newlines); the README gives the figures for 1 GiB. Then lines just under
// the default --max-line through every command, level and format, and
// extract over a long run of URI bytes (see boundedLongLines and
// boundedExtractRun).
func TestBoundedMemory(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("writes 64 MiB inputs; measures memory, which the race detector multiplies")
	}
	dir := t.TempDir()
	const size = 64 << 20
	inputs := map[string]func(p []byte){
		"line":     func(p []byte) { fill(p, 'a') },
		"percent":  func(p []byte) { fill(p, '%') },
		"newlines": func(p []byte) { fill(p, '\n') }, // 16 MiB of them: split writes 150 bytes each
		"random":   func(p []byte) { r := rand.NewChaCha8([32]byte{}); r.Read(p) },
	}
	for name, gen := range inputs {
		p := make([]byte, size)
		if name == "newlines" {
			p = p[:16<<20]
		}
		gen(p)
		f := filepath.Join(dir, name)
		os.WriteFile(f, append(append([]byte("http://before/\n"), p...), "\nhttp://after/\n"...), 0o644)
	}
	for name := range inputs {
		for _, c := range [][]string{{"validate"}, {"split"}, {"normalize"}, {"dedup"}} {
			cmd := child(t, dir, append(c, filepath.Join(dir, name))...)
			statusFile := filepath.Join(dir, "status")
			cmd.Env = append(cmd.Env, envCLIPeak+"="+statusFile)
			var out countWriter
			var errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			rss := peakRSS(t, statusFile)
			wantCode := 1
			if name == "newlines" {
				wantCode = 0 // blank lines are valid URI-references (and skipped by dedup)
			}
			code := 0
			if err != nil {
				code = err.(interface{ ExitCode() int }).ExitCode()
			}
			if code != wantCode || rss > maxPeakRSS || (c[0] != "validate" && !bytes.Contains(out.tail, []byte("after"))) {
				t.Errorf("%s %s: exit %d (want %d), peak RSS %d MB, output ends %q, stderr %.300q", c[0], name, code, wantCode, rss>>20, out.tail, errb.String())
			}
			t.Logf("%-9s %-8s exit %d, peak RSS %2d MB, %d output bytes", c[0], name, code, rss>>20, out.n)
		}
	}
	t.Run("long lines", func(t *testing.T) { boundedLongLines(t, dir) })
	t.Run("extract run", func(t *testing.T) { boundedExtractRun(t, dir) })
}

// maxPeakRSS is the peak resident set a child may reach: the binary's own
// pages (20-28 MB of a test binary just linked) and what the command holds.
const maxPeakRSS = 64 << 20

// boundedLongLines: lines just under the default --max-line of the bytes
// each command, level and format expands most (tabs and quotes JSON
// escapes as \t and \", control bytes as \u00XX: 6 times; bytes that are
// not UTF-8 or not ASCII, and '%', which the levels percent-encode: 3
// times; 350,000 query parameters to sort; 87,000 URIs or 116,000
// rejections a line to extract) keep every command under maxPeakRSS with
// one worker and two. Before the output and the long lines were bounded,
// split took 106-178 MB here, surt 144-181, extract --rejects 107.
func boundedLongLines(t *testing.T, dir string) {
	const n = 1<<20 - 64 // bytes per line: under uriscan.DefaultMaxLine
	rep := func(prefix, unit string) []byte {
		b := append(make([]byte, 0, n), prefix...)
		for len(b) < n {
			b = append(b, unit...)
		}
		return b[:n]
	}
	kinds := [][]byte{
		rep("", "\t"),                     // split: \t, and invalid
		rep("", "\x01"),                   // JSON: \u0001 (6x), TSV: \x01
		rep("http://a/", "\xe9"),          // not UTF-8: %E9 (3x), base64
		rep("http://a/", "é"),             // %C3%A9
		rep("", "%"),                      // %25
		rep("http://a/", "\""),            // \" and %22
		rep("HTTP://A.COM/", "%2f%AA%7e"), // decoded, re-encoded, cased
		rep("http://a.com/?", "a=&"),      // parameters to sort
		rep("see ", "http://a.b/ "),       // URIs to extract, each a record
		rep("", "http://[ "),              // extract --rejects: each reported
	}
	var b bytes.Buffer
	b.WriteString("http://before/\n")
	for range 2 {
		for _, k := range kinds {
			for range 3 {
				b.Write(k)
				b.WriteByte('\n')
			}
		}
	}
	b.WriteString("http://after/\n")
	file := filepath.Join(dir, "long-lines")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	b = bytes.Buffer{}
	key := writeKey(t, dir)
	cmds := [][]string{
		{"validate"}, {"split"}, {"split", "--format", "tsv"}, {"split", "--flags"},
		{"split", "--format", "tsv", "--flags"}, {"resolve", "--base", "http://a/b/c"},
		{"normalize"}, {"normalize", "--level", "crawler"}, {"normalize", "--level", "safebrowsing"},
		{"normalize", "--level", "w3lib"}, {"normalize", "--format", "surt"},
		{"normalize", "--format", "jsonl", "--key-file", key}, {"normalize", "--repair"},
		{"extract"}, {"extract", "--format", "jsonl"}, {"extract", "--format", "tsv"}, {"extract", "--rejects"},
		{"dedup"}, {"dedup", "--level", "crawler"}, {"dedup", "--level", "safebrowsing"},
		{"dedup", "--level", "w3lib"}, {"dedup", "--extract"},
	}
	for _, c := range cmds {
		for _, w := range []string{"1", "2"} {
			args := append(slices.Clip(c), "--workers", w)
			code, rss, out, errs := peakRun(t, dir, append(args, file)...)
			name := strings.ReplaceAll(strings.Join(args, " "), key, "KEY")
			if code > 1 || rss > maxPeakRSS || (c[0] != "validate" && !bytes.Contains(out.tail, []byte("after"))) {
				t.Errorf("%s: exit %d, peak RSS %d MB, output ends %q, stderr %.300q", name, code, rss>>20, out.tail, errs)
			}
			t.Logf("%-46s exit %d, peak RSS %2d MB, %d output bytes", name, code, rss>>20, out.n)
		}
	}
}

// boundedExtractRun: extract with two workers over a file holding a 256
// MiB run of URI bytes keeps what is resident bounded: the reader skips
// the run (keeping its last 64 KiB, as uriscan.ExtractScanner does); it
// took the size of the run before.
func boundedExtractRun(t *testing.T, dir string) {
	file := filepath.Join(dir, "run")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	block := bytes.Repeat([]byte("a"), 1<<20)
	f.WriteString("see http://before/ and http://")
	for range 256 {
		f.Write(block)
	}
	f.WriteString(" and http://after/\n")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(file)
	for _, format := range []string{"text", "jsonl"} {
		code, rss, out, errs := peakRun(t, dir, "extract", "--workers", "2", "--format", format, file)
		if code != 0 || rss > maxPeakRSS || !bytes.Contains(out.tail, []byte("http://after/")) || out.lines != 2 {
			t.Errorf("extract --format %s: exit %d, peak RSS %d MB, %d output lines ending %q, stderr %.300q", format, code, rss>>20, out.lines, out.tail, errs)
		}
		t.Logf("extract --workers 2 --format %-5s (256 MiB run): exit %d, peak RSS %2d MB", format, code, rss>>20)
	}
}

// peakRun runs "uriscan ARGS..." in a child process with two CPUs (so that
// --workers 2 maps a file: see mapInput) and returns its exit status, its
// peak resident set, its output (counted) and standard error.
func peakRun(t *testing.T, dir string, args ...string) (code int, rss int64, out *countWriter, errs string) {
	t.Helper()
	cmd := child(t, dir, args...)
	statusFile := filepath.Join(dir, "status")
	cmd.Env = append(cmd.Env, envCLIPeak+"="+statusFile, "GOMAXPROCS=2")
	out = &countWriter{}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = out, &errb
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatal(err)
		}
		code = ee.ExitCode()
	}
	return code, peakRSS(t, statusFile), out, errb.String()
}

// peakRSS reads VmHWM, in bytes, from a saved /proc/PID/status.
func peakRSS(t *testing.T, name string) int64 {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" && f[2] == "kB" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("%s: no VmHWM", name)
	return 0
}

func fill(p []byte, b byte) {
	for i := range p {
		p[i] = b
	}
}

// countWriter counts what it is given (bytes and lines) and keeps the
// last bytes.
type countWriter struct {
	n, lines int64
	tail     []byte
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.lines += int64(bytes.Count(p, []byte{'\n'}))
	w.tail = append(w.tail, p...)
	if len(w.tail) > 256 {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-256:]...)
	}
	return len(p), nil
}
