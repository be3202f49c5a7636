// Package testfs gives tests a small filesystem of their own, to fill up:
// a tmpfs of a given size mounted on a temporary directory.
package testfs

import (
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"testing"
)

// EnvRequire names the variable that makes Tmpfs fail instead of skip
// where it cannot mount (CI sets it).
const EnvRequire = "URISCAN_MOUNT_REQUIRE"

// Tmpfs mounts a tmpfs of size bytes on a new temporary directory and
// unmounts it when the test ends. Mounting needs root (Linux); elsewhere
// the test is skipped, unless EnvRequire is set.
func Tmpfs(t testing.TB, size int64) string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+strconv.FormatInt(size, 10), "tmpfs", dir).CombinedOutput()
	if err != nil {
		if os.Getenv(EnvRequire) != "" {
			t.Fatalf("mount tmpfs: %v %s (%s is set)", err, bytes.TrimSpace(out), EnvRequire)
		}
		t.Skipf("cannot mount a tmpfs (needs root): %v %s", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// DirBytes is the size of the files in dir (not in its subdirectories).
func DirBytes(tb testing.TB, dir string) int64 {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && !fi.IsDir() {
			n += fi.Size()
		}
	}
	return n
}
