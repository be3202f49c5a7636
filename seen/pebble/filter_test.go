package pebble_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
)

// fileExists reports whether name exists.
func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// checkAgainst runs Contains, AddBatch and Insert of random keys (new,
// recorded, repeated within a batch) on d and compares every answer with
// model, which it keeps up to date.
func checkAgainst(t *testing.T, d *pebble.Set, model map[seen.Key]bool, r *rand.Rand, batches int) {
	t.Helper()
	recorded := make([]seen.Key, 0, len(model))
	for k := range model {
		recorded = append(recorded, k)
	}
	for b := range batches {
		keys := make([]seen.Key, 1+r.IntN(300))
		for i := range keys {
			switch {
			case len(recorded) > 0 && r.IntN(3) == 0:
				keys[i] = recorded[r.IntN(len(recorded))]
			case i > 0 && r.IntN(10) == 0:
				keys[i] = keys[r.IntN(i)]
			default:
				keys[i] = dkey(r.Uint64(), r.Uint64())
			}
		}
		has := make([]bool, len(keys))
		if err := d.Contains(keys, has); err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if has[i] != model[k] {
				t.Fatalf("batch %d: Contains says %v for key %d, want %v", b, has[i], i, model[k])
			}
		}
		switch b % 2 {
		case 0: // a frontier: Insert what Contains found absent
			var fresh []seen.Key
			for i, k := range keys {
				if !has[i] {
					fresh = append(fresh, k)
				}
			}
			if err := d.Insert(fresh); err != nil {
				t.Fatal(err)
			}
			for _, k := range fresh {
				if !model[k] {
					model[k] = true
					recorded = append(recorded, k)
				}
			}
		case 1:
			isNew := make([]bool, len(keys))
			if err := d.AddBatch(keys, isNew); err != nil {
				t.Fatal(err)
			}
			for i, k := range keys {
				if isNew[i] == model[k] {
					t.Fatalf("batch %d: AddBatch says new=%v for key %d, recorded=%v", b, isNew[i], i, model[k])
				}
				if !model[k] {
					model[k] = true
					recorded = append(recorded, k)
				}
			}
		}
		if d.Len() != int64(len(model)) {
			t.Fatalf("batch %d: Len %d, want %d", b, d.Len(), len(model))
		}
	}
}

// TestDiskFilter: the answers of a set with its filter are those of a
// map, through growth of the filter (rebuilt from the store) and through
// Close and Open with its file kept, deleted, damaged, taken from another
// set or left by an earlier Close of the same set; the file exists only
// while the set is closed, and Open believes it only when it matches.
func TestDiskFilter(t *testing.T) {
	small := pebble.WithMinFilterKeys(anyParams, 500)
	r := rand.New(rand.NewPCG(1, 2))
	dir := filepath.Join(t.TempDir(), "set")
	file := filepath.Join(dir, pebble.FilterFile)
	model := map[seen.Key]bool{}
	d := openDisk(t, dir, small)
	checkAgainst(t, d, model, r, 40)
	if _, _, _, rebuilt := pebble.Lookups(d); rebuilt < 2 {
		t.Errorf("the filter (500 keys first) was rebuilt %d times for %d keys, want it grown", rebuilt, len(model))
	}
	if fileExists(file) {
		t.Errorf("%s exists while the set is open", pebble.FilterFile)
	}
	must(t, d.Close())
	if !fileExists(file) {
		t.Fatalf("Close wrote no %s", pebble.FilterFile)
	}
	saved, err := os.ReadFile(file)
	must(t, err)

	reopen := func(wantRebuilt int64, what string) {
		t.Helper()
		d = openDisk(t, dir, small)
		if fileExists(file) {
			t.Errorf("%s: %s exists while the set is open", what, pebble.FilterFile)
		}
		if _, _, _, rebuilt := pebble.Lookups(d); rebuilt != wantRebuilt {
			t.Errorf("%s: filter built from a scan %d times at Open, want %d", what, rebuilt, wantRebuilt)
		}
		checkAgainst(t, d, model, r, 6)
		must(t, d.Close())
	}
	reopen(0, "the file Close wrote")
	must(t, os.Remove(file))
	reopen(1, "no file")
	// The first file, now stale: the set has more keys than it records.
	must(t, os.WriteFile(file, saved, 0o644))
	reopen(1, "a stale file")
	b, err := os.ReadFile(file)
	must(t, err)
	b[len(b)/2] ^= 0x40
	must(t, os.WriteFile(file, b, 0o644))
	reopen(1, "a damaged file")
	must(t, os.WriteFile(file, b[:len(b)/3], 0o644))
	reopen(1, "a truncated file")

	// Another set's file, with the same count.
	other := filepath.Join(t.TempDir(), "other")
	o := openDisk(t, other, small)
	keys := make([]seen.Key, d.Len())
	for i := range keys {
		keys[i] = dkey(uint64(i), 7)
	}
	must(t, o.Insert(keys))
	must(t, o.Close())
	b, err = os.ReadFile(filepath.Join(other, pebble.FilterFile))
	must(t, err)
	must(t, os.WriteFile(file, b, 0o644))
	reopen(1, "another set's file")

	// Without a filter, a set keeps none and leaves no file.
	d = openDisk(t, dir, pebble.WithMinFilterKeys(&pebble.Options{AnyParams: true, FilterRate: -1}, 500))
	if pebble.HasFilter(d) {
		t.Errorf("FilterRate -1: the set keeps a filter")
	}
	checkAgainst(t, d, model, r, 6)
	must(t, d.Close())
	if fileExists(file) {
		t.Errorf("FilterRate -1: Close wrote %s", pebble.FilterFile)
	}
	reopen(1, "after a run without a filter")
}

// TestDiskOneLookupPerKey: a frontier's Contains and then Insert of the
// keys found new look each key up in the store at most once; with the
// filter, almost none of the new keys is looked up at all.
func TestDiskOneLookupPerKey(t *testing.T) {
	const n = 20_000
	for _, rate := range []float64{-1, 0} {
		d := openDisk(t, filepath.Join(t.TempDir(), "set"), &pebble.Options{AnyParams: true, FilterRate: rate})
		recorded := make([]seen.Key, n)
		for i := range recorded {
			recorded[i] = dkey(uint64(i), 1)
		}
		must(t, d.Insert(recorded))
		s0, f0, r0, _ := pebble.Lookups(d)
		keys := make([]seen.Key, 2*n)
		for i := range keys {
			if i%2 == 0 {
				keys[i] = dkey(uint64(i), 2) // new
			} else {
				keys[i] = recorded[i/2]
			}
		}
		has := make([]bool, len(keys))
		must(t, d.Contains(keys, has))
		var fresh []seen.Key
		for i, h := range has {
			if h != (i%2 == 1) {
				t.Fatalf("rate %g: key %d: Contains says %v", rate, i, h)
			}
			if !h {
				fresh = append(fresh, keys[i])
			}
		}
		must(t, d.Insert(fresh))
		s, f, r, _ := pebble.Lookups(d)
		s, f, r = s-s0, f-f0, r-r0
		t.Logf("rate %g: %d keys (%d new): %d looked up in the store, %d answered by the filter, %d recalled", rate, len(keys), n, s, f, r)
		if r != n {
			t.Errorf("rate %g: Insert recalled %d of the %d keys Contains found new, want all", rate, r, n)
		}
		switch {
		case rate < 0 && (s != 2*n || f != 0):
			t.Errorf("no filter: %d look-ups in the store and %d by a filter, want %d and 0", s, f, 2*n)
		case rate == 0 && (s > n+n/20 || f < n-n/20):
			t.Errorf("filter: %d look-ups in the store (want about %d: the recorded keys) and %d by the filter (want about %d)", s, n, f, n)
		}
		must(t, d.Close())
	}
}

// TestDiskFilterAfterKill: a set whose process was killed has no filter
// file (Open removed it): the next Open builds the filter from its scan
// of the store, and it holds every key.
func TestDiskFilterAfterKill(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	dir := filepath.Join(t.TempDir(), "set")
	damageRun(t, dir, "close", 0)
	if !fileExists(filepath.Join(dir, pebble.FilterFile)) {
		t.Fatalf("Close wrote no %s", pebble.FilterFile)
	}
	damageRun(t, dir, "exit", damageBatches*damageBatch)
	if fileExists(filepath.Join(dir, pebble.FilterFile)) {
		t.Fatalf("%s outlived the Open of a process killed later", pebble.FilterFile)
	}
	d := openDisk(t, dir, anyParams)
	defer d.Close()
	if _, _, _, rebuilt := pebble.Lookups(d); rebuilt != 1 {
		t.Errorf("filter built from a scan %d times at Open, want 1", rebuilt)
	}
	keys := make([]seen.Key, 2*damageBatches*damageBatch)
	for i := range keys {
		keys[i] = damageKey(i)
	}
	has := make([]bool, len(keys))
	must(t, d.Contains(keys, has))
	for i, h := range has {
		if !h {
			t.Fatalf("key %d, recorded before the kill, is absent", i)
		}
	}
	if s, _, _, _ := pebble.Lookups(d); s != int64(len(keys)) {
		t.Errorf("%d recorded keys: %d looked up in the store, want all (the filter may have them all)", len(keys), s)
	}
}
