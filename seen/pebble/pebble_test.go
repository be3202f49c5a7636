package pebble_test

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"

	"github.com/uriscan/uriscan/internal/testexec"
	"github.com/uriscan/uriscan/seen"
	ps "github.com/uriscan/uriscan/seen/pebble"
	"github.com/uriscan/uriscan/seen/settest"
)

// anyParams opens a set whatever it records (the tests that are not
// about Params).
var anyParams = &ps.Options{AnyParams: true}

func openDisk(t testing.TB, dir string, opts *ps.Options) *ps.Set {
	t.Helper()
	d, err := ps.Open(dir, opts)
	if err != nil {
		t.Fatalf("OpenDisk(%s): %v", dir, err)
	}
	return d
}

func TestDisk(t *testing.T) {
	settest.Run(t, func(t *testing.T) seen.Set {
		return openDisk(t, t.TempDir(), anyParams)
	})
}

// dkey builds a key from two words, little-endian.
func dkey(lo, hi uint64) seen.Key {
	var k seen.Key
	binary.LittleEndian.PutUint64(k[0:8], lo)
	binary.LittleEndian.PutUint64(k[8:16], hi)
	return k
}

func addAll(t *testing.T, s seen.Set, keys []seen.Key) []bool {
	t.Helper()
	isNew := make([]bool, len(keys))
	if err := s.AddBatch(keys, isNew); err != nil {
		t.Fatalf("AddBatch(%d keys): %v", len(keys), err)
	}
	return isNew
}

// wantAllSeen checks that every key is already in s (and so adds nothing).
func wantAllSeen(t *testing.T, s seen.Set, keys []seen.Key) {
	t.Helper()
	for i, v := range addAll(t, s, keys) {
		if v {
			t.Fatalf("key %d (%x) was lost: reported new again", i, keys[i])
		}
	}
}

func TestDiskReopen(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoSync=%v", noSync), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "set") // OpenDisk creates it
			opts := &ps.Options{NoSync: noSync, AnyParams: true}
			r := rand.New(rand.NewPCG(5, 6))
			var keys []seen.Key
			for range 5000 {
				keys = append(keys, dkey(r.Uint64(), r.Uint64()))
			}
			keys = append(keys, seen.Key{})

			d := openDisk(t, dir, opts)
			addAll(t, d, keys[:4000])
			for _, k := range keys[4000:] {
				if isNew, err := d.Add(k); err != nil || !isNew {
					t.Fatalf("Add(%x) = %v, %v; want true, nil", k, isNew, err)
				}
			}
			if n := d.Len(); n != int64(len(keys)) {
				t.Fatalf("Len = %d, want %d", n, len(keys))
			}
			// The directory is locked while open.
			if d2, err := ps.Open(dir, opts); err == nil {
				d2.Close()
				t.Fatal("a second OpenDisk of an open directory succeeded")
			}
			if err := d.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if n := d.Len(); n != int64(len(keys)) {
				t.Fatalf("Len after Close = %d, want %d", n, len(keys))
			}

			for round := range 2 {
				d = openDisk(t, dir, opts)
				want := int64(len(keys) + round)
				if n := d.Len(); n != want {
					t.Fatalf("round %d: Len after reopen = %d, want %d", round, n, want)
				}
				wantAllSeen(t, d, keys)
				if isNew, err := d.Add(dkey(uint64(round), 77)); err != nil || !isNew {
					t.Fatalf("round %d: Add of a new key = %v, %v; want true, nil", round, isNew, err)
				}
				keys = append(keys, dkey(uint64(round), 77))
				if n := d.Len(); n != want+1 {
					t.Fatalf("round %d: Len = %d, want %d", round, n, want+1)
				}
				keys = keys[:len(keys)-1]
				if err := d.Close(); err != nil {
					t.Fatalf("Close: %v", err)
				}
			}
		})
	}
}

type discardLogger struct{}

func (discardLogger) Infof(string, ...any)  {}
func (discardLogger) Errorf(string, ...any) {}
func (discardLogger) Fatalf(f string, a ...any) {
	panic(fmt.Sprintf(f, a...))
}

func TestDiskForeignStore(t *testing.T) {
	dir := t.TempDir()
	db, err := pebble.Open(dir, &pebble.Options{Logger: discardLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("something else"), []byte("x"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := ps.Open(dir, anyParams)
	if !errors.Is(err, ps.ErrNotSet) {
		if err == nil {
			d.Close()
		}
		t.Fatalf("OpenDisk of a foreign Pebble store: err = %v, want ErrNotDiskSet", err)
	}
}

// The crash test runs a child process (this test binary again, see
// TestDiskCrashChild) that adds batches to a set and prints each key
// reported new, then dies without closing the set: by os.Exit(0) or by
// SIGKILL from the parent. The parent then reopens the set and checks that
// every key printed as new is still there, that the batch the child may
// have been writing when it died is recorded all or nothing, and that Len
// agrees.

const (
	crashEnvDir  = "URISCAN_SEEN_DISK_CRASH_DIR"
	crashEnvMode = "URISCAN_SEEN_DISK_CRASH_MODE"
	crashPrepop  = 1000 // keys in the set before the child runs
	crashFresh   = 400  // new keys per child batch
	crashBatches = 20   // batches in "exit" mode
)

func crashPrepopKey(i int) seen.Key { return dkey(uint64(i), 0xaaaa) }

// crashBatch returns the keys of the child's batch i and, separately, the
// keys among them that are new: fresh random keys mixed with keys of the
// prepopulated set, keys of batch i-1 and repeats inside the batch.
func crashBatch(i int) (keys, fresh []seen.Key) {
	r := rand.New(rand.NewPCG(7, uint64(i)))
	for range crashFresh {
		fresh = append(fresh, dkey(r.Uint64(), r.Uint64()))
	}
	keys = append(keys, fresh...)
	for range 50 {
		keys = append(keys, crashPrepopKey(r.IntN(crashPrepop)))
		keys = append(keys, fresh[r.IntN(len(fresh))])
	}
	if i > 0 {
		_, prev := crashBatch(i - 1)
		keys = append(keys, prev[:50]...)
	}
	r.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
	return keys, fresh
}

// TestDiskCrashChild is the child process of TestDiskCrash; it does
// nothing in a normal test run.
func TestDiskCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnvDir)
	if dir == "" {
		t.Skip("helper process for TestDiskCrash")
	}
	mode := os.Getenv(crashEnvMode)
	d, err := ps.Open(dir, anyParams)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	deadline := time.Now().Add(15 * time.Second)
	for i := 0; ; i++ {
		if mode == "exit" && i == crashBatches || time.Now().After(deadline) {
			out.Flush()
			os.Exit(0) // without d.Close
		}
		keys, _ := crashBatch(i)
		isNew := make([]bool, len(keys))
		if err := d.AddBatch(keys, isNew); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		for j, v := range isNew {
			if v {
				fmt.Fprintf(out, "new %x\n", keys[j])
			}
		}
		fmt.Fprintf(out, "batch %d\n", i)
		if mode == "kill" {
			out.Flush() // one write per batch, so the parent sees progress
		}
	}
}

func TestDiskCrash(t *testing.T) {
	for _, mode := range []string{"exit", "kill"} {
		t.Run(mode, func(t *testing.T) { testDiskCrash(t, mode) })
	}
}

func testDiskCrash(t *testing.T, mode string) {
	dir := t.TempDir()
	d := openDisk(t, dir, anyParams)
	var pre []seen.Key
	for i := range crashPrepop {
		pre = append(pre, crashPrepopKey(i))
	}
	addAll(t, d, pre)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	// The child is this test binary again, run the way go test ran it:
	// under the arm64 leg's qemu-aarch64-static too, without binfmt_misc.
	child := testexec.Start(t, "TestDiskCrashChild", crashEnvDir+"="+dir, crashEnvMode+"="+mode)
	cmd, stdout, stderr := child.Cmd, child.Stdout, child.Stderr
	// Read the child's report up to the last complete batch; in kill
	// mode, kill it after a few batches and read what it wrote before.
	var printed []seen.Key // keys reported new, through batch last
	var pending []seen.Key // keys reported new after the last "batch" line
	last := -1
	killed := false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "new "):
			b, err := hex.DecodeString(line[4:])
			if err != nil || len(b) != len(seen.Key{}) {
				continue // a line cut short by the kill
			}
			pending = append(pending, seen.Key(b))
		case strings.HasPrefix(line, "batch "):
			n, err := strconv.Atoi(line[6:])
			if err != nil || n != last+1 {
				continue
			}
			last = n
			printed = append(printed, pending...)
			pending = pending[:0]
			if mode == "kill" && last == 5 && !killed {
				killed = true
				if err := cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	werr := cmd.Wait()
	switch mode {
	case "exit":
		if werr != nil {
			t.Fatalf("child: %v\n%s", werr, stderr.String())
		}
		if last != crashBatches-1 {
			t.Fatalf("child reported %d batches, want %d\n%s", last+1, crashBatches, stderr.String())
		}
	case "kill":
		if !killed {
			t.Fatalf("child ended before it was killed (%v, %d batches)\n%s", werr, last+1, stderr.String())
		}
	}
	t.Logf("child: %d batches, %d keys reported new", last+1, len(printed))

	// The keys reported new are exactly the fresh keys of each batch.
	var want []seen.Key
	for i := 0; i <= last; i++ {
		_, fresh := crashBatch(i)
		want = append(want, fresh...)
	}
	got := map[seen.Key]bool{}
	for _, k := range printed {
		got[k] = true
	}
	if len(got) != len(printed) || len(printed) != len(want) {
		t.Fatalf("child reported %d keys new (%d distinct), want %d", len(printed), len(got), len(want))
	}
	for _, k := range want {
		if !got[k] {
			t.Fatalf("fresh key %x not reported new", k)
		}
	}

	d = openDisk(t, dir, anyParams)
	defer d.Close()
	n := d.Len()
	base := int64(crashPrepop + len(printed))
	// Batch last+1 may have been committed before the child died without
	// being reported; it is then there as a whole (count included).
	_, doubt := crashBatch(last + 1)
	var doubtIn bool
	switch {
	case n == base:
	case n == base+int64(len(doubt)) && mode == "kill":
		doubtIn = true
	default:
		t.Fatalf("Len after the crash = %d, want %d (or %d if batch %d was committed)", n, base, base+int64(len(doubt)), last+1)
	}
	wantAllSeen(t, d, pre)
	wantAllSeen(t, d, printed)
	for i, v := range addAll(t, d, doubt) {
		if v == doubtIn {
			t.Fatalf("batch %d half committed: key %d new = %v, Len says committed = %v", last+1, i, v, doubtIn)
		}
	}
	t.Logf("in-doubt batch %d committed: %v", last+1, doubtIn)
	if n := d.Len(); n != base+int64(len(doubt)) {
		t.Fatalf("Len = %d, want %d", n, base+int64(len(doubt)))
	}
}

// BenchmarkDiskAddBatch adds batches of 1000 keys to a set that holds
// 200,000 keys or more, each batch one synced commit: "new" are all new
// keys, "seen" all present already (no write), "mixed" half and half.
func BenchmarkDiskAddBatch(b *testing.B) {
	const batch = 1000
	for _, mode := range []string{"new", "mixed", "seen"} {
		b.Run(mode, func(b *testing.B) {
			d := openDisk(b, b.TempDir(), anyParams)
			defer d.Close()
			r := rand.New(rand.NewPCG(8, 9))
			var old []seen.Key
			if mode != "new" {
				// 200,000 keys present before timing starts.
				for range 200 {
					keys := make([]seen.Key, batch)
					for i := range keys {
						keys[i] = dkey(r.Uint64(), r.Uint64())
					}
					if err := d.AddBatch(keys, make([]bool, batch)); err != nil {
						b.Fatal(err)
					}
					old = append(old, keys...)
				}
			}
			keys := make([]seen.Key, batch)
			isNew := make([]bool, batch)
			b.ResetTimer()
			for b.Loop() {
				for i := range keys {
					switch {
					case mode == "seen" || mode == "mixed" && i%2 == 0:
						keys[i] = old[r.IntN(len(old))]
					default:
						keys[i] = dkey(r.Uint64(), r.Uint64())
					}
				}
				if err := d.AddBatch(keys, isNew); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

// BenchmarkDiskAdd adds new keys one at a time: one fsync per key.
func BenchmarkDiskAdd(b *testing.B) {
	d := openDisk(b, b.TempDir(), anyParams)
	defer d.Close()
	r := rand.New(rand.NewPCG(10, 11))
	for b.Loop() {
		if _, err := d.Add(dkey(r.Uint64(), r.Uint64())); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
}

// TestDiskInsertReopen: keys given to Insert, with repeats and keys
// already recorded, are durable and counted once, across a reopen; an
// Insert repeated after the reopen (a retry after a crash) changes
// nothing.
func TestDiskInsertReopen(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(21, 22))
	var keys []seen.Key
	for range 3000 {
		keys = append(keys, dkey(r.Uint64(), r.Uint64()))
	}
	d := openDisk(t, dir, anyParams)
	addAll(t, d, keys[:500])
	batch := append(append([]seen.Key{}, keys...), keys[:1000]...) // repeats, and 500 recorded already
	if err := d.Insert(batch); err != nil {
		t.Fatalf("Insert: %v", err)
	}
	if n := d.Len(); n != int64(len(keys)) {
		t.Fatalf("Len after Insert = %d, want %d", n, len(keys))
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = openDisk(t, dir, anyParams)
	defer d.Close()
	if n := d.Len(); n != int64(len(keys)) {
		t.Fatalf("Len after reopen = %d, want %d", n, len(keys))
	}
	if err := d.Insert(batch); err != nil {
		t.Fatalf("Insert again: %v", err)
	}
	if n := d.Len(); n != int64(len(keys)) {
		t.Fatalf("Len after a repeated Insert = %d, want %d", n, len(keys))
	}
	has := make([]bool, len(batch))
	if err := d.Contains(batch, has); err != nil {
		t.Fatalf("Contains: %v", err)
	}
	for i, v := range has {
		if !v {
			t.Fatalf("key %d (%x) inserted before the reopen is missing", i, batch[i])
		}
	}
	wantAllSeen(t, d, keys)
}

// TestDiskParams: a set records the Params it was made with, and opening
// it with other Params fails, naming every difference.
// TestDiskNilParams: a set is not opened without Params (how its keys
// are made), unless AnyParams says to take it whatever it records.
func TestDiskNilParams(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	for _, opts := range []*ps.Options{nil, {NoSync: true}} {
		if d, err := ps.Open(dir, opts); err == nil || !strings.Contains(err.Error(), "no Params") {
			if d != nil {
				d.Close()
			}
			t.Fatalf("Open with %+v: %v, want a refusal for nil Params", opts, err)
		}
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Fatalf("the refused Open made the directory: %v", err)
	}
	openDisk(t, dir, anyParams).Close()
}

func TestDiskParams(t *testing.T) {
	p1 := seen.Params{"key": "1a2b", "level": "scheme"}
	open := func(dir string, p seen.Params) (*ps.Set, error) {
		return ps.Open(dir, &ps.Options{Params: p, AnyParams: p == nil})
	}
	mustOpen := func(t *testing.T, dir string, p seen.Params) *ps.Set {
		t.Helper()
		d, err := open(dir, p)
		if err != nil {
			t.Fatalf("OpenDisk(%s, Params %v): %v", dir, p, err)
		}
		return d
	}
	mustFail := func(t *testing.T, dir string, p seen.Params) error {
		t.Helper()
		d, err := open(dir, p)
		if err == nil {
			d.Close()
			t.Fatalf("OpenDisk(%s, Params %v) succeeded", dir, p)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
		return err
	}

	t.Run("Recorded", func(t *testing.T) {
		dir := t.TempDir()
		d := mustOpen(t, dir, p1)
		addAll(t, d, []seen.Key{dkey(1, 1)})
		d.Close()
		// The record: a JSON object with the format, written with the
		// format record.
		db, err := pebble.Open(dir, &pebble.Options{Logger: discardLogger{}})
		if err != nil {
			t.Fatal(err)
		}
		v, closer, err := db.Get([]byte("m/params"))
		if err != nil {
			t.Fatalf("m/params: %v", err)
		}
		if got, want := string(v), `{"format":"uriscan/seen disk v1","key":"1a2b","level":"scheme"}`; got != want {
			t.Errorf("m/params = %s, want %s", got, want)
		}
		closer.Close()
		db.Close()
		// Same Params, and nil Params, open; the caller's map is not
		// modified.
		mustOpen(t, dir, seen.Params{"level": "scheme", "key": "1a2b"}).Close()
		mustOpen(t, dir, nil).Close()
		if len(p1) != 2 {
			t.Errorf("OpenDisk modified the caller's Params: %v", p1)
		}
	})

	t.Run("Differ", func(t *testing.T) {
		dir := t.TempDir()
		mustOpen(t, dir, p1).Close()
		for _, c := range []struct {
			given seen.Params
			msg   string
		}{
			{seen.Params{"key": "1a2b", "level": "crawler"},
				"was made with level=scheme; this run asks for level=crawler"},
			{seen.Params{"key": "9f8e", "level": "crawler"},
				"was made with key=1a2b, level=scheme; this run asks for key=9f8e, level=crawler"},
			{seen.Params{"key": "1a2b", "level": "scheme", "mode": "x y"},
				`was made with mode unset; this run asks for mode="x y"`},
			{seen.Params{"key": "1a2b"},
				"was made with level=scheme; this run asks for level unset"},
			{seen.Params{},
				"was made with key=1a2b, level=scheme; this run asks for key unset, level unset"},
		} {
			err := mustFail(t, dir, c.given)
			var pe *seen.ParamsError
			if !errors.As(err, &pe) {
				t.Fatalf("Params %v: err = %v, want a *ParamsError", c.given, err)
			}
			want := "seen: pebble set " + dir + " " + c.msg
			if strings.Contains(c.msg, "this run asks for") {
				want += ": open it with what it was made with, or use another set"
			}
			if err.Error() != want {
				t.Errorf("Params %v:\nerr  = %s\nwant %s", c.given, err, want)
			}
			if pe.Stored["level"] != "scheme" || pe.Stored["format"] != "uriscan/seen disk v1" || pe.Given["format"] != "uriscan/seen disk v1" {
				t.Errorf("ParamsError.Stored = %v, Given = %v", pe.Stored, pe.Given)
			}
		}
		// The refused opens changed nothing.
		mustOpen(t, dir, p1).Close()
	})

	t.Run("EmptyWithoutParams", func(t *testing.T) {
		// A set made without Params, still empty, takes the first
		// Params it is opened with.
		dir := t.TempDir()
		mustOpen(t, dir, nil).Close()
		mustOpen(t, dir, p1).Close()
		err := mustFail(t, dir, seen.Params{"key": "1a2b", "level": "crawler"})
		if pe := (*seen.ParamsError)(nil); !errors.As(err, &pe) {
			t.Fatalf("err = %v, want a *ParamsError", err)
		}
	})

	t.Run("KeysWithoutParams", func(t *testing.T) {
		// Made by the previous version, or without Params, and not
		// empty: nothing says how its keys were made.
		dir := t.TempDir()
		d := mustOpen(t, dir, nil)
		addAll(t, d, []seen.Key{dkey(1, 2), dkey(3, 4)})
		d.Close()
		err := mustFail(t, dir, p1)
		if !errors.Is(err, seen.ErrNoParams) {
			t.Fatalf("err = %v, want ErrNoParams", err)
		}
		for _, want := range []string{"seen: pebble set " + dir + " holds 2 keys but records no parameters", `format="uriscan/seen disk v1"`, "key=1a2b", "level=scheme"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("err = %q, want it to contain %q", err, want)
			}
		}
		mustOpen(t, dir, nil).Close() // nil Params still opens it
	})

	t.Run("Reserved", func(t *testing.T) {
		dir := t.TempDir()
		err := mustFail(t, dir, seen.Params{"format": "mine"})
		if !strings.Contains(err.Error(), `"format" is reserved`) {
			t.Errorf("err = %v, want it to say format is reserved", err)
		}
	})

	t.Run("BadRecord", func(t *testing.T) {
		dir := t.TempDir()
		mustOpen(t, dir, p1).Close()
		db, err := pebble.Open(dir, &pebble.Options{Logger: discardLogger{}})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Set([]byte("m/params"), []byte("level=scheme"), pebble.Sync); err != nil {
			t.Fatal(err)
		}
		db.Close()
		err = mustFail(t, dir, p1)
		if !strings.Contains(err.Error(), "not a JSON object") {
			t.Errorf("err = %v, want it to say the record is not JSON", err)
		}
		mustOpen(t, dir, nil).Close()
	})
}

// The lock test runs a child process (this test binary again, see
// TestDiskLockChild) that opens a set and holds it until its stdin
// closes.
const lockEnvDir = "URISCAN_SEEN_DISK_LOCK_DIR"

// TestDiskLockChild is the child process of TestDiskLocked; it does
// nothing in a normal test run.
func TestDiskLockChild(t *testing.T) {
	dir := os.Getenv(lockEnvDir)
	if dir == "" {
		t.Skip("helper process for TestDiskLocked")
	}
	d, err := ps.Open(dir, anyParams)
	if err != nil {
		fmt.Println("child:", err)
		os.Exit(2)
	}
	fmt.Println("locked")
	io.Copy(io.Discard, os.Stdin) // until the parent closes it
	d.Close()
	os.Exit(0)
}

// TestDiskLocked: a set open in another process, or already in this one,
// cannot be opened; the error wraps ErrLocked and says so in one line.
// Once the other process has ended, the set opens.
func TestDiskLocked(t *testing.T) {
	dir := t.TempDir()
	d := openDisk(t, dir, anyParams)
	_, err := ps.Open(dir, anyParams)
	if !errors.Is(err, ps.ErrLocked) {
		t.Fatalf("second OpenDisk in this process: err = %v, want ErrLocked", err)
	}
	if want := "seen: pebble set " + dir + " is in use: already open in this process"; err.Error() != want {
		t.Errorf("second OpenDisk in this process:\nerr  = %q\nwant %q", err, want)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	cmd, err := testexec.Self("-test.run=^TestDiskLockChild$")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), lockEnvDir+"="+dir)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("child: %q, %v\n%s", line, err, stderr.String())
	}
	d2, err := ps.Open(dir, anyParams)
	if err == nil {
		d2.Close()
		t.Fatal("OpenDisk of a set open in another process succeeded")
	}
	if !errors.Is(err, ps.ErrLocked) {
		t.Fatalf("OpenDisk of a set open in another process: err = %v, want ErrLocked", err)
	}
	if want := "seen: pebble set " + dir + " is in use by another process"; err.Error() != want {
		t.Errorf("OpenDisk of a set open in another process:\nerr  = %q\nwant %q", err, want)
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("child: %v\n%s", err, stderr.String())
	}
	openDisk(t, dir, anyParams).Close()
}
