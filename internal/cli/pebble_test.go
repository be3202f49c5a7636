package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/seen/pebble"
)

// needPebble skips a test of the Pebble store in a build without it
// (make test runs this package again with -tags pebble).
func needPebble(t *testing.T) {
	t.Helper()
	if !testStores.Pebble {
		t.Skip("built without the Pebble store (go test -tags pebble runs it)")
	}
}

// TestNoPebble: in a build without Pebble, --store pebble:DIR, and
// disk:DIR over a Pebble set an earlier version made there, are refused
// (exit 2) saying how to get the build with it, and nothing is made or
// changed.
func TestNoPebble(t *testing.T) {
	if testStores.Pebble {
		t.Skip("built with the pebble tag")
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "old")
	s, err := pebble.Open(old, &pebble.Options{AnyParams: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, old)
	key := writeKey(t, dir)
	for _, store := range []string{"pebble:" + filepath.Join(dir, "new"), "disk:" + old} {
		code, out, errs := cli(t, "http://a/\n", "dedup", "--store", store, "--key-file", key)
		if code != 2 || out != "" || !strings.Contains(errs, "built without the Pebble store") ||
			!strings.Contains(errs, "make install-pebble, or go install -tags pebble ./cmd/uriscan") {
			t.Errorf("--store %s: exit %d, %q\n%s", store, code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); !os.IsNotExist(err) {
		t.Errorf("pebble:DIR was made (%v)", err)
	}
	if after := listDir(t, old); after != before {
		t.Errorf("the Pebble set changed: %s, was %s", after, before)
	}
}

// listDir returns the names and sizes of the files in dir.
func listDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %d %s\n", e.Name(), fi.Size(), fi.ModTime())
	}
	return b.String()
}
