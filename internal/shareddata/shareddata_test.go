package shareddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFind: URISCAN_DATA names the data directory or the one above it;
// "none" means no data even where ../shared/data exists; unset, the
// directory is found by walking up from the working directory.
func TestFind(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "shared", "data")
	if err := os.MkdirAll(filepath.Join(data, "urls"), 0o755); err != nil {
		t.Fatal(err)
	}
	deep := filepath.Join(root, "main", "pkg")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Chdir(deep)
	for _, c := range []struct {
		env, want string
	}{
		{"", data},
		{data, data},
		{filepath.Join(root, "shared"), data},
		{None, ""},
		{root, ""}, // set, and wrong: not second-guessed
	} {
		t.Setenv(Env, c.env)
		got, looked := find()
		if got != c.want {
			t.Errorf("%s=%q: found %q, want %q (looked in %q)", Env, c.env, got, c.want, looked)
		}
		if c.env == None && !strings.Contains(strings.Join(looked, " "), None) {
			t.Errorf("%s=%s: looked %q, want it to say why", Env, None, looked)
		}
	}
}
