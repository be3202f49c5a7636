package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/internal/testfs"
)

// runChild runs the child to its end and returns its exit status and
// standard error.
func runChild(t *testing.T, cmd *exec.Cmd) (int, string) {
	t.Helper()
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err := cmd.Run()
	if err == nil {
		return 0, errb.String()
	}
	ee, ok := err.(*exec.ExitError)
	if !ok {
		t.Fatal(err)
	}
	return ee.ExitCode(), errb.String()
}

// unchangedFiles reads the files now; the function it returns fails the
// test if any of them changed since.
func unchangedFiles(t *testing.T, names ...string) func(when string) {
	t.Helper()
	before := make([][]byte, len(names))
	for i, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		before[i] = b
	}
	return func(when string) {
		t.Helper()
		for i, name := range names {
			if after, _ := os.ReadFile(name); !bytes.Equal(before[i], after) {
				t.Fatalf("%s: %s changed (%d bytes, were %d)", when, filepath.Base(name), len(after), len(before[i]))
			}
		}
	}
}

// grepLine returns the first line of s that contains sub.
func grepLine(s, sub string) string {
	for _, l := range lines(s) {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}

// killAfter starts the child, waits until name holds n bytes, and kills
// it with SIGKILL.
func killAfter(t *testing.T, cmd *exec.Cmd, name string, n int64) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitGrow(t, name, n)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
}

// wantPrefix fails unless the output file is a prefix of want that ends
// at a line end: what a stopped run wrote, exactly once.
func wantPrefix(t *testing.T, name, want, when string) int {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(want, string(got)) || len(got) > 0 && got[len(got)-1] != '\n' {
		t.Fatalf("%s: the output (%d bytes) is not a prefix of the uninterrupted run's", when, len(got))
	}
	return len(got)
}

// wantComplete fails unless the output file is what an uninterrupted run
// writes, and the summary its summary.
func wantComplete(t *testing.T, name, want, summary, errs, when string) {
	t.Helper()
	got, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		gl, wl := lines(string(got)), lines(want)
		t.Fatalf("%s: %d lines, want %d; %s", when, len(gl), len(wl), firstDifference(gl, wl))
	}
	if s := strings.TrimSuffix(lastLine(errs), " (resumed from out.txt.checkpoint)"); s != summary {
		t.Fatalf("%s: summary %q, want %q", when, s, summary)
	}
}

// TestDedupRedisForgets: a Redis server without persistence killed and
// restarted (empty) in the middle of a run. The run stops (exit 2) at the
// first batch the empty server answers, saying the store lost its keys,
// with the output exactly once up to there; a rerun is refused the same
// way; a rerun with --rebuild adds back the output's keys and completes
// the output exactly once.
func TestDedupRedisForgets(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a Redis server")
	}
	srv := startRedis(t, "--appendonly", "no")
	dir := t.TempDir()
	input := killInput(t, dir, 40000)
	want, summary := reference(t, input)
	key := writeKey(t, dir)
	out := filepath.Join(dir, "out.txt")
	args := []string{"dedup", "--store", "redis://" + srv.addr() + "/2", "--key-file", key, "--output", "out.txt", "--batch", "128", input}

	cmd := child(t, dir, args...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitGrow(t, out, 1)
	srv.kill()
	srv.start()
	err := cmd.Wait()
	errs := errb.String()
	if !isExit(err, 2) || !strings.Contains(errs, "lost keys it had recorded") || !strings.Contains(errs, "identity record is gone") ||
		!strings.Contains(errs, "--rebuild") || !strings.Contains(errs, "uriscan: dedup: lines ") {
		t.Fatalf("run across a restart without persistence: %v, want exit 2 with the loss, the advice and the summary\n%s", err, errs)
	}
	n := wantPrefix(t, out, want, "stopped run")
	t.Logf("stopped after %d of %d bytes: %s", n, len(want), grepLine(errs, "lost keys"))

	unchanged := unchangedFiles(t, out, out+".checkpoint")
	code, errs := runChild(t, child(t, dir, args...))
	if code != 2 || !strings.Contains(errs, "lost keys it had recorded") || !strings.Contains(errs, "--rebuild") {
		t.Fatalf("rerun without --rebuild: exit %d, want 2 and a refusal\n%s", code, errs)
	}
	unchanged("refused rerun")

	code, errs = runChild(t, child(t, dir, append(args, "--rebuild")...))
	if code != 0 && code != 1 {
		t.Fatalf("rerun with --rebuild: exit %d\n%s", code, errs)
	}
	wantComplete(t, out, want, summary, errs, "after --rebuild")
}

// TestDedupDiskStoreReplaced: a disk store deleted between a kill and the
// resume (made anew, empty, by the resume), swapped for another store
// made with the same parameters, or put back from an older copy (it lost
// synced writes): each resume is refused with exit 2 and what happened,
// the output untouched; the store put back, or --rebuild, completes the
// output exactly once.
func TestDedupDiskStoreReplaced(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes")
	}
	dir := t.TempDir()
	input := killInput(t, dir, 60000)
	want, summary := reference(t, input)
	key := writeKey(t, dir)
	out := filepath.Join(dir, "out.txt")
	store := filepath.Join(dir, "seen")
	args := []string{"dedup", "--store", "disk:" + store, "--key-file", key, "--output", "out.txt", "--batch", "128", input}
	mv := func(from, to string) {
		t.Helper()
		if err := os.Rename(from, to); err != nil {
			t.Fatal(err)
		}
	}
	refused := func(when, why string) {
		t.Helper()
		unchanged := unchangedFiles(t, out, out+".checkpoint")
		code, errs := runChild(t, child(t, dir, args...))
		if code != 2 || !strings.Contains(errs, "lost keys it had recorded") || !strings.Contains(errs, why) || !strings.Contains(errs, "--rebuild") {
			t.Fatalf("%s: exit %d, want 2, %q and the advice\n%s", when, code, why, errs)
		}
		unchanged(when)
		t.Logf("%s: %s", when, grepLine(errs, "lost keys"))
	}

	// Killed, the store deleted: the resume does not make a new one.
	killAfter(t, child(t, dir, args...), out, 20000)
	mv(store, store+".kept")
	refused("store deleted", "the directory is absent or empty")
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Fatalf("the refused run made a store where the checkpoint's was: %v", err)
	}

	// Another store with the same parameters (key, level) in its place.
	other := killInput(t, t.TempDir(), 100)
	if code, _, errs := cli(t, "", "dedup", "--store", "disk:"+store, "--key-file", key, other); code > 1 {
		t.Fatalf("making another store: exit %d\n%s", code, errs)
	}
	refused("store swapped", "it is another store")
	os.RemoveAll(store)

	// Put back, it resumes; killed again further on, then put back
	// from a copy made at the first kill: it lost synced writes.
	mv(store+".kept", store)
	if err := exec.Command("cp", "-a", store, store+".old").Run(); err != nil {
		t.Fatal(err)
	}
	n := wantPrefix(t, out, want, "first kill")
	killAfter(t, child(t, dir, args...), out, int64(n)+40000)
	wantPrefix(t, out, want, "second kill")
	os.RemoveAll(store)
	mv(store+".old", store)
	refused("an older copy of the store", "it lost writes")

	code, errs := runChild(t, child(t, dir, append(args, "--rebuild")...))
	if code != 0 && code != 1 {
		t.Fatalf("rerun with --rebuild: exit %d\n%s", code, errs)
	}
	wantComplete(t, out, want, summary, errs, "after --rebuild")
}

// TestDedupDiskFull: a disk store (the key log, and the Pebble set) on a
// filesystem that fills up stops the run at a batch boundary with the
// summary and exit 2, not a crash; once space is freed, the rerun
// completes the output exactly once.
func TestDedupDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a filesystem")
	}
	// Room for about 60,000 of the 170,000 keys in the log (16 bytes
	// each); for Pebble's first write-ahead log and a little more.
	t.Run("keylog", func(t *testing.T) { testDedupDiskFull(t, "disk:", 1<<20) })
	t.Run("pebble", func(t *testing.T) {
		needPebble(t)
		testDedupDiskFull(t, "pebble:", 6<<20)
	})
}

func testDedupDiskFull(t *testing.T, kind string, room int64) {
	mnt := testfs.Tmpfs(t, 64<<20)
	dir := t.TempDir()
	input := killInput(t, dir, 300000)
	want, summary := reference(t, input)
	key := writeKey(t, dir)
	out := filepath.Join(dir, "out.txt")
	args := []string{"dedup", "--store", kind + filepath.Join(mnt, "seen"), "--key-file", key, "--output", "out.txt", input}
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, int64(st.Bavail)*st.Bsize-room), 0o644); err != nil {
		t.Fatal(err)
	}
	code, errs := runChild(t, child(t, dir, args...))
	if code != 2 || !strings.Contains(errs, "no space left on device") || !strings.Contains(errs, "uriscan: dedup: lines ") ||
		!strings.Contains(errs, "stopped: the input is decided up to") || strings.Contains(errs, "goroutine ") {
		t.Fatalf("on a full filesystem: exit %d, want 2 with the error, the summary and no stack\n%s", code, errs)
	}
	n := wantPrefix(t, out, want, "full filesystem")
	if n == len(want) {
		t.Fatalf("the filesystem never filled up")
	}
	t.Logf("stopped after %d of %d bytes: %s", n, len(want), grepLine(errs, "no space"))
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	code, errs = runChild(t, child(t, dir, args...))
	if code != 0 && code != 1 {
		t.Fatalf("after space was freed: exit %d\n%s", code, errs)
	}
	wantComplete(t, out, want, summary, errs, "after space was freed")
}

// TestDedupRebuildIntact: --rebuild adds back the output's keys even when
// the store passes the checks (it may have lost fewer keys than the last
// batch added, which no count shows), and the output is still exactly
// once.
func TestDedupRebuildIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process")
	}
	dir := t.TempDir()
	input := killInput(t, dir, 30000)
	want, summary := reference(t, input)
	out := filepath.Join(dir, "out.txt")
	args := []string{"dedup", "--store", "disk:" + filepath.Join(dir, "seen"), "--key-file", writeKey(t, dir), "--output", "out.txt", "--batch", "128", input}
	killAfter(t, child(t, dir, args...), out, 20000)
	code, errs := runChild(t, child(t, dir, append(args, "--rebuild")...))
	if code > 1 || !strings.Contains(errs, "--rebuild: adding back the keys of the ") {
		t.Fatalf("--rebuild on an intact store: exit %d, no rebuild said\n%s", code, errs)
	}
	wantComplete(t, out, want, summary, errs, "after --rebuild")
}

// testCheckpoint is what the tests read of a frontier checkpoint.
type testCheckpoint struct {
	Next  frontier.Position `json:"next"`
	Tally frontier.Tally    `json:"tally"`
	Done  bool              `json:"done"`
}

// readCheckpoint reads the checkpoint in name; ok is false if there is
// none.
func readCheckpoint(name string) (c testCheckpoint, ok bool, err error) {
	b, err := os.ReadFile(name)
	if os.IsNotExist(err) {
		return c, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	return c, err == nil, err
}

// TestDedupCheckpointVersion1: a run stopped under an earlier uriscan,
// whose checkpoint is of version 1 (dedup's own, before package
// frontier), resumes after the upgrade: the output ends as an
// uninterrupted run's, with its summary. The version-1 checkpoint is
// written here from the version-2 one a killed run leaves, field for
// field as the earlier version wrote it.
func TestDedupCheckpointVersion1(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process")
	}
	dir := t.TempDir()
	input2 := textInput(t, killInput(t, dir, 30000))
	want, summary := reference(t, input2, "--extract")
	out := filepath.Join(dir, "out.txt")
	args := []string{"dedup", "--extract", "--store", "disk:" + filepath.Join(dir, "seen"), "--key-file", writeKey(t, dir), "--output", "out.txt", "--batch", "128", input2}
	killAfter(t, child(t, dir, args...), out, 20000)
	var v2 struct {
		Run          map[string]string `json:"run"`
		Inputs       []string          `json:"inputs"`
		Output       string            `json:"output"`
		OutputLength int64             `json:"output_length"`
		Batch        json.RawMessage   `json:"batch"`
		BatchDigest  string            `json:"batch_digest"`
		Next         json.RawMessage   `json:"next"`
		Tally        frontier.Tally    `json:"tally"`
		Errors       []string          `json:"errors"`
		StoreStamp   json.RawMessage   `json:"store_stamp"`
	}
	b, err := os.ReadFile(out + ".checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v2); err != nil {
		t.Fatal(err)
	}
	params := map[string]string{}
	for k, v := range v2.Run {
		if k != "store" && k != "max-line" && k != "extract" && k != "repair" {
			params[k] = v
		}
	}
	maxLine, _ := strconv.Atoi(v2.Run["max-line"])
	v1 := map[string]any{
		"version": 1, "store": v2.Run["store"], "params": params, "inputs": v2.Inputs, "max_line": maxLine,
		"extract": v2.Run["extract"], "output": v2.Output, "output_length": v2.OutputLength,
		"batch": v2.Batch, "batch_digest": v2.BatchDigest, "next": v2.Next, "store_stamp": v2.StoreStamp, "done": false,
		"counts": map[string]int64{"lines": v2.Tally.Lines, "blank": v2.Tally.Other["blank"], "invalid": v2.Tally.Other["invalid"],
			"uris": v2.Tally.Records, "unique": v2.Tally.Unique},
	}
	b, _ = json.Marshal(v1)
	if err := os.WriteFile(out+".checkpoint", b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, errs := runChild(t, child(t, dir, args...))
	if code != 0 && code != 1 {
		t.Fatalf("resume from a version-1 checkpoint: exit %d\n%s", code, errs)
	}
	wantComplete(t, out, want, summary, errs, "resumed from version 1")
}
