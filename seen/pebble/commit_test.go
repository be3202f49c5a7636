package pebble_test

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/uriscan/uriscan/internal/testexec"
	"github.com/uriscan/uriscan/seen"
	ps "github.com/uriscan/uriscan/seen/pebble"
	"github.com/uriscan/uriscan/seen/settest"
)

// TestDiskCommitter runs the shared suite of seen.Committer: commit
// records kept per run, replaced by later ones, not counted as keys,
// refused for a bad run identity and after Close, and kept across a
// reopen.
func TestDiskCommitter(t *testing.T) {
	dirs := map[seen.Committer]string{}
	settest.RunCommitter(t, func(t *testing.T) seen.Committer {
		dir := t.TempDir()
		d := openDisk(t, dir, anyParams)
		dirs[d] = dir
		return d
	}, func(t *testing.T, old seen.Committer) seen.Committer {
		dir, ok := dirs[old]
		if !ok {
			t.Fatal("reopen of a set open did not make")
		}
		d := openDisk(t, dir, anyParams)
		dirs[d] = dir
		return d
	})
}

// commitRuns are the run identities of the commit tests.
var commitRuns = []string{
	"00000000000000000000000000000001",
	"0123456789abcdef0123456789abcdef",
	"ffffffffffffffffffffffffffffffff",
}

// commitFresh returns the new keys of batch seq of a commit test's run:
// 300 for odd seq, none for even (a batch of keys recorded before, or
// none at all) and below 1.
func commitFresh(run, seq int) []seen.Key {
	if seq < 1 || seq%2 == 0 {
		return nil
	}
	keys := make([]seen.Key, 300)
	for i := range keys {
		keys[i] = dkey(uint64(run)<<48|uint64(seq)<<16|uint64(i), 0xc0_ff_ee)
	}
	return keys
}

// commitBatch returns the keys InsertCommit gets with batch seq of a
// commit test's run: its new keys, keys of the run's batch before (already
// recorded) and repeats; for seq%4 == 0, none.
func commitBatch(run, seq int) []seen.Key {
	if seq%4 == 0 {
		return nil
	}
	keys := commitFresh(run, seq)
	keys = append(keys, keys[:min(len(keys), 20)]...)
	if prev := commitFresh(run, seq-1); len(prev) > 0 {
		keys = append(keys, prev[:100]...)
	} else if prev := commitFresh(run, seq-2); len(prev) > 0 {
		keys = append(keys, prev...)
	}
	return keys
}

// TestDiskCommitRecords: many commits of several runs, interleaved, with
// new keys, keys recorded before and none: Len, Stamp, Verify and the
// count record count the keys alone, across a clean Close, an Open that
// counts the keys (a process that did not close the set) and Recover;
// the store holds each run's record (8 bytes, little-endian, under
// "m/run/" and the run) and every key of its batches.
func TestDiskCommitRecords(t *testing.T) {
	dir := t.TempDir()
	d := openDisk(t, dir, anyParams)
	const batches = 40
	var want int64
	for seq := 1; seq <= batches; seq++ {
		for r, run := range commitRuns {
			if err := d.InsertCommit(seen.Commit{Run: run, Seq: int64(seq)}, commitBatch(r, seq)); err != nil {
				t.Fatalf("InsertCommit(%s, %d): %v", run, seq, err)
			}
			want += int64(len(commitFresh(r, seq)))
			if n := d.Len(); n != want {
				t.Fatalf("after batch %d of run %s: Len = %d, want %d", seq, run, n, want)
			}
		}
	}
	check := func(t *testing.T, d *ps.Set, what string) {
		t.Helper()
		if n, s := d.Len(), d.Stamp(); n != want || s.Count != want {
			t.Fatalf("%s: Len = %d, Stamp().Count = %d, want %d keys", what, n, s.Count, want)
		}
		if err := d.Verify(); err != nil {
			t.Fatalf("%s: Verify: %v", what, err)
		}
		for _, run := range commitRuns {
			if seq, err := d.Committed(run); err != nil || seq != batches {
				t.Fatalf("%s: Committed(%s) = %d, %v; want %d", what, run, seq, err, batches)
			}
		}
		for r := range commitRuns {
			for seq := 1; seq <= batches; seq++ {
				wantAllSeen(t, d, commitFresh(r, seq))
			}
		}
	}
	check(t, d, "open")
	must(t, d.Close())

	// The store as Pebble holds it.
	db, err := pebble.Open(dir, &pebble.Options{Logger: discardLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range commitRuns {
		v, closer, err := db.Get([]byte("m/run/" + run))
		if err != nil {
			t.Fatalf("m/run/%s: %v", run, err)
		}
		if len(v) != 8 || binary.LittleEndian.Uint64(v) != batches {
			t.Errorf("m/run/%s = %x, want %d as 8 bytes little-endian", run, v, batches)
		}
		closer.Close()
	}
	v, closer, err := db.Get([]byte("m/count"))
	if err != nil {
		t.Fatal(err)
	}
	if got := int64(binary.LittleEndian.Uint64(v)); got != want {
		t.Errorf("m/count = %d, want %d", got, want)
	}
	closer.Close()
	it, err := db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys int64
	var records []string
	for valid := it.First(); valid; valid = it.Next() {
		switch k := it.Key(); {
		case len(k) == 17 && k[0] == 'k':
			keys++
		case strings.HasPrefix(string(k), "m/"):
			records = append(records, string(k))
		default:
			t.Errorf("a Pebble key that is neither a key nor a record: %q", k)
		}
	}
	must(t, errors.Join(it.Error(), it.Close()))
	must(t, db.Close())
	wantRecords := []string{"m/count", "m/format", "m/id"}
	for _, run := range commitRuns {
		wantRecords = append(wantRecords, "m/run/"+run)
	}
	if keys != want || !slices.Equal(records, wantRecords) {
		t.Errorf("the store holds %d keys and the records %q, want %d and %q", keys, records, want, wantRecords)
	}

	d = openDisk(t, dir, anyParams)
	check(t, d, "reopened")
	must(t, d.Close())
	// As a process that did not close it leaves it: Open counts the keys
	// and compares the count record.
	editState(t, dir, func(s string) string { return strings.Replace(s, `"open":false`, `"open":true`, 1) })
	d = openDisk(t, dir, anyParams)
	check(t, d, "opened after a kill")
	must(t, d.Close())
	// Recover counts the keys and sets the count record to them.
	d = openDisk(t, dir, &ps.Options{AnyParams: true, Recover: true})
	check(t, d, "recovered")
	must(t, d.Close())
}

// TestDiskCommitDamagedRecord: a commit record that is not 8 bytes is
// an error of Committed that says the store is damaged, and changes
// nothing else.
func TestDiskCommitDamagedRecord(t *testing.T) {
	dir := t.TempDir()
	d := openDisk(t, dir, anyParams)
	must(t, d.InsertCommit(seen.Commit{Run: commitRuns[0], Seq: 3}, commitBatch(0, 1)))
	must(t, d.Close())
	db, err := pebble.Open(dir, &pebble.Options{Logger: discardLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	must(t, db.Set([]byte("m/run/"+commitRuns[0]), []byte{3, 0, 0}, pebble.Sync))
	must(t, db.Close())
	d = openDisk(t, dir, anyParams)
	defer d.Close()
	if seq, err := d.Committed(commitRuns[0]); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Committed of a record of 3 bytes = %d, %v; want an error that says the store is damaged", seq, err)
	}
	if seq, err := d.Committed(commitRuns[1]); err != nil || seq != 0 {
		t.Fatalf("Committed of another run = %d, %v; want 0", seq, err)
	}
	if err := d.InsertCommit(seen.Commit{Run: commitRuns[0], Seq: -1}, nil); err == nil || !strings.Contains(err.Error(), "not a batch number") {
		t.Fatalf("InsertCommit with Seq -1: %v, want a refusal", err)
	}
	// A new InsertCommit replaces the record.
	must(t, d.InsertCommit(seen.Commit{Run: commitRuns[0], Seq: 4}, nil))
	if seq, err := d.Committed(commitRuns[0]); err != nil || seq != 4 {
		t.Fatalf("Committed after a new InsertCommit = %d, %v; want 4", seq, err)
	}
	if n := d.Len(); n != int64(len(commitFresh(0, 1))) {
		t.Fatalf("Len = %d, want %d", n, len(commitFresh(0, 1)))
	}
}

// TestDiskCommitFatal: an InsertCommit of the record alone is a synced
// commit, and where its sync fails the set stops: that call, Committed
// and every later call return the failure.
func TestDiskCommitFatal(t *testing.T) {
	toggle := &errorfs.Toggle{Injector: errorfs.ErrInjected.If(opIf(func(op errorfs.Op) bool {
		sync := op.Kind == errorfs.OpFileSync || op.Kind == errorfs.OpFileSyncData || op.Kind == errorfs.OpFileSyncTo
		return sync && strings.HasSuffix(op.Path, ".log")
	}))}
	d, err := ps.Open(filepath.Join(t.TempDir(), "set"), ps.WithFS(anyParams, errorfs.Wrap(vfs.Default, toggle)))
	if err != nil {
		t.Fatal(err)
	}
	run := commitRuns[1]
	must(t, d.InsertCommit(seen.Commit{Run: run, Seq: 1}, commitBatch(0, 1)))
	toggle.On()
	err = d.InsertCommit(seen.Commit{Run: run, Seq: 2}, nil)
	if err == nil || !strings.Contains(err.Error(), "injected error") || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("InsertCommit of the record alone with the WAL's sync failing: %v, want the failure", err)
	}
	if _, cerr := d.Committed(run); cerr == nil || cerr.Error() != err.Error() {
		t.Errorf("Committed after the failure: %v, want %v", cerr, err)
	}
	if cerr := d.InsertCommit(seen.Commit{Run: run, Seq: 3}, commitBatch(0, 3)); cerr == nil || cerr.Error() != err.Error() {
		t.Errorf("InsertCommit after the failure: %v, want %v", cerr, err)
	}
	done := make(chan error)
	go func() { done <- d.Close() }()
	select {
	case err := <-done:
		if err == nil || errors.Is(err, seen.ErrClosed) {
			t.Errorf("Close of a stopped set: %v, want the failure", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Close of a stopped set hangs")
	}
}

const commitEnvDir = "URISCAN_SEEN_COMMIT_DIR"

// TestDiskCommitKillChild is the child process of TestDiskCommitKill: it
// makes batch after batch of run 0 with InsertCommit (commitBatch),
// printing "seq N" after each, until it is killed (15 s at most).
func TestDiskCommitKillChild(t *testing.T) {
	dir := os.Getenv(commitEnvDir)
	if dir == "" {
		t.Skip("helper process for TestDiskCommitKill")
	}
	d, err := ps.Open(dir, anyParams)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	deadline := time.Now().Add(15 * time.Second)
	for seq := 1; time.Now().Before(deadline); seq++ {
		if err := d.InsertCommit(seen.Commit{Run: commitRuns[0], Seq: int64(seq)}, commitBatch(0, seq)); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		fmt.Printf("seq %d\n", seq)
	}
	os.Exit(0) // without d.Close
}

// TestDiskCommitKill kills a process in the middle of its InsertCommits:
// the set then records the run's last batch reported done or the one
// after it, and holds exactly the keys of the batches up to the one it
// records, none of the next: no key without its commit record, no
// record without its keys.
func TestDiskCommitKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	dir := t.TempDir()
	openDisk(t, dir, anyParams).Close()
	child := testexec.Start(t, "TestDiskCommitKillChild", commitEnvDir+"="+dir)
	cmd, stdout, stderr := child.Cmd, child.Stdout, child.Stderr
	last, killed := 0, false
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimPrefix(sc.Text(), "seq "))
		if err != nil || n != last+1 {
			continue // a line cut short by the kill
		}
		last = n
		if last == 30 && !killed {
			killed = true
			must(t, cmd.Process.Kill())
		}
	}
	werr := cmd.Wait()
	if !killed {
		t.Fatalf("child ended before it was killed (%v, %d batches)\n%s", werr, last, stderr.String())
	}

	d := openDisk(t, dir, anyParams)
	defer d.Close()
	got, err := d.Committed(commitRuns[0])
	if err != nil {
		t.Fatal(err)
	}
	if got != int64(last) && got != int64(last)+1 {
		t.Fatalf("Committed = %d after batch %d was reported done, want %d or %d", got, last, last, last+1)
	}
	t.Logf("killed after batch %d was reported done; the set records batch %d", last, got)
	var want int64
	for seq := 1; seq <= int(got); seq++ {
		keys := commitFresh(0, seq)
		want += int64(len(keys))
		wantAllSeen(t, d, keys)
	}
	if n := d.Len(); n != want {
		t.Fatalf("Len = %d, want %d, the keys of batches 1 to %d", n, want, got)
	}
	for seq := int(got) + 1; seq <= int(got)+2; seq++ {
		keys := commitFresh(0, seq)
		has := make([]bool, len(keys))
		must(t, d.Contains(keys, has))
		for i, h := range has {
			if h {
				t.Fatalf("key %d of batch %d is recorded, but the set records batch %d", i, seq, got)
			}
		}
	}
}
