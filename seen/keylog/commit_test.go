package keylog_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
)

const (
	runA = "0123456789abcdef0123456789abcdef"
	runB = "fedcba9876543210fedcba9876543210"
	runC = "00000000000000000000000000000001"
)

// keyRange returns bkey(from..to-1).
func keyRange(from, to int) []seen.Key {
	keys := make([]seen.Key, 0, to-from)
	for i := from; i < to; i++ {
		keys = append(keys, bkey(i))
	}
	return keys
}

func insertCommit(t *testing.T, s *keylog.Set, run string, seq int64, keys []seen.Key) {
	t.Helper()
	if err := s.InsertCommit(seen.Commit{Run: run, Seq: seq}, keys); err != nil {
		t.Fatalf("InsertCommit(%s, %d): %v", run, seq, err)
	}
}

func wantCommitted(t *testing.T, s *keylog.Set, run string, want int64) {
	t.Helper()
	got, err := s.Committed(run)
	if err != nil || got != want {
		t.Fatalf("Committed(%s) = %d, %v; want %d", run, got, err, want)
	}
}

func logSize(t *testing.T, dir string) int64 {
	t.Helper()
	fi, err := os.Stat(logFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// stateOf reads the state file of dir, which must be sealed.
func stateOf(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "uriscan-seen.json"))
	if err != nil {
		t.Fatal(err)
	}
	obj, sealed, err := atomicfile.UnsealJSON(b)
	if err != nil || !sealed {
		t.Fatalf("state file: sealed %v, %v:\n%s", sealed, err, b)
	}
	var st map[string]any
	if err := json.Unmarshal(obj, &st); err != nil {
		t.Fatal(err)
	}
	return st
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// commitRecord is a commit record as the format comment describes it,
// made here by hand: run's 16 bytes, seq, pad (zeros in a valid one).
func commitRecord(run string, seq uint64, pad byte) []byte {
	b := make([]byte, 48)
	copy(b[0:4], "UKC1")
	binary.LittleEndian.PutUint32(b[4:], 2)
	hex.Decode(b[16:32], []byte(run))
	binary.LittleEndian.PutUint64(b[32:], seq)
	b[47] = pad
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b[16:48], castagnoli))
	binary.LittleEndian.PutUint32(b[12:], crc32.Checksum(b[:12], castagnoli))
	return b
}

// TestCommitLayout checks what InsertCommit writes: a commit record as
// documented, then the keys record, in one piece; a commit record alone
// for no new key; nothing for the run's last commit again; Len and Stamp
// count keys only; a Seq under 1 is refused.
func TestCommitLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	defer s.Close()
	size := logSize(t, dir)
	grew := func(what string, want int64) {
		t.Helper()
		now := logSize(t, dir)
		if now-size != want {
			t.Fatalf("%s: the log grew by %d bytes, want %d", what, now-size, want)
		}
		size = now
	}
	insertCommit(t, s, runA, 1, keyRange(0, 10))
	b, err := os.ReadFile(logFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	rec := b[size:]
	grew("a commit with 10 new keys", 48+16+160)
	if !bytes.Equal(rec[:48], commitRecord(runA, 1, 0)) {
		t.Fatalf("commit record %x, want %x", rec[:48], commitRecord(runA, 1, 0))
	}
	if string(rec[48:52]) != "UKR1" || binary.LittleEndian.Uint32(rec[52:]) != 10 {
		t.Fatalf("keys record header %x after the commit record", rec[48:64])
	}
	insertCommit(t, s, runA, 1, keyRange(0, 10))
	grew("the run's last commit again, no new key", 0)
	insertCommit(t, s, runA, 2, keyRange(0, 10))
	grew("a commit with no new key", 48)
	insertCommit(t, s, runB, 1, nil)
	grew("a commit with nil keys", 48)
	if err := s.Insert(keyRange(10, 15)); err != nil {
		t.Fatal(err)
	}
	grew("Insert of 5 keys", 16+80)
	wantCommitted(t, s, runA, 2)
	wantCommitted(t, s, runB, 1)
	wantCommitted(t, s, runC, 0)
	if s.Len() != 15 || s.Stamp().Count != 15 {
		t.Fatalf("Len %d, Stamp %+v: want 15 keys", s.Len(), s.Stamp())
	}
	for _, seq := range []int64{0, -1} {
		if err := s.InsertCommit(seen.Commit{Run: runA, Seq: seq}, keyRange(20, 30)); err == nil || !strings.Contains(err.Error(), "not a batch number") {
			t.Fatalf("InsertCommit of Seq %d: %v", seq, err)
		}
	}
	grew("refused commits", 0)
	wantCommitted(t, s, runA, 2)
	wantKeys(t, s, 15, 20)
	if err := s.Verify(); err != nil {
		t.Fatal(err)
	}
}

// TestCommitTorn cuts the last write of InsertCommit (a commit record
// and its keys) at every byte, as a crash may: the set opens with either
// nothing of it, the commit record alone, or both, never the keys
// without their commit record, and the rest is dropped from the file.
func TestCommitTorn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	insertCommit(t, s, runA, 1, keyRange(0, 100))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := logSize(t, dir)
	s = open(t, dir, anyParams)
	insertCommit(t, s, runA, 2, append(keyRange(100, 105), keyRange(0, 50)...))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	full, err := os.ReadFile(logFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	after := int64(len(full))
	if after != before+48+16+5*16 {
		t.Fatalf("the last write is %d bytes, want %d", after-before, 48+16+5*16)
	}
	markOpen(t, dir, 100) // as a process killed in that write leaves it
	state, err := os.ReadFile(filepath.Join(dir, "uriscan-seen.json"))
	if err != nil {
		t.Fatal(err)
	}
	for cut := before; cut <= after; cut++ {
		d := filepath.Join(t.TempDir(), "set")
		os.MkdirAll(d, 0o755)
		if err := os.WriteFile(logFile(d), full[:cut], 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "uriscan-seen.json"), state, 0o644); err != nil {
			t.Fatal(err)
		}
		s := open(t, d, anyParams)
		seq, err := s.Committed(runA)
		if err != nil {
			t.Fatal(err)
		}
		n := s.Len()
		var want struct {
			seq  int64
			n    int64
			size int64
		}
		switch {
		case cut < before+48:
			want.seq, want.n, want.size = 1, 100, before
		case cut < after:
			want.seq, want.n, want.size = 2, 100, before+48
		default:
			want.seq, want.n, want.size = 2, 105, after
		}
		if n == 105 && seq != 2 {
			t.Fatalf("cut at byte %d: the keys are there, the commit record is not (Committed %d)", cut, seq)
		}
		if seq != want.seq || n != want.n {
			t.Fatalf("cut at byte %d: Committed %d, Len %d; want %d, %d", cut, seq, n, want.seq, want.n)
		}
		wantKeys(t, s, int(n), 5)
		if err := s.Verify(); err != nil {
			t.Fatal(err)
		}
		if size := logSize(t, d); size != want.size {
			t.Fatalf("cut at byte %d: the log is %d bytes after Open, want %d", cut, size, want.size)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCommitDamaged: a commit record is checked as a keys record is: one
// that fails its checksum with a valid record after it is damage, one
// that a crash cut short at the end is dropped, and one whose checksums
// hold but whose contents are not a commit's is damage.
func TestCommitDamaged(t *testing.T) {
	t.Run("middle", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "set")
		s := open(t, dir, anyParams)
		fill(t, s, 0, 100, 100)
		insertCommit(t, s, runA, 1, keyRange(100, 200)) // at byte 64 + 16*101
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(logFile(dir))
		b[1680+16+3] ^= 1 // its run
		os.WriteFile(logFile(dir), b, 0o644)
		if _, err := openSet(dir, anyParams); !errors.Is(err, keylog.ErrDamaged) || !strings.Contains(err.Error(), "byte 1680") {
			t.Fatalf("Open of a log whose commit record is damaged: %v, want ErrDamaged at byte 1680", err)
		}
	})
	t.Run("last", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "set")
		s := open(t, dir, anyParams)
		insertCommit(t, s, runA, 1, keyRange(0, 100))
		size := logSize(t, dir)
		insertCommit(t, s, runA, 2, nil)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(logFile(dir))
		b[size+32] ^= 1 // its Seq
		os.WriteFile(logFile(dir), b, 0o644)
		s = open(t, dir, anyParams)
		defer s.Close()
		wantCommitted(t, s, runA, 1)
		wantKeys(t, s, 100, 10)
		if got := logSize(t, dir); got != size {
			t.Fatalf("the log is %d bytes, want %d: the torn commit record is not dropped", got, size)
		}
	})
	t.Run("handmade", func(t *testing.T) {
		for _, c := range []struct {
			seq  uint64
			pad  byte
			fail string
		}{
			{5, 0, ""}, // the format as documented
			{0, 0, "Seq is 0"},
			{1 << 63, 0, "Seq is -"},
			{5, 1, "not zeros"},
		} {
			dir := threeRecords(t)
			f, _ := os.OpenFile(logFile(dir), os.O_APPEND|os.O_WRONLY, 0)
			f.Write(commitRecord(runB, c.seq, c.pad))
			f.Close()
			s, err := openSet(dir, anyParams)
			if c.fail != "" {
				if !errors.Is(err, keylog.ErrDamaged) || !strings.Contains(err.Error(), c.fail) || !strings.Contains(err.Error(), "byte 4912") {
					t.Fatalf("Open with a commit record of Seq %d, pad %d: %v, want ErrDamaged at byte 4912 saying %q", c.seq, c.pad, err, c.fail)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			wantCommitted(t, s, runB, int64(c.seq))
			wantKeys(t, s, 300, 10)
			s.Close()
		}
	})
}

// rewindSet makes a set with the records of recs, in order: a run's
// commit (its Seq) with 100 new keys, or (run "") an Insert of 100 new
// keys; it returns the set and the keys' count.
func rewindSet(t *testing.T, recs ...seen.Commit) (*keylog.Set, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	for i, c := range recs {
		keys := keyRange(100*i, 100*i+100)
		if c.Run == "" {
			if err := s.Insert(keys); err != nil {
				t.Fatal(err)
			}
			continue
		}
		insertCommit(t, s, c.Run, c.Seq, keys)
	}
	return s, dir
}

func rewind(t *testing.T, s *keylog.Set, run string, seq, wantDropped int64) {
	t.Helper()
	dropped, err := s.Rewind(run, seq)
	if err != nil || dropped != wantDropped {
		t.Fatalf("Rewind(%s, %d) = %d, %v; want %d dropped", run, seq, dropped, err, wantDropped)
	}
}

// wantState checks that the state file of dir records count keys and
// an open set.
func wantState(t *testing.T, dir string, count int64) {
	t.Helper()
	st := stateOf(t, dir)
	if st["count"] != float64(count) || st["open"] != true {
		t.Fatalf("state file %v, want count %d and open", st, count)
	}
}

func TestRewind(t *testing.T) {
	a := func(seq int64) seen.Commit { return seen.Commit{Run: runA, Seq: seq} }
	b := func(seq int64) seen.Commit { return seen.Commit{Run: runB, Seq: seq} }
	plain := seen.Commit{}
	t.Run("reopen", func(t *testing.T) {
		s, dir := rewindSet(t, a(1), a(2), a(3), a(4), a(5))
		rewind(t, s, runA, 2, 300)
		wantCommitted(t, s, runA, 2)
		wantKeys(t, s, 200, 300)
		wantState(t, dir, 200)
		if err := s.Verify(); err != nil {
			t.Fatal(err)
		}
		if size, want := logSize(t, dir), int64(64+2*(48+16+1600)); size != want {
			t.Fatalf("the log is %d bytes after the rewind, want %d", size, want)
		}
		// It goes on: batch 3 again, its keys new again.
		insertCommit(t, s, runA, 3, keyRange(200, 300))
		wantKeys(t, s, 300, 200)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = open(t, dir, anyParams)
		defer s.Close()
		wantCommitted(t, s, runA, 3)
		wantKeys(t, s, 300, 200)
		if err := s.Verify(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("middle", func(t *testing.T) {
		s, dir := rewindSet(t, b(1), a(1), a(2), a(3), a(4))
		defer s.Close()
		insertCommit(t, s, runA, 5, keyRange(0, 100)) // no new key: the record alone
		size := logSize(t, dir)
		rewind(t, s, runA, 5, 0) // nothing past 5
		rewind(t, s, runA, 9, 0)
		rewind(t, s, runC, 0, 0) // no record at all
		if logSize(t, dir) != size {
			t.Fatal("a rewind that cuts nothing changed the log")
		}
		rewind(t, s, runA, 4, 0) // the lone commit record of 5
		wantCommitted(t, s, runA, 4)
		wantKeys(t, s, 500, 10)
		rewind(t, s, runA, 2, 200)
		wantCommitted(t, s, runA, 2)
		wantKeys(t, s, 300, 10)
		rewind(t, s, runA, 0, 200) // all of the run
		wantCommitted(t, s, runA, 0)
		wantCommitted(t, s, runB, 1)
		wantKeys(t, s, 100, 10)
		wantState(t, dir, 100)
		if err := s.Verify(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("others", func(t *testing.T) {
		s, dir := rewindSet(t, a(1), b(1), a(2), a(3), b(2), seen.Commit{Run: runC, Seq: 1})
		defer s.Close()
		size := logSize(t, dir)
		_, err := s.Rewind(runA, 1)
		if !errors.Is(err, keylog.ErrRewindOthers) || !strings.Contains(err.Error(), runB+", "+runC) || !strings.Contains(err.Error(), "drop their keys") {
			t.Fatalf("Rewind with other runs' records after the cut: %v, want ErrRewindOthers naming %s and %s", err, runB, runC)
		}
		if logSize(t, dir) != size {
			t.Fatal("a refused rewind changed the log")
		}
		wantCommitted(t, s, runA, 3)
		wantKeys(t, s, 600, 10)
		// Cut back the others first, then it can.
		rewind(t, s, runC, 0, 100)
		rewind(t, s, runB, 1, 100)
		rewind(t, s, runA, 1, 200) // b(1) is before the cut: it stays
		wantCommitted(t, s, runA, 1)
		wantCommitted(t, s, runB, 1)
		wantCommitted(t, s, runC, 0)
		wantKeys(t, s, 200, 10)
	})
	t.Run("plain-inserts", func(t *testing.T) {
		// Records of Insert (no run) after the cut go with it, silently.
		s, dir := rewindSet(t, plain, a(1), plain, a(2), plain, plain)
		rewind(t, s, runA, 1, 300)
		wantCommitted(t, s, runA, 1)
		wantKeys(t, s, 300, 300)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = open(t, dir, anyParams)
		defer s.Close()
		wantKeys(t, s, 300, 300)
	})
	t.Run("migrating", func(t *testing.T) {
		// A rewind while the index grows: the index is built again.
		dir := filepath.Join(t.TempDir(), "set")
		s := open(t, dir, anyParams)
		defer s.Close()
		n, seq := 0, int64(0)
		for !keylog.Migrating(s) {
			seq++
			insertCommit(t, s, runA, seq, keyRange(n, n+4096))
			n += 4096
		}
		rewind(t, s, runA, seq-1, 4096)
		if keylog.Migrating(s) {
			t.Error("still migrating after the index was built again")
		}
		wantKeys(t, s, n-4096, 5000)
	})
	t.Run("errors", func(t *testing.T) {
		s, _ := rewindSet(t, a(1), a(2))
		if _, err := s.Rewind("0123", 1); !errors.Is(err, seen.ErrRunID) {
			t.Fatalf("Rewind of a bad run: %v", err)
		}
		s.Close()
		if _, err := s.Rewind(runA, 1); !errors.Is(err, seen.ErrClosed) {
			t.Fatalf("Rewind after Close: %v", err)
		}
	})
}

// TestStateSealed: the state file is sealed with its checksum; one that
// was changed is refused as damaged (a *seen.LostError), and Recover
// takes the log as it is; one of the previous version, unsealed, is read
// and sealed at the next write.
func TestStateSealed(t *testing.T) {
	t.Run("changed", func(t *testing.T) {
		dir := threeRecords(t)
		name := filepath.Join(dir, "uriscan-seen.json")
		b, _ := os.ReadFile(name)
		i := bytes.Index(b, []byte(`"count":300`))
		b[i+len(`"count":`)] = '4'
		os.WriteFile(name, b, 0o644)
		_, err := openSet(dir, anyParams)
		if !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "uriscan-seen.json is damaged") || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("Open with a changed state file: %v, want a *seen.LostError saying it is damaged", err)
		}
		s := open(t, dir, &keylog.Options{AnyParams: true, Recover: true})
		wantKeys(t, s, 300, 10)
		s.Close()
		open(t, dir, anyParams).Close()
	})
	t.Run("unsealed", func(t *testing.T) {
		dir := threeRecords(t)
		id := stateOf(t, dir)["id"].(string)
		old := `{"format":"uriscan/seen keylog v1","id":"` + id + `","count":300,"open":false}` + "\n"
		os.WriteFile(filepath.Join(dir, "uriscan-seen.json"), []byte(old), 0o644)
		s := open(t, dir, anyParams)
		wantState(t, dir, 300) // sealed by Open's write
		wantKeys(t, s, 300, 10)
		s.Close()
		if st := stateOf(t, dir); st["id"] != id || st["open"] != false {
			t.Fatalf("state file after Close: %v", st)
		}
	})
}

// TestStaleTemp: the temporary files that a process killed while it
// replaced the state file (or made the log) left are removed by Open.
func TestStaleTemp(t *testing.T) {
	dir := threeRecords(t)
	stale := []string{"uriscan-seen.json.tmp123", "uriscan-seen.json.tmp4567", "keys.log.tmp89"}
	for _, name := range stale {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(`{"format":`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s := open(t, dir, anyParams)
	defer s.Close()
	for _, name := range stale {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after Open (%v)", name, err)
		}
	}
	wantKeys(t, s, 300, 10)
}
