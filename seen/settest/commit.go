package settest

import (
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/uriscan/uriscan/seen"
)

// RunCommitter runs the suite of seen.Committer against sets made by open
// (new and empty) and reopened by reopen (the same store after Close: nil
// for a set that cannot be reopened, whose persistence is then not
// checked here).
func RunCommitter(t *testing.T, open func(t *testing.T) seen.Committer, reopen func(t *testing.T, old seen.Committer) seen.Committer) {
	t.Helper()
	runA, runB := "0123456789abcdef0123456789abcdef", "fedcba9876543210fedcba9876543210"
	t.Run("Commits", func(t *testing.T) {
		s := open(t)
		defer s.Close()
		r := rand.New(rand.NewPCG(7, 8))
		m := model{}
		wantSeq := func(run string, want int64) {
			t.Helper()
			got, err := s.Committed(run)
			if err != nil || got != want {
				t.Fatalf("Committed(%s) = %d, %v; want %d", run, got, err, want)
			}
		}
		wantSeq(runA, 0)
		// A batch with keys, one without, one of keys already there, the
		// other run in between; Len counts keys only.
		var keys []seen.Key
		for range 500 {
			k := randKey(r)
			keys = append(keys, k, k)
			m.add(k)
		}
		if err := s.InsertCommit(seen.Commit{Run: runA, Seq: 1}, keys); err != nil {
			t.Fatal(err)
		}
		wantSeq(runA, 1)
		wantSeq(runB, 0)
		wantLen(t, s, len(m))
		checkContains(t, s, m, keys)
		if err := s.InsertCommit(seen.Commit{Run: runB, Seq: 1}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertCommit(seen.Commit{Run: runA, Seq: 2}, keys[:10]); err != nil {
			t.Fatal(err)
		}
		wantSeq(runA, 2)
		wantSeq(runB, 1)
		wantLen(t, s, len(m))
		if st := s.Stamp(); st.Count != int64(len(m)) {
			t.Fatalf("Stamp().Count = %d, want %d: a commit record counted as a key", st.Count, len(m))
		}
		more := []seen.Key{randKey(r), randKey(r)}
		for _, k := range more {
			m.add(k)
		}
		if err := s.InsertCommit(seen.Commit{Run: runA, Seq: 3}, more); err != nil {
			t.Fatal(err)
		}
		wantSeq(runA, 3)
		wantLen(t, s, len(m))
		// Replaced, not kept at the largest.
		if err := s.InsertCommit(seen.Commit{Run: runB, Seq: 7}, nil); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertCommit(seen.Commit{Run: runB, Seq: 6}, nil); err != nil {
			t.Fatal(err)
		}
		wantSeq(runB, 6)

		// A run identity that is not one is refused, and changes nothing.
		for _, bad := range []string{"", "0123456789ABCDEF0123456789ABCDEF", runA[:31], runA + "0", "0123456789abcdef0123456789abcdeg"} {
			if err := s.InsertCommit(seen.Commit{Run: bad, Seq: 1}, more); !errors.Is(err, seen.ErrRunID) {
				t.Errorf("InsertCommit(run %q): %v, want seen.ErrRunID", bad, err)
			}
			if _, err := s.Committed(bad); !errors.Is(err, seen.ErrRunID) {
				t.Errorf("Committed(%q): %v, want seen.ErrRunID", bad, err)
			}
		}
		// A Seq below 1 is no batch number: refused, nothing changed.
		for _, bad := range []int64{0, -1} {
			if err := s.InsertCommit(seen.Commit{Run: runA, Seq: bad}, more); err == nil {
				t.Errorf("InsertCommit(Seq %d) = nil, want an error", bad)
			}
		}
		wantSeq(runA, 3)
		wantLen(t, s, len(m))

		if reopen == nil {
			return
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		s = reopen(t, s)
		wantSeq(runA, 3)
		wantSeq(runB, 6)
		wantLen(t, s, len(m))
		checkContains(t, s, m, append(keys, more...))
		if err := s.InsertCommit(seen.Commit{Run: runA, Seq: 4}, nil); err != nil {
			t.Fatal(err)
		}
		wantSeq(runA, 4)
	})
	t.Run("Closed", func(t *testing.T) {
		s := open(t)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := s.InsertCommit(seen.Commit{Run: runA, Seq: 1}, nil); !errors.Is(err, seen.ErrClosed) {
			t.Errorf("InsertCommit after Close: %v, want seen.ErrClosed", err)
		}
		if _, err := s.Committed(runA); !errors.Is(err, seen.ErrClosed) {
			t.Errorf("Committed after Close: %v, want seen.ErrClosed", err)
		}
	})
}
