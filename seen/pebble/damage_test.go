package pebble_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/testexec"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
)

const (
	damageEnvDir  = "URISCAN_SEEN_DAMAGE_DIR"
	damageEnvMode = "URISCAN_SEEN_DAMAGE_MODE"
	damageEnvFrom = "URISCAN_SEEN_DAMAGE_FROM"
	damageBatches = 40   // batches per child run
	damageBatch   = 2000 // keys per batch, all new
)

// damageKey is key i of the damage tests' sets.
func damageKey(i int) seen.Key { return dkey(uint64(i)*0x9e3779b97f4a7c15, uint64(i)) }

// TestDiskDamageChild is the child process of TestDiskDamage: it adds
// damageBatches batches of new keys from key FROM on, each a synced
// commit, with a memtable of 1 MiB (so the run spans several write-ahead
// logs and tables), then closes the set ("close") or exits without
// closing it ("exit", as a kill -9 would leave it).
func TestDiskDamageChild(t *testing.T) {
	dir := os.Getenv(damageEnvDir)
	if dir == "" {
		t.Skip("helper process for TestDiskDamage")
	}
	from, _ := strconv.Atoi(os.Getenv(damageEnvFrom))
	// The state file's count after every commit, not once a second: the
	// child runs for less than a second.
	d, err := pebble.Open(dir, pebble.StateEveryCommit(&pebble.Options{MemTableSize: 1 << 20, AnyParams: true}))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	keys := make([]seen.Key, damageBatch)
	for b := range damageBatches {
		for i := range keys {
			keys[i] = damageKey(from + b*damageBatch + i)
		}
		if err := d.Insert(keys); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
	}
	// Killed with no flush or compaction running, the files the test
	// damages are live ones (not tables compacted away, not logs flushed).
	pebble.WaitIdle(d)
	if os.Getenv(damageEnvMode) == "close" {
		if err := d.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
	}
	os.Exit(0)
}

// damageRun runs the child over dir.
func damageRun(t *testing.T, dir, mode string, from int) {
	t.Helper()
	cmd, err := testexec.Self("-test.run=^TestDiskDamageChild$")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), damageEnvDir+"="+dir, damageEnvMode+"="+mode, damageEnvFrom+"="+strconv.Itoa(from))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

// storeFiles returns the names of dir's files that match glob, sorted.
func storeFiles(t *testing.T, dir, glob string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, glob))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(m)
	return m
}

// liveManifest returns the MANIFEST the marker names.
func liveManifest(t *testing.T, dir string) string {
	t.Helper()
	for _, m := range storeFiles(t, dir, "marker.manifest.*") {
		return filepath.Join(dir, m[strings.LastIndex(m, ".")+1:])
	}
	t.Fatal("no manifest marker")
	return ""
}

func overwrite(t *testing.T, name string, off int64, n int, seed uint64) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := make([]byte, n)
	rand.NewChaCha8([32]byte{byte(seed)}).Read(b)
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func fileSize(t *testing.T, name string) int64 {
	t.Helper()
	fi, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestDiskDamage damages a set's files after two runs, the second closed
// or not (killed), in each way a disk, a person or a script damages them,
// and then opens it. A set may be refused (with a *LostError, or as
// damaged), open and fail at its first look-up with the corruption, or
// open with every key; what it may never do is open and answer "new" for
// a key it recorded.
func TestDiskDamage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	// What a damage may lead to, after a clean close and after a kill:
	// the README's table says the same.
	const (
		intact  = "intact"  // opens with every key
		refused = "refused" // OpenDisk refuses it, saying why
		lookup  = "lookup"  // opens; the first look-up that reads the damage fails
		either  = "either"  // intact or refused
		// refused, or opens and the first look-up that reads the damage
		// fails: which depends on the table hit (the one with the set's
		// records is read by Open).
		reported = "reported"
	)
	damages := []struct {
		name        string
		close, exit string                                // expected outcomes
		do          func(t *testing.T, dir string) string // what it damaged
	}{
		{"last WAL truncated to half", intact, either, func(t *testing.T, dir string) string {
			w := storeFiles(t, dir, "*.log")
			name := w[len(w)-1]
			must(t, os.Truncate(name, fileSize(t, name)/2))
			return name
		}},
		{"100 random bytes in the last WAL", intact, refused, func(t *testing.T, dir string) string {
			w := storeFiles(t, dir, "*.log")
			name := w[len(w)-1]
			overwrite(t, name, fileSize(t, name)/3, 100, 1)
			return name
		}},
		{"middle WAL deleted", intact, refused, func(t *testing.T, dir string) string {
			w := storeFiles(t, dir, "*.log")
			name := w[len(w)/2]
			must(t, os.Remove(name))
			return name
		}},
		{"middle WAL emptied", intact, refused, func(t *testing.T, dir string) string {
			w := storeFiles(t, dir, "*.log")
			name := w[len(w)/2]
			must(t, os.Truncate(name, 0))
			return name
		}},
		{"MANIFEST truncated to 100 bytes", refused, refused, func(t *testing.T, dir string) string {
			name := liveManifest(t, dir)
			must(t, os.Truncate(name, 100))
			return name
		}},
		{"50 random bytes in the MANIFEST", refused, refused, func(t *testing.T, dir string) string {
			name := liveManifest(t, dir)
			overwrite(t, name, fileSize(t, name)/2, 50, 2)
			return name
		}},
		{"manifest marker deleted", refused, refused, func(t *testing.T, dir string) string {
			m := storeFiles(t, dir, "marker.manifest.*")
			must(t, os.Remove(m[0]))
			return m[0]
		}},
		{"100 random bytes in a table", reported, refused, func(t *testing.T, dir string) string {
			s := storeFiles(t, dir, "*.sst")
			name := s[len(s)/2]
			overwrite(t, name, fileSize(t, name)/2, 100, 3)
			return name
		}},
		{"state file deleted", refused, refused, func(t *testing.T, dir string) string {
			name := filepath.Join(dir, "uriscan-seen.json")
			must(t, os.Remove(name))
			return name
		}},
		{"state file overwritten", refused, refused, func(t *testing.T, dir string) string {
			name := filepath.Join(dir, "uriscan-seen.json")
			overwrite(t, name, 0, 20, 4)
			return name
		}},
		{"largest table deleted", refused, refused, func(t *testing.T, dir string) string {
			s := storeFiles(t, dir, "*.sst")
			slices.SortFunc(s, func(a, b string) int { return int(fileSize(t, b) - fileSize(t, a)) })
			must(t, os.Remove(s[0]))
			return s[0]
		}},
	}
	total := 2 * damageBatches * damageBatch
	for _, mode := range []string{"close", "exit"} {
		for _, dm := range damages {
			t.Run(mode+"/"+dm.name, func(t *testing.T) {
				dir := filepath.Join(damageTempDir(t), "set")
				damageRun(t, dir, "close", 0)
				damageRun(t, dir, mode, damageBatches*damageBatch)
				var files []string
				for _, f := range storeFiles(t, dir, "*") {
					files = append(files, fmt.Sprintf("%s %d", filepath.Base(f), fileSize(t, f)))
				}
				what := dm.do(t, dir)
				want := dm.close
				if mode == "exit" {
					want = dm.exit
				}
				d, err := pebble.Open(dir, anyParams)
				if err != nil {
					if !errors.Is(err, seen.ErrLost) && !errors.Is(err, pebble.ErrDamaged) {
						t.Fatalf("damaged %s: refused without saying why: %v", filepath.Base(what), err)
					}
					if want != refused && want != either && want != reported {
						t.Fatalf("damaged %s: refused, want %s: %v", filepath.Base(what), want, err)
					}
					t.Logf("refused: %.300s", err)
					return
				}
				defer d.Close()
				keys := make([]seen.Key, total)
				for i := range keys {
					keys[i] = damageKey(i)
				}
				has := make([]bool, len(keys))
				if err := d.Contains(keys, has); err != nil {
					if !strings.Contains(err.Error(), "corruption") || (want != lookup && want != reported) {
						t.Fatalf("damaged %s: Contains: %v, want %s", filepath.Base(what), err, want)
					}
					t.Logf("opened; Contains failed: %.300s", err)
					return
				}
				missing := 0
				for _, h := range has {
					if !h {
						missing++
					}
				}
				if missing > 0 {
					t.Fatalf("damaged %s: opened with Len %d, and %d of %d keys recorded before are missing (files before: %v)", filepath.Base(what), d.Len(), missing, total, files)
				}
				if want != intact && want != either {
					t.Fatalf("damaged %s: opened with every key, want %s", filepath.Base(what), want)
				}
				t.Logf("opened with every key (Len %d)", d.Len())
			})
		}
	}
}

// TestDiskInterruptedCreate: a kill while a new set is being made leaves
// its state file (written first) and some of Pebble's first files, and no
// key: the next Open makes the set again with the same identity instead
// of refusing the directory. A directory that holds only a state file's
// temporary copy is new; one with someone else's file is not written into.
func TestDiskInterruptedCreate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "set")
	d := openDisk(t, dir, anyParams)
	id := d.Stamp().ID
	must(t, d.Close())
	// What Pebble had not made yet when the kill came.
	for _, glob := range []string{"marker.manifest.*", "MANIFEST-*", "*.sst"} {
		for _, f := range storeFiles(t, dir, glob) {
			must(t, os.Remove(f))
		}
	}
	d = openDisk(t, dir, anyParams)
	if s := d.Stamp(); s.ID != id || s.Count != 0 {
		t.Fatalf("made again: %+v, want identity %s and no key", s, id)
	}
	must(t, d.Close())

	tmpOnly := filepath.Join(t.TempDir(), "tmp")
	must(t, os.MkdirAll(tmpOnly, 0o755))
	must(t, os.WriteFile(filepath.Join(tmpOnly, "uriscan-seen.json.tmp123"), []byte("{"), 0o644))
	openDisk(t, tmpOnly, anyParams).Close()

	foreign := filepath.Join(t.TempDir(), "foreign")
	must(t, os.MkdirAll(foreign, 0o755))
	must(t, os.WriteFile(filepath.Join(foreign, "notes.txt"), []byte("mine"), 0o644))
	if _, err := pebble.Open(foreign, anyParams); !errors.Is(err, pebble.ErrNotSet) {
		t.Fatalf("Open of a directory with someone's file: %v, want ErrNotSet", err)
	}
	if b, err := os.ReadFile(filepath.Join(foreign, "notes.txt")); err != nil || string(b) != "mine" {
		t.Fatalf("the file was touched: %q, %v", b, err)
	}
	if m := storeFiles(t, foreign, "*"); len(m) != 1 {
		t.Fatalf("the refused Open wrote into the directory: %v", m)
	}
	// Log files that are not Pebble's (not numbered) are someone else's.
	logs := filepath.Join(t.TempDir(), "logs")
	must(t, os.MkdirAll(logs, 0o755))
	must(t, os.WriteFile(filepath.Join(logs, "app.log"), []byte("x"), 0o644))
	if _, err := pebble.Open(logs, anyParams); !errors.Is(err, pebble.ErrNotSet) {
		t.Fatalf("Open of a directory of app logs: %v, want ErrNotSet", err)
	}
	if m := storeFiles(t, logs, "*"); len(m) != 1 {
		t.Fatalf("the refused Open wrote into the directory: %v", m)
	}
	// A new filesystem's lost+found is no obstacle; a set's directory may
	// hold files of others (.DS_Store, .nfs*).
	mnt := filepath.Join(t.TempDir(), "mnt")
	must(t, os.MkdirAll(filepath.Join(mnt, "lost+found"), 0o755))
	d = openDisk(t, mnt, anyParams)
	must(t, d.Close())
	must(t, os.WriteFile(filepath.Join(mnt, ".DS_Store"), []byte("x"), 0o644))
	openDisk(t, mnt, anyParams).Close()
}

// damageTempDir is a temporary directory removed after the test, retrying
// for a few seconds: an Open refused for damage that Pebble found may leave
// its background work (a compaction) writing there for a moment, which
// t.TempDir's removal reports as a failure of the test.
func damageTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "TestDiskDamage")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("left %s: still written to after 5 s", dir)
	})
	return dir
}
