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
		s, err := keylog.Open(filepath.Join(t.TempDir(), "set"), anyParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestCommitter runs the suite of seen.Committer, with a reopen.
func TestCommitter(t *testing.T) {
	settest.RunCommitter(t, func(t *testing.T) seen.Committer {
		s, err := keylog.Open(filepath.Join(t.TempDir(), "set"), anyParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}, func(t *testing.T, old seen.Committer) seen.Committer {
		s, err := keylog.Open(keylog.Dir(old.(*keylog.Set)), anyParams)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// TestCopy runs the suite, and a reopen, with the log kept as a copy in
// memory (systems that map nothing) instead of a mapping.
func TestCopy(t *testing.T) {
	defer keylog.SetNoMap()()
	TestSuite(t)
	TestCommitter(t)
	TestRewind(t)
	TestCommitTorn(t)
	TestReopen(t)
	TestMigration(t)
	TestTornTail(t)
}
