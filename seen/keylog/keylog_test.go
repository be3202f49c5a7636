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

// TestCopy runs the suite, and a reopen, with the log kept as a copy in
// memory (systems that map nothing) instead of a mapping.
func TestCopy(t *testing.T) {
	defer keylog.SetNoMap()()
	TestSuite(t)
	TestReopen(t)
	TestMigration(t)
	TestTornTail(t)
}
