package keylog_test

import (
	"path/filepath"
	"testing"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	"github.com/uriscan/uriscan/seen/settest"
)

var anyParams = &keylog.Options{AnyParams: true}

func TestSuite(t *testing.T) {
	settest.Run(t, func(t *testing.T) seen.Set {
		s, err := openSet(filepath.Join(t.TempDir(), "set"), anyParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestCommitter runs the suite of seen.Committer, with a reopen.
func TestCommitter(t *testing.T) {
	settest.RunCommitter(t, func(t *testing.T) seen.Committer {
		s, err := openSet(filepath.Join(t.TempDir(), "set"), anyParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, func(t *testing.T, old seen.Committer) seen.Committer {
		s, err := openSet(keylog.Dir(old.(*keylog.Set)), anyParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestCopy runs the suite, and a reopen, with the log kept as a copy in
// memory (systems that map nothing) instead of a mapping.
func TestCopy(t *testing.T) {
	mapless = true
	defer func() { mapless = false }()
	s, err := openSet(filepath.Join(t.TempDir(), "set"), anyParams)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(seen.Key{1}); err != nil {
		t.Fatal(err)
	}
	if keylog.Mapped(s) {
		t.Fatal("the log is mapped: the suite would not run the copy's path")
	}
	s.Close()
	TestSuite(t)
	TestCommitter(t)
	TestRewind(t)
	TestCommitTorn(t)
	TestReopen(t)
	TestMigration(t)
	TestTornTail(t)
}

// mapless makes openSet's sets keep their log in memory (TestCopy).
var mapless bool

// openSet is keylog.Open, with the log kept in memory while mapless is set.
func openSet(dir string, o *keylog.Options) (*keylog.Set, error) {
	if mapless {
		o = keylog.NoMap(o)
	}
	return keylog.Open(dir, o)
}
