package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f.json")
	for _, data := range []string{"first\n", "second, longer\n", ""} {
		if err := Write(name, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(name); err != nil || string(got) != data {
			t.Fatalf("after Write(%q): %q, %v", data, got, err)
		}
		if m, _ := filepath.Glob(name + ".tmp*"); len(m) > 0 {
			t.Fatalf("the temporary file is left: %v", m)
		}
	}
	// A directory that does not exist: an error, nothing written.
	if err := Write(filepath.Join(dir, "no", "f"), []byte("x")); err == nil {
		t.Fatal("Write into a missing directory succeeded")
	}
	// The rename fails (name is a non-empty directory): the old entry
	// stays and the temporary file is removed.
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(filepath.Join(sub, "x"), 0o755)
	if err := Write(sub, []byte("x")); err == nil {
		t.Fatal("Write over a non-empty directory succeeded")
	}
	if m, _ := filepath.Glob(sub + ".tmp*"); len(m) > 0 {
		t.Fatalf("the temporary file is left after a failed rename: %v", m)
	}
}

// TestRemoveStale: the temporary files of a Write killed before its
// rename go, and nothing else: not the file, not one whose name only
// begins like it, not a directory.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.txt.checkpoint")
	for _, f := range []string{"out.txt.checkpoint", "out.txt.checkpoint.tmp123", "out.txt.checkpoint.tmp9", "out.txt.checkpointx.tmp1", "out.txt", "other.tmp1", "out.txt.checkpoint.tmp.bak", "out.txt.checkpoint.tmp", "out.txt.checkpoint.tmp12x"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "out.txt.checkpoint.tmpdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	n, err := RemoveStale(name)
	if err != nil || n != 2 {
		t.Fatalf("RemoveStale = %d, %v; want 2", n, err)
	}
	entries, _ := os.ReadDir(dir)
	var left []string
	for _, e := range entries {
		left = append(left, e.Name())
	}
	want := []string{"other.tmp1", "out.txt", "out.txt.checkpoint", "out.txt.checkpoint.tmp", "out.txt.checkpoint.tmp.bak", "out.txt.checkpoint.tmp12x", "out.txt.checkpoint.tmpdir", "out.txt.checkpointx.tmp1"}
	if fmt.Sprint(left) != fmt.Sprint(want) {
		t.Fatalf("left %q, want %q", left, want)
	}
}
