package atomicfile

import (
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
