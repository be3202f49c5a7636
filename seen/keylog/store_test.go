package keylog_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
)

func open(t *testing.T, dir string, o *keylog.Options) *keylog.Set {
	t.Helper()
	s, err := openSet(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fill adds keys bkey(from..to-1) in batches of batch, and checks that
// each is new.
func fill(t *testing.T, s seen.Set, from, to, batch int) {
	t.Helper()
	for i := from; i < to; i += batch {
		keys := make([]seen.Key, 0, batch)
		for j := i; j < min(i+batch, to); j++ {
			keys = append(keys, bkey(j))
		}
		isNew := make([]bool, len(keys))
		if err := s.AddBatch(keys, isNew); err != nil {
			t.Fatal(err)
		}
		for j, v := range isNew {
			if !v {
				t.Fatalf("key %d: not new", i+j)
			}
		}
	}
}

// wantKeys checks that s holds exactly keys bkey(0..n-1) among 0..n+extra-1.
func wantKeys(t *testing.T, s seen.Set, n, extra int) {
	t.Helper()
	if s.Len() != int64(n) {
		t.Errorf("Len = %d, want %d", s.Len(), n)
	}
	keys := make([]seen.Key, n+extra)
	for i := range keys {
		keys[i] = bkey(i)
	}
	has := make([]bool, len(keys))
	if err := s.Contains(keys, has); err != nil {
		t.Fatal(err)
	}
	for i, h := range has {
		if h != (i < n) {
			t.Fatalf("key %d: Contains = %v, want %v", i, h, i < n)
		}
	}
}

func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	fill(t, s, 0, 30_000, 1000)
	fill(t, s, 30_000, 30_100, 1) // Add-sized calls
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir, anyParams)
	wantKeys(t, s, 30_100, 1000)
	st := s.Stamp()
	if st.Count != 30_100 || len(st.ID) != 32 {
		t.Errorf("Stamp = %+v", st)
	}
	if err := s.Verify(); err != nil {
		t.Error(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("second Close: %v", err)
	}
	if _, err := s.Add(bkey(1)); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	// Its disk footprint: 16 bytes a key, 16 a call.
	fi, err := os.Stat(filepath.Join(dir, "keys.log"))
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(16*(30_100+30+100)) + 64 + 128; fi.Size() > want {
		t.Errorf("keys.log is %d bytes, want at most %d", fi.Size(), want)
	}
}

// TestGrow fills a set past several index sizes and checks every key
// after each rebuild.
func TestGrow(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "set"), anyParams)
	defer s.Close()
	r0 := keylog.Rebuilt(s)
	fill(t, s, 0, 40_000, 3000)
	if keylog.Rebuilt(s)-r0 < 3 {
		t.Errorf("index rebuilt %d times for 40,000 keys, want at least 3", keylog.Rebuilt(s)-r0)
	}
	if b := keylog.IndexBytes(s); b > 40_000*22 {
		t.Errorf("index of %d bytes for 40,000 keys", b)
	}
	wantKeys(t, s, 40_000, 5000)
}

// TestFingerprints adds keys that share their home and fingerprint,
// so that only the log tells them apart.
func TestFingerprints(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "set"), anyParams)
	defer s.Close()
	// The home is lo ^ hi*c (its top bits), the fingerprint the low 32
	// bits of lo ^ hi ^ hi>>32: both held while hi and lo change.
	const c = 0x9e3779b97f4a7c15
	lo0, hi0 := uint64(0x0123456789abcdef), uint64(0x1111111122222222)
	var keys []seen.Key
	for x := range uint64(50) {
		hi := hi0 ^ (x | x<<32)
		lo := (lo0^hi0*c^hi*c)&^0xffffffff | lo0&0xffffffff
		var k seen.Key
		binary.LittleEndian.PutUint64(k[0:8], lo)
		binary.LittleEndian.PutUint64(k[8:16], hi)
		keys = append(keys, k)
	}
	isNew := make([]bool, len(keys))
	for round := range 2 {
		// Half in one batch (the record being made), half one by one.
		if err := s.AddBatch(keys[:25], isNew); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys[25:] {
			n, err := s.Add(k)
			if err != nil {
				t.Fatal(err)
			}
			isNew = append(isNew[:25], n)
		}
		for i, v := range isNew[:25] {
			if v != (round == 0) {
				t.Fatalf("round %d: key %d new = %v", round, i, v)
			}
		}
	}
	if s.Len() != 50 {
		t.Errorf("Len = %d, want 50", s.Len())
	}
	// The second round reads back every key before its own: 25*24/2 in
	// the batch, and more one by one.
	if keylog.Confirmed(s) < 50*49/2 {
		t.Errorf("%d keys read back from the log, want at least %d", keylog.Confirmed(s), 50*49/2)
	}
}

// logFile returns the path of the log of the set in dir.
func logFile(dir string) string { return filepath.Join(dir, "keys.log") }

// threeRecords makes a closed set of three records of 100 keys.
func threeRecords(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	fill(t, s, 0, 300, 100)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestTornTail(t *testing.T) {
	for _, cut := range []int{1, 16, 17, 16 * 20, 16*101 - 1} {
		dir := threeRecords(t)
		// A fourth record that a crash cut short: a prefix of it.
		s := open(t, dir, anyParams)
		fill(t, s, 300, 400, 100)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		fi, _ := os.Stat(logFile(dir))
		if err := os.Truncate(logFile(dir), fi.Size()-16*101+int64(cut)); err != nil {
			t.Fatal(err)
		}
		markOpen(t, dir, 300) // as a killed process leaves it
		s = open(t, dir, anyParams)
		wantKeys(t, s, 300, 100)
		fill(t, s, 300, 350, 50) // new again: they were never recorded
		s.Close()
	}
}

// markOpen rewrites the state file of dir as a process killed with
// count keys leaves it.
func markOpen(t *testing.T, dir string, count int) {
	t.Helper()
	editState(t, dir, func(st map[string]any) {
		st["open"] = true
		st["count"] = count
	})
}

// editState rewrites the state file of dir with edit's changes: unsealed,
// edited, sealed again, as the set writes it.
func editState(t *testing.T, dir string, edit func(st map[string]any)) {
	t.Helper()
	name := filepath.Join(dir, "uriscan-seen.json")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	obj, sealed, err := atomicfile.UnsealJSON(b)
	if err != nil || !sealed {
		t.Fatalf("state file %s: sealed %v, %v", name, sealed, err)
	}
	var st map[string]any
	if err := json.Unmarshal(obj, &st); err != nil {
		t.Fatal(err)
	}
	edit(st)
	if obj, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, append(atomicfile.SealJSON(obj), '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDamaged(t *testing.T) {
	dir := threeRecords(t)
	b, err := os.ReadFile(logFile(dir))
	if err != nil {
		t.Fatal(err)
	}
	// A bit of a key of the second record (byte 64 + 16*101 + 16*5).
	off := 64 + 16*101 + 16*5 + 3
	b[off] ^= 4
	if err := os.WriteFile(logFile(dir), b, 0o644); err != nil {
		t.Fatal(err)
	}
	markOpen(t, dir, 300)
	_, err = openSet(dir, anyParams)
	if !errors.Is(err, keylog.ErrDamaged) || !strings.Contains(err.Error(), "byte 1680") {
		t.Fatalf("Open of a damaged log: %v, want ErrDamaged at byte 1680", err)
	}
	// Recover does not take it either.
	if _, err := openSet(dir, &keylog.Options{AnyParams: true, Recover: true}); !errors.Is(err, keylog.ErrDamaged) {
		t.Fatalf("Open with Recover of a damaged log: %v", err)
	}
}

func TestLost(t *testing.T) {
	lost := func(t *testing.T, dir, why string) {
		t.Helper()
		_, err := openSet(dir, anyParams)
		var le *seen.LostError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), why) {
			t.Fatalf("Open: %v, want a *seen.LostError saying %q", err, why)
		}
	}
	recovered := func(t *testing.T, dir string, n int) {
		t.Helper()
		s := open(t, dir, &keylog.Options{AnyParams: true, Recover: true})
		wantKeys(t, s, n, 10)
		s.Close()
		s = open(t, dir, anyParams) // the reference from now on
		s.Close()
	}
	t.Run("cut", func(t *testing.T) {
		dir := threeRecords(t)
		if err := os.Truncate(logFile(dir), 64+2*16*101); err != nil {
			t.Fatal(err)
		}
		lost(t, dir, "it holds 200 keys, where at least 300")
		recovered(t, dir, 200)
	})
	t.Run("state", func(t *testing.T) {
		dir := threeRecords(t)
		os.Remove(filepath.Join(dir, "uriscan-seen.json"))
		lost(t, dir, "state file uriscan-seen.json is gone")
		recovered(t, dir, 300)
	})
	t.Run("log", func(t *testing.T) {
		dir := threeRecords(t)
		os.Remove(logFile(dir))
		lost(t, dir, "identity record is gone")
		recovered(t, dir, 0)
	})
	t.Run("replaced", func(t *testing.T) {
		dir, other := threeRecords(t), threeRecords(t)
		if err := os.Rename(logFile(other), logFile(dir)); err != nil {
			t.Fatal(err)
		}
		lost(t, dir, "it is another store")
		recovered(t, dir, 300)
	})
	t.Run("mustexist", func(t *testing.T) {
		_, err := openSet(filepath.Join(t.TempDir(), "none"), &keylog.Options{AnyParams: true, MustExist: true})
		if !errors.Is(err, seen.ErrLost) {
			t.Fatalf("MustExist on no set: %v", err)
		}
	})
}

func TestParams(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	p := seen.Params{"key": "abc", "level": "3"}
	s := open(t, dir, &keylog.Options{Params: p})
	fill(t, s, 0, 10, 10)
	s.Close()
	var pe *seen.ParamsError
	if _, err := openSet(dir, &keylog.Options{Params: seen.Params{"key": "abc", "level": "2"}}); !errors.As(err, &pe) {
		t.Fatalf("other Params: %v", err)
	}
	if _, err := openSet(dir, nil); err == nil {
		t.Fatal("nil Params accepted")
	}
	s = open(t, dir, &keylog.Options{Params: p})
	wantKeys(t, s, 10, 1)
	s.Close()
	// An empty set made without Params takes the first ones given; one
	// with keys refuses them.
	empty := filepath.Join(t.TempDir(), "empty")
	open(t, empty, anyParams).Close()
	open(t, empty, &keylog.Options{Params: p}).Close()
	if _, err := openSet(empty, &keylog.Options{Params: seen.Params{"key": "x"}}); !errors.As(err, &pe) {
		t.Fatalf("Params not recorded: %v", err)
	}
	full := filepath.Join(t.TempDir(), "full")
	s = open(t, full, anyParams)
	fill(t, s, 0, 5, 5)
	s.Close()
	if _, err := openSet(full, &keylog.Options{Params: p}); !errors.Is(err, seen.ErrNoParams) {
		t.Fatalf("a set with keys and no Params: %v", err)
	}
}

func TestForeignDir(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644)
	if _, err := openSet(dir, anyParams); !errors.Is(err, keylog.ErrNotSet) {
		t.Fatalf("directory of other files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "uriscan-seen.lock")); err == nil {
		t.Error("Open wrote into a foreign directory")
	}
	peb := t.TempDir()
	os.WriteFile(filepath.Join(peb, "CURRENT"), []byte("MANIFEST-000001\n"), 0o644)
	if _, err := openSet(peb, anyParams); !errors.Is(err, keylog.ErrNotSet) || !strings.Contains(err.Error(), "seen/pebble") {
		t.Fatalf("a Pebble directory: %v", err)
	}
}

func TestLocked(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	_, err := openSet(dir, anyParams)
	if !errors.Is(err, keylog.ErrLocked) || !strings.Contains(err.Error(), "already open in this process") {
		t.Fatalf("second Open: %v", err)
	}
	s.Close()
	open(t, dir, anyParams).Close()
}

// TestTruncatedUnder cuts the log of an open set short: its calls fail,
// the process goes on.
func TestTruncatedUnder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	s := open(t, dir, anyParams)
	fill(t, s, 0, 100_000, 10_000)
	if err := os.Truncate(logFile(dir), 64); err != nil {
		t.Fatal(err)
	}
	keys := make([]seen.Key, 1000)
	for i := range keys {
		keys[i] = bkey(i)
	}
	has := make([]bool, len(keys))
	err := s.Contains(keys, has)
	if err == nil || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("Contains on a truncated log: %v", err)
	}
	if _, err2 := s.Add(bkey(1 << 40)); err2 == nil {
		t.Error("Add after the set stopped succeeded")
	}
	if cerr := s.Close(); cerr == nil {
		t.Error("Close of a stopped set returned nil")
	}
}

// TestMigration grows the index while keys come in small calls: the old
// index's keys move to the new one over many calls, and every answer in
// between is right.
func TestMigration(t *testing.T) {
	s := open(t, filepath.Join(t.TempDir(), "set"), anyParams)
	defer s.Close()
	n := 0
	for !keylog.Migrating(s) || n < 200_000 {
		if n > 2_000_000 {
			t.Fatal("no migration in progress after 2M keys")
		}
		fill(t, s, n, n+4096, 4096)
		n += 4096
	}
	calls := 0
	has := make([]bool, 2000)
	sample := make([]seen.Key, 2000)
	for keylog.Migrating(s) {
		calls++
		fill(t, s, n, n+100, 100)
		n += 100
		for i := range sample {
			sample[i] = bkey((i*7919 + calls*104729) % n)
		}
		if err := s.Contains(sample, has); err != nil {
			t.Fatal(err)
		}
		for i, h := range has {
			if !h {
				t.Fatalf("call %d of the migration: a recorded key (%d) is not found", calls, (i*7919+calls*104729)%n)
			}
		}
		fresh := []seen.Key{bkey(n), bkey(n + 1)}
		if err := s.Contains(fresh, has); err != nil || has[0] || has[1] {
			t.Fatalf("call %d of the migration: new keys found (%v)", calls, err)
		}
	}
	if calls < 2 {
		t.Fatalf("the migration took %d calls, want several", calls)
	}
	t.Logf("%d keys; the migration took %d calls", n, calls)
	wantKeys(t, s, n, 1000)
}

// TestHostileLogs: logs this package did not write are refused or taken
// without harm: a torn tail under a refusal is left as it was, a log
// over 64 GiB is refused before anything is read, a sparse tail of
// zeros is dropped, a key written twice is damage.
func TestHostileLogs(t *testing.T) {
	t.Run("refused-untouched", func(t *testing.T) {
		dir := threeRecords(t)
		f, _ := os.OpenFile(logFile(dir), os.O_APPEND|os.O_WRONLY, 0)
		f.Write(make([]byte, 40)) // a torn tail
		f.Close()
		markOpen(t, dir, 500) // more than it holds
		before, _ := os.Stat(logFile(dir))
		if _, err := openSet(dir, anyParams); !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "it holds 300 keys") {
			t.Fatalf("Open: %v", err)
		}
		if after, _ := os.Stat(logFile(dir)); after.Size() != before.Size() {
			t.Fatalf("a refused Open changed the log from %d to %d bytes", before.Size(), after.Size())
		}
	})
	t.Run("huge", func(t *testing.T) {
		dir := threeRecords(t)
		if err := os.Truncate(logFile(dir), 64<<30+16); err != nil {
			t.Skipf("no sparse file of 64 GiB here: %v", err)
		}
		if _, err := openSet(dir, anyParams); !errors.Is(err, keylog.ErrDamaged) {
			t.Fatalf("Open of a 64 GiB log: %v", err)
		}
	})
	t.Run("sparse-tail", func(t *testing.T) {
		dir := threeRecords(t)
		fi, _ := os.Stat(logFile(dir))
		if err := os.Truncate(logFile(dir), fi.Size()+64<<20); err != nil {
			t.Fatal(err)
		}
		s := open(t, dir, anyParams)
		wantKeys(t, s, 300, 10)
		s.Close()
		if after, _ := os.Stat(logFile(dir)); after.Size() != fi.Size() {
			t.Fatalf("the zeros were not dropped: %d bytes, want %d", after.Size(), fi.Size())
		}
	})
	t.Run("repeated", func(t *testing.T) {
		dir := threeRecords(t)
		b, _ := os.ReadFile(logFile(dir))
		first := b[64 : 64+16*101]
		os.WriteFile(logFile(dir), append(b, first...), 0o644)
		if _, err := openSet(dir, &keylog.Options{AnyParams: true, Recover: true}); !errors.Is(err, keylog.ErrDamaged) || !strings.Contains(err.Error(), "repeats") {
			t.Fatalf("Open of a log with a record written twice: %v", err)
		}
	})
}

// TestChdir: a set opened by a relative path is closed and opened again
// in place after the working directory changed.
func TestChdir(t *testing.T) {
	base := t.TempDir()
	t.Chdir(base)
	s := open(t, "set", anyParams)
	fill(t, s, 0, 10, 10)
	t.Chdir(t.TempDir())
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, filepath.Join(base, "set"), anyParams)
	wantKeys(t, s, 10, 1)
	s.Close()
}

// TestParamsRecover: an empty set made without Params, whose state file
// is unreadable, takes Params with Recover.
func TestParamsRecover(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	open(t, dir, anyParams).Close()
	os.WriteFile(filepath.Join(dir, "uriscan-seen.json"), []byte("{"), 0o644)
	p := seen.Params{"key": "k"}
	if _, err := openSet(dir, &keylog.Options{Params: p}); !errors.Is(err, seen.ErrLost) {
		t.Fatalf("Open without Recover: %v", err)
	}
	s := open(t, dir, &keylog.Options{Params: p, Recover: true})
	s.Close()
	open(t, dir, &keylog.Options{Params: p}).Close()
}
