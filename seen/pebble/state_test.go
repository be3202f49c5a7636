package pebble_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
)

// stateName is the name of dir's state file.
func stateName(dir string) string { return filepath.Join(dir, "uriscan-seen.json") }

// editState changes dir's state file as a person or a script would, and
// seals it again (atomicfile.SealJSON) so that only what edit changes
// differs: edit gets the object without its checksum and must change it.
func editState(t *testing.T, dir string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(stateName(dir))
	must(t, err)
	obj, sealed, err := atomicfile.UnsealJSON(b)
	if err != nil || !sealed {
		t.Fatalf("state file %s: sealed %v, %v; want a sealed one", stateName(dir), sealed, err)
	}
	changed := edit(string(obj))
	if changed == string(obj) {
		t.Fatalf("editState changed nothing in %s", obj)
	}
	must(t, os.WriteFile(stateName(dir), append(atomicfile.SealJSON([]byte(changed)), '\n'), 0o644))
}

// wantSealed fails unless dir's state file is sealed and records count
// keys.
func wantSealed(t *testing.T, dir string, count int64) {
	t.Helper()
	b, err := os.ReadFile(stateName(dir))
	must(t, err)
	obj, sealed, err := atomicfile.UnsealJSON(b)
	if err != nil || !sealed {
		t.Fatalf("state file %s: sealed %v, %v; want a sealed one:\n%s", stateName(dir), sealed, err, b)
	}
	if want := `"count":` + strconv.FormatInt(count, 10) + `,`; !strings.Contains(string(obj), want) {
		t.Fatalf("state file %s = %s, want %s", stateName(dir), obj, want)
	}
}

// TestDiskStateSealed: the state file is sealed with its checksum, and
// one changed byte anywhere in it (the count lowered, which nothing else
// would notice, or any other) makes Open refuse the set with an error
// that says the state file is damaged (seen.ErrLost, atomicfile.ErrSeal),
// changing nothing; Recover takes the set as it is and seals the file
// again.
func TestDiskStateSealed(t *testing.T) {
	dir := t.TempDir()
	d := openDisk(t, dir, anyParams)
	keys := commitFresh(0, 1)
	addAll(t, d, keys)
	must(t, d.Close())
	wantSealed(t, dir, int64(len(keys)))
	good, err := os.ReadFile(stateName(dir))
	must(t, err)

	refused := func(t *testing.T, what string) {
		t.Helper()
		damaged, err := os.ReadFile(stateName(dir))
		must(t, err)
		d, err := pebble.Open(dir, anyParams)
		if err == nil {
			d.Close()
			t.Fatalf("%s: Open succeeded", what)
		}
		var le *seen.LostError
		if !errors.Is(err, seen.ErrLost) || !errors.As(err, &le) || !errors.Is(err, atomicfile.ErrSeal) {
			t.Fatalf("%s: Open: %v, want a *seen.LostError that wraps atomicfile.ErrSeal", what, err)
		}
		msg := err.Error()
		for _, want := range []string{"its state file " + stateName(dir) + " is damaged", "checksum does not match", "Recover"} {
			if !strings.Contains(msg, want) {
				t.Fatalf("%s: Open: %q, want it to say %q", what, msg, want)
			}
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%s: the error is not one line: %q", what, msg)
		}
		if b, err := os.ReadFile(stateName(dir)); err != nil || !bytes.Equal(b, damaged) {
			t.Fatalf("%s: the refused Open changed the state file: %q, %v", what, b, err)
		}
	}

	// The count lowered by a digit: without the checksum, a store that
	// lost keys would pass.
	count := []byte(`"count":` + strconv.Itoa(len(keys)))
	i := bytes.Index(good, count)
	if i < 0 {
		t.Fatalf("state file %s has no %s", good, count)
	}
	b := bytes.Clone(good)
	b[i+len(`"count":`)]--
	must(t, os.WriteFile(stateName(dir), b, 0o644))
	refused(t, "count "+string(b[i:i+len(count)]))

	// Any other byte.
	for i := range good {
		b := bytes.Clone(good)
		b[i] ^= 0x02
		must(t, os.WriteFile(stateName(dir), b, 0o644))
		refused(t, "byte "+strconv.Itoa(i)+" changed")
	}

	// Recover takes it as it is, and seals it again.
	d, err = pebble.Open(dir, &pebble.Options{AnyParams: true, Recover: true})
	if err != nil {
		t.Fatalf("Open with Recover of a set whose state file is damaged: %v", err)
	}
	if n := d.Len(); n != int64(len(keys)) {
		t.Fatalf("Len = %d, want %d", n, len(keys))
	}
	wantAllSeen(t, d, keys)
	must(t, d.Close())
	wantSealed(t, dir, int64(len(keys)))
	openDisk(t, dir, anyParams).Close()
}

// TestDiskStateUnsealed: a state file of the previous version, with no
// checksum, is read as it is; the set opens with its keys, and the state
// file is sealed from its next write (Open's) on.
func TestDiskStateUnsealed(t *testing.T) {
	dir := t.TempDir()
	d := openDisk(t, dir, anyParams)
	keys := commitFresh(0, 3)
	addAll(t, d, keys)
	must(t, d.Close())
	b, err := os.ReadFile(stateName(dir))
	must(t, err)
	obj, _, err := atomicfile.UnsealJSON(b)
	must(t, err)
	must(t, os.WriteFile(stateName(dir), append(obj, '\n'), 0o644))
	if _, sealed, err := atomicfile.UnsealJSON(append(obj, '\n')); sealed || err != nil {
		t.Fatalf("the previous version's state file: sealed %v, %v", sealed, err)
	}

	d = openDisk(t, dir, anyParams)
	if n := d.Len(); n != int64(len(keys)) {
		t.Fatalf("Len = %d, want %d", n, len(keys))
	}
	wantSealed(t, dir, int64(len(keys)))
	wantAllSeen(t, d, keys)
	must(t, d.Close())
	wantSealed(t, dir, int64(len(keys)))
}

// TestDiskStaleStateTemps: the temporary files that a kill left of the
// state file (and of the filter) are removed by the next Open, of a set
// and of a directory that holds nothing else (a kill while the first
// state file of a new set was written), which then gets a new set.
func TestDiskStaleStateTemps(t *testing.T) {
	temps := []string{"uriscan-seen.json.tmp123456", "uriscan-seen.json.tmp987", pebble.FilterFile + ".tmp42"}
	leave := func(t *testing.T, dir string, names []string) {
		t.Helper()
		for _, name := range names {
			must(t, os.WriteFile(filepath.Join(dir, name), []byte(`{"format":"uriscan/seen disk v1","id":"`), 0o644))
		}
	}
	gone := func(t *testing.T, dir string, names []string) {
		t.Helper()
		for _, name := range names {
			if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("%s is still there after Open: %v", name, err)
			}
		}
	}

	t.Run("Set", func(t *testing.T) {
		dir := t.TempDir()
		d := openDisk(t, dir, anyParams)
		keys := commitFresh(0, 5)
		addAll(t, d, keys)
		id := d.Stamp().ID
		must(t, d.Close())
		leave(t, dir, temps)
		d = openDisk(t, dir, anyParams)
		defer d.Close()
		gone(t, dir, temps)
		if s := d.Stamp(); s.ID != id || s.Count != int64(len(keys)) {
			t.Fatalf("Stamp = %+v, want identity %s and %d keys", s, id, len(keys))
		}
		wantAllSeen(t, d, keys)
	})
	t.Run("OnlyTemps", func(t *testing.T) {
		dir := t.TempDir()
		leave(t, dir, temps[:2])
		d := openDisk(t, dir, anyParams)
		gone(t, dir, temps[:2])
		if n := d.Len(); n != 0 {
			t.Fatalf("Len of the new set = %d", n)
		}
		addAll(t, d, commitFresh(0, 7))
		must(t, d.Close())
		d = openDisk(t, dir, anyParams)
		defer d.Close()
		wantAllSeen(t, d, commitFresh(0, 7))
	})
	t.Run("MustExist", func(t *testing.T) {
		// Temporary files alone are no set.
		dir := t.TempDir()
		leave(t, dir, temps[:2])
		_, err := pebble.Open(dir, &pebble.Options{AnyParams: true, MustExist: true})
		if !errors.Is(err, seen.ErrLost) {
			t.Fatalf("Open with MustExist of a directory of temporary files: %v, want seen.ErrLost", err)
		}
	})
}
