package frontier_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/internal/testexec"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	"github.com/uriscan/uriscan/seen/pebble"
	"github.com/uriscan/uriscan/urikey"
)

// testKey is the crawler's fixed hash key.
var testKey = bytes.Repeat([]byte{0x42}, urikey.KeySize)

// crawl is a crawler's dedup loop written against the public API only:
// the URIs of input (a file of lines) go through the hasher to the Log,
// which writes each one's first occurrence to output. It returns the
// Log's tally. Each of opts may change the Log's Options.
func crawl(input, output string, set seen.Set, batch int, opts ...func(*frontier.Options)) (frontier.Tally, error) {
	h, err := urikey.NewHasher(testKey, normalize.Crawler)
	if err != nil {
		return frontier.Tally{}, err
	}
	keyOf := func(line []byte) (seen.Key, error) {
		sum, err := h.SumRaw(line)
		return seen.Key(sum), err
	}
	o := frontier.Options{
		Output: output, Inputs: []string{input}, Run: map[string]string{"level": "crawler"},
		Batch: batch, KeyOf: keyOf,
	}
	for _, f := range opts {
		f(&o)
	}
	log, err := frontier.Open(set, o)
	if err != nil {
		return frontier.Tally{}, err
	}
	f, err := os.Open(input)
	if err != nil {
		log.Close()
		return frontier.Tally{}, err
	}
	defer f.Close()
	start := log.Start()
	if _, err := f.Seek(start.Offset, 0); err != nil {
		log.Close()
		return frontier.Tally{}, err
	}
	ls := uriscan.NewLineScanner(f)
	ls.StartAt(start.Offset, start.Line)
	for ls.Scan() {
		if ls.Valid() && len(ls.Bytes()) > 0 {
			log.Add(seen.Key(h.Sum(ls.URI())), ls.Bytes())
		} else {
			log.Count("invalid")
		}
		next := frontier.Position{Offset: ls.NextOffset(), Line: ls.Line()}
		if err := log.EndLine(ls.Bytes(), next); err != nil {
			log.Close()
			return frontier.Tally{}, err
		}
	}
	if err := log.EndInput(0, ls.Err()); err != nil {
		log.Close()
		return frontier.Tally{}, err
	}
	if err := log.Finish(); err != nil {
		return frontier.Tally{}, err
	}
	return log.Tally(), nil
}

// crawlerInput writes n lines of URIs, most new, some repeated in other
// spellings, some invalid.
func crawlerInput(t *testing.T, dir string, n int) string {
	t.Helper()
	r := rand.New(rand.NewPCG(3, uint64(n)))
	var b bytes.Buffer
	for range n {
		j := r.IntN(n * 7 / 10)
		switch r.IntN(20) {
		case 0:
			fmt.Fprintf(&b, "http://bad host/%d\n", j)
		case 1:
			fmt.Fprintf(&b, "HTTP://WWW.H%d.EXAMPLE:80/p/%d?utm_source=x\n", j%53, j)
		default:
			fmt.Fprintf(&b, "http://h%d.example/p/%d\n", j%53, j)
		}
	}
	name := filepath.Join(dir, "in.txt")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// reference is what one uninterrupted crawl writes, with a set in memory.
func reference(t *testing.T, input string) (string, frontier.Tally) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ref.txt")
	tally, err := crawl(input, out, seen.NewMemory(0), 100)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), tally
}

const (
	envKillInput  = "URISCAN_FRONTIER_KILL_INPUT"
	envKillOutput = "URISCAN_FRONTIER_KILL_OUTPUT"
	envKillStore  = "URISCAN_FRONTIER_KILL_STORE"
)

// TestKillChild is the crawler TestKillLoop kills: crawl with a disk set
// (seen/keylog).
func TestKillChild(t *testing.T) {
	input := os.Getenv(envKillInput)
	if input == "" {
		t.Skip("helper process for TestKillLoop")
	}
	h, _ := urikey.NewHasher(testKey, normalize.Crawler)
	p, err := h.Params()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	set, err := keylog.Open(os.Getenv(envKillStore), &keylog.Options{Params: p})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tally, err := crawl(input, os.Getenv(envKillOutput), set, 64)
	if cerr := set.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	json.NewEncoder(os.Stdout).Encode(tally)
	os.Exit(0)
}

// TestKillLoop: the library alone keeps its promise. A crawler written
// against the public API (crawl: LineScanner, Hasher, seen/keylog, Log) is
// killed with SIGKILL at 50 random moments and then run to its end; its
// output holds every first occurrence exactly once, byte for byte what an
// uninterrupted run writes, and its tally is that run's.
func TestKillLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process 50 times")
	}
	dir := t.TempDir()
	input := crawlerInput(t, dir, 40000)
	want, wantTally := reference(t, input)
	out, store := filepath.Join(dir, "out.txt"), filepath.Join(dir, "seen")
	r := rand.New(rand.NewPCG(9, 9))
	kills, runs := 0, 0
	for {
		cmd, err := testexec.Self("-test.run=^TestKillChild$")
		if err != nil {
			t.Fatal(err)
		}
		cmd.Env = append(os.Environ(), envKillInput+"="+input, envKillOutput+"="+out, envKillStore+"="+store)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		runs++
		if kills < 50 {
			time.Sleep(time.Duration(r.Int64N(int64(120 * time.Millisecond))))
			cmd.Process.Signal(syscall.SIGKILL)
		}
		err = cmd.Wait()
		if ee, ok := err.(*exec.ExitError); ok && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
			kills++
			continue
		}
		if err != nil {
			t.Fatalf("run %d: %v\n%s", runs, err, stderr.String())
		}
		var tally frontier.Tally
		if err := json.Unmarshal(stdout.Bytes(), &tally); err != nil {
			t.Fatalf("run %d: %v: %q", runs, err, stdout.String())
		}
		got, _ := os.ReadFile(out)
		if string(got) != want {
			t.Fatalf("after %d kills: %d lines, want %d", kills, strings.Count(string(got), "\n"), strings.Count(want, "\n"))
		}
		if fmt.Sprint(tally) != fmt.Sprint(wantTally) {
			t.Fatalf("after %d kills: tally %+v, want %+v", kills, tally, wantTally)
		}
		if kills >= 50 {
			break
		}
		os.RemoveAll(out)
		os.RemoveAll(out + ".checkpoint")
		os.RemoveAll(store)
	}
	t.Logf("%d kills in %d runs; %d first occurrences exactly once", kills, runs, strings.Count(want, "\n"))
}

// TestResume: a run stopped after some batches (Close without Finish)
// resumes from its checkpoint: Start is where it must read again, the
// lines of the last batch are replayed (nothing written), and the output
// ends as an uninterrupted run's. A resume over another input, or
// another run, is refused.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	input := crawlerInput(t, dir, 3000)
	want, wantTally := reference(t, input)
	out := filepath.Join(dir, "out.txt")
	h, _ := urikey.NewHasher(testKey, normalize.Crawler)
	keyOf := func(line []byte) (seen.Key, error) { s, err := h.SumRaw(line); return seen.Key(s), err }
	opts := frontier.Options{Output: out, Inputs: []string{input}, Run: map[string]string{"level": "crawler"}, Batch: 100, KeyOf: keyOf}
	set := seen.NewMemory(0)
	log, err := frontier.Open(set, opts)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(input)
	feed(t, log, h, data, 1234)
	decided := log.Decided()
	if err := log.Close(); err != nil { // stopped: the lines after the last batch are not decided
		t.Fatal(err)
	}
	if decided.Line == 0 || decided.Line >= 1234 {
		t.Fatalf("decided up to line %d after 1234 lines in batches of 100", decided.Line)
	}
	// Another run, or another input, is refused.
	bad := opts
	bad.Run = map[string]string{"level": "scheme"}
	if _, err := frontier.Open(seen.NewMemory(0), bad); err == nil || !strings.Contains(err.Error(), `level "crawler", this run has "scheme"`) {
		t.Fatalf("a resume with another Run: %v", err)
	}
	// The rest, with a new memory set (refilled from the output).
	tally, err := crawl(input, out, seen.NewMemory(0), 100)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != want || fmt.Sprint(tally) != fmt.Sprint(wantTally) {
		t.Fatalf("resumed: %d lines, tally %+v; want %d lines, %+v", strings.Count(string(got), "\n"), tally, strings.Count(want, "\n"), wantTally)
	}
	// Done: a rerun resumes to nothing and writes nothing.
	if _, err := crawl(input, out, seen.NewMemory(0), 100); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Fatal("a rerun of a done run changed the output")
	}
	// The input changed under a checkpoint: refused, not taken as
	// decided.
	out2 := filepath.Join(dir, "out2.txt")
	opts.Output = out2
	if log, err = frontier.Open(seen.NewMemory(0), opts); err != nil {
		t.Fatal(err)
	}
	feed(t, log, h, data, 250)
	log.Close()
	changed := bytes.ToUpper(data)
	if err := os.WriteFile(input, changed, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := crawl(input, out2, seen.NewMemory(0), 100); err == nil || !strings.Contains(err.Error(), "the input changed since the checkpoint") {
		t.Fatalf("resume over a changed input: %v", err)
	}
}

// TestWriterAndErrors: to a Writer the lines come at least once and each
// batch is flushed; a checkpoint of an unknown version is refused with
// what to do; a Writer with a checkpoint needs a persistent set; an
// output with data and no checkpoint is not overwritten.
func TestWriterAndErrors(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	log, err := frontier.Open(seen.NewMemory(0), frontier.Options{Writer: w, Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range []string{"a", "b", "a", "c"} {
		log.Add(seen.Key{s[0]}, []byte(s))
		if err := log.EndLine([]byte(s), frontier.Position{Offset: int64(2 * (i + 1)), Line: i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	if buf.String() != "a\nb\nc\n" { // two batches, flushed
		t.Fatalf("to a Writer: %q", buf.String())
	}
	if err := log.Finish(); err != nil {
		t.Fatal(err)
	}
	if tl := log.Tally(); tl.Lines != 4 || tl.Records != 4 || tl.Unique != 3 || tl.Duplicates() != 1 {
		t.Fatalf("tally %+v", tl)
	}
	dir := t.TempDir()
	ck := filepath.Join(dir, "out.txt.checkpoint")
	os.WriteFile(ck, []byte(`{"version":99}`), 0o644)
	_, err = frontier.Open(seen.NewMemory(0), frontier.Options{Output: filepath.Join(dir, "out.txt"), KeyOf: func([]byte) (seen.Key, error) { return seen.Key{}, nil }})
	if err == nil || !strings.Contains(err.Error(), "has version 99") || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("a checkpoint of an unknown version: %v", err)
	}
	// A checkpoint to a Writer needs a set that persists.
	if _, err := frontier.Open(seen.NewMemory(0), frontier.Options{Writer: w, Checkpoint: filepath.Join(dir, "ck")}); err == nil {
		t.Fatal("a checkpoint to a Writer with a memory set was accepted")
	}
	// An output that holds data without a checkpoint is not overwritten.
	os.WriteFile(filepath.Join(dir, "data.txt"), []byte("x\n"), 0o644)
	if _, err := frontier.Open(seen.NewMemory(0), frontier.Options{Output: filepath.Join(dir, "data.txt"), KeyOf: func([]byte) (seen.Key, error) { return seen.Key{}, nil }}); err == nil || !strings.Contains(err.Error(), "not overwriting") {
		t.Fatalf("an output with data: %v", err)
	}
}

// feed gives log the first n lines of data, as crawl does.
func feed(t *testing.T, log *frontier.Log, h *urikey.Hasher, data []byte, n int) {
	t.Helper()
	ls := uriscan.NewLineScannerBytes(data)
	for i := 0; i < n && ls.Scan(); i++ {
		if ls.Valid() && len(ls.Bytes()) > 0 {
			log.Add(seen.Key(h.Sum(ls.URI())), ls.Bytes())
		} else {
			log.Count("invalid")
		}
		if err := log.EndLine(ls.Bytes(), frontier.Position{Offset: ls.NextOffset(), Line: ls.Line()}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRerunsAndMisuse: a done run rerun twice resumes to nothing both
// times (its checkpoint keeps the last batch's digest); a set of the
// caller's that keeps no Stamp is refilled from the output like a
// seen.Memory; a Log is not used after Close; Finish while the last batch
// is being replayed records nothing.
func TestRerunsAndMisuse(t *testing.T) {
	dir := t.TempDir()
	input := crawlerInput(t, dir, 2000)
	want, _ := reference(t, input)
	out := filepath.Join(dir, "out.txt")
	for run := 1; run <= 3; run++ {
		if _, err := crawl(input, out, seen.NewMemory(0), 100); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if got, _ := os.ReadFile(out); string(got) != want {
			t.Fatalf("run %d: the output differs", run)
		}
	}

	// A set of the caller's (here a seen.Memory inside a struct).
	type mySet struct{ *seen.Memory }
	h, _ := urikey.NewHasher(testKey, normalize.Crawler)
	keyOf := func(line []byte) (seen.Key, error) { s, err := h.SumRaw(line); return seen.Key(s), err }
	out2 := filepath.Join(dir, "out2.txt")
	opts := frontier.Options{Output: out2, Inputs: []string{input}, Run: map[string]string{"level": "crawler"}, Batch: 100, KeyOf: keyOf}
	data, _ := os.ReadFile(input)
	log, err := frontier.Open(mySet{seen.NewMemory(0)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	feed(t, log, h, data, 700)
	log.Close()
	if err := log.Commit(); !errors.Is(err, frontier.ErrClosed) {
		t.Errorf("Commit after Close: %v, want ErrClosed", err)
	}
	if err := log.Finish(); !errors.Is(err, frontier.ErrClosed) || log.Err() != nil {
		t.Errorf("Finish after Close: %v (Err %v), want ErrClosed and no failure", err, log.Err())
	}
	// Resumed with another empty set of the caller's: refilled, so
	// nothing is written twice.
	log, err = frontier.Open(mySet{seen.NewMemory(0)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !log.Replaying() {
		t.Fatal("a run stopped mid-batch does not replay")
	}
	// Finish before the replay is over: an error, nothing recorded.
	if err := log.Finish(); err == nil || !strings.Contains(err.Error(), "before the checkpoint's position") {
		t.Fatalf("Finish while replaying: %v", err)
	}
	if _, err := crawl(input, out2, mySet{seen.NewMemory(0)}, 100); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out2); string(got) != want {
		t.Fatalf("with the caller's set: %d lines, want %d", strings.Count(string(got), "\n"), strings.Count(want, "\n"))
	}
}

// TestDecided: a Log that takes decided records (Options.Decided) writes
// what one that decides writes, given the decisions of AddBatch on a set
// of the caller's in input order; it asks its set nothing (a set the
// caller never adds to stays empty); it refuses a record given by Add and
// a persistent set.
func TestDecided(t *testing.T) {
	lines := []string{"a", "b", "a", "c", "b", "d", "d", "e"}
	run := func(decided bool) (string, frontier.Tally, seen.Set) {
		var buf bytes.Buffer
		set := seen.NewMemory(0)
		log, err := frontier.Open(set, frontier.Options{Writer: &buf, Batch: 3, Decided: decided})
		if err != nil {
			t.Fatal(err)
		}
		mine := seen.NewMemory(0) // the caller's decisions
		for i, s := range lines {
			if decided {
				isNew := make([]bool, 1)
				mine.AddBatch([]seen.Key{{s[0]}}, isNew)
				log.AddDecided(seen.Key{s[0]}, []byte(s), isNew[0])
			} else {
				log.Add(seen.Key{s[0]}, []byte(s))
			}
			if err := log.EndLine([]byte(s), frontier.Position{Offset: int64(2 * (i + 1)), Line: i + 1}); err != nil {
				t.Fatal(err)
			}
		}
		if err := log.Finish(); err != nil {
			t.Fatal(err)
		}
		return buf.String(), log.Tally(), set
	}
	want, wantTally, _ := run(false)
	got, tally, set := run(true)
	if got != want || got != "a\nb\nc\nd\ne\n" || tally.Unique != wantTally.Unique || tally.Records != wantTally.Records {
		t.Fatalf("decided: %q %+v, want %q %+v", got, tally, want, wantTally)
	}
	if n := set.Len(); n != 0 {
		t.Fatalf("a Log that takes decided records added %d keys to its set", n)
	}
	log, err := frontier.Open(seen.NewMemory(0), frontier.Options{Writer: io.Discard, Decided: true})
	if err != nil {
		t.Fatal(err)
	}
	log.Add(seen.Key{1}, []byte("x"))
	if err := log.Commit(); err == nil || !strings.Contains(err.Error(), "Options.Decided") {
		t.Fatalf("Add to a Log that takes decided records: %v", err)
	}
	dir := t.TempDir()
	ds, err := pebble.Open(filepath.Join(dir, "set"), &pebble.Options{AnyParams: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if _, err := frontier.Open(ds, frontier.Options{Writer: io.Discard, Checkpoint: filepath.Join(dir, "ck"), Decided: true}); err == nil || !strings.Contains(err.Error(), "set in memory") {
		t.Fatalf("Decided with a persistent set: %v", err)
	}
}
