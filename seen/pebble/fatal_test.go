package pebble_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
	"github.com/cockroachdb/pebble/v2/vfs/errorfs"

	"github.com/uriscan/uriscan/seen"
	ps "github.com/uriscan/uriscan/seen/pebble"
)

// opIf is an errorfs predicate.
type opIf func(errorfs.Op) bool

func (f opIf) Evaluate(op errorfs.Op) bool { return f(op) }
func (f opIf) String() string              { return "opIf" }

// TestDiskFatal: where Pebble gives up (its Logger.Fatalf: a commit whose
// write-ahead log cannot be synced, a MANIFEST that cannot be written),
// the set stops with an error and the process goes on: the call returns
// the error, every later call the same, Close does not hang. Errors are
// injected with Pebble's errorfs.
func TestDiskFatal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		memtable uint64
		on       errorfs.Predicate // which operations fail once the toggle is on
		want     string
	}{
		{"WAL sync", 64 << 20, opIf(func(op errorfs.Op) bool {
			sync := op.Kind == errorfs.OpFileSync || op.Kind == errorfs.OpFileSyncData || op.Kind == errorfs.OpFileSyncTo
			return sync && strings.HasSuffix(op.Path, ".log")
		}), "fatal commit error"},
		{"MANIFEST write", 256 << 10, errorfs.And(errorfs.Writes, opIf(func(op errorfs.Op) bool {
			return strings.HasPrefix(filepath.Base(op.Path), "MANIFEST-")
		})), "MANIFEST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			toggle := &errorfs.Toggle{Injector: errorfs.ErrInjected.If(tc.on)}
			d, err := ps.Open(filepath.Join(t.TempDir(), "set"), ps.WithFS(&ps.Options{MemTableSize: tc.memtable, AnyParams: true}, errorfs.Wrap(vfs.Default, toggle)))
			if err != nil {
				t.Fatal(err)
			}
			keys := make([]seen.Key, 1000)
			next := 0
			insert := func() error {
				for i := range keys {
					keys[i] = damageKey(next)
					next++
				}
				return d.Insert(keys)
			}
			if err := insert(); err != nil {
				t.Fatal(err)
			}
			toggle.On()
			// A commit fails at once; a MANIFEST write when a flush
			// (every 256 KiB of memtable) records its table.
			var ierr error
			for range 200 {
				if ierr = d.Insert([]seen.Key{damageKey(next)}); ierr != nil {
					break
				}
				next++
				if ierr = insert(); ierr != nil {
					break
				}
			}
			if ierr == nil || !strings.Contains(ierr.Error(), tc.want) || !strings.Contains(ierr.Error(), "injected error") {
				t.Fatalf("Insert with %s failing: %v, want an error with %q", tc.name, ierr, tc.want)
			}
			t.Logf("stopped: %v", ierr)
			has := make([]bool, len(keys))
			if err := d.Contains(keys, has); err == nil || !strings.Contains(err.Error(), "stopped") {
				t.Errorf("Contains after the failure: %v, want the failure", err)
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
		})
	}
}
