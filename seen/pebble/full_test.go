//go:build linux

package pebble_test

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/uriscan/uriscan/internal/testexec"
	"github.com/uriscan/uriscan/internal/testfs"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
)

const (
	fullEnvDir  = "URISCAN_SEEN_FULL_DIR"
	fullEnvFrom = "URISCAN_SEEN_FULL_FROM"
	fullEnvTo   = "URISCAN_SEEN_FULL_TO"
	fullBatch   = 4096
)

// TestDiskFullChild is the child process of TestDiskFull and
// TestDiskSmallFilesystem: it opens the set in DIR, checks that it holds
// keys 0 to FROM-1, and inserts keys FROM to TO-1 in synced batches,
// printing "ok N" after each (N keys in the set so far). On an error it
// prints it, closes the set and exits with status 3: the process must
// survive the store's failures.
func TestDiskFullChild(t *testing.T) {
	dir := os.Getenv(fullEnvDir)
	if dir == "" {
		t.Skip("helper process for TestDiskFull")
	}
	from, _ := strconv.Atoi(os.Getenv(fullEnvFrom))
	to, _ := strconv.Atoi(os.Getenv(fullEnvTo))
	fail := func(what string, err error) {
		fmt.Printf("err %s: %v\n", what, err)
		os.Exit(3)
	}
	d, err := pebble.Open(dir, anyParams)
	if err != nil {
		fail("open", err)
	}
	var keys []seen.Key
	for i := range from {
		keys = append(keys, damageKey(i))
	}
	has := make([]bool, len(keys))
	if err := d.Contains(keys, has); err != nil {
		fail("contains", err)
	}
	for i, h := range has {
		if !h {
			fmt.Printf("missing %d\n", i)
			os.Exit(4)
		}
	}
	for i := from; i < to; i += fullBatch {
		keys = keys[:0]
		for j := i; j < min(i+fullBatch, to); j++ {
			keys = append(keys, damageKey(j))
		}
		if err := d.Insert(keys); err != nil {
			fmt.Printf("err insert: %v\n", err)
			if cerr := d.Close(); cerr == nil {
				fmt.Println("err close: Close of a stopped set returned nil")
			}
			os.Exit(3)
		}
		fmt.Printf("ok %d\n", i+len(keys))
	}
	if err := d.Close(); err != nil {
		fail("close", err)
	}
	os.Exit(0)
}

// fullRun runs the child; it returns the last "ok" count, the last line,
// the exit status, and standard error.
func fullRun(t *testing.T, dir string, from, to int) (n int, last string, code int, stderr string) {
	t.Helper()
	cmd, err := testexec.Self("-test.run=^TestDiskFullChild$")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), fullEnvDir+"="+dir, fullEnvFrom+"="+strconv.Itoa(from), fullEnvTo+"="+strconv.Itoa(to))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	n = from
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		last = sc.Text()
		if v, ok := strings.CutPrefix(last, "ok "); ok {
			n, _ = strconv.Atoi(v)
		}
	}
	return n, last, code, errb.String()
}

func du(t *testing.T, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}

// TestDiskSmallFilesystem: a set of 600,000 keys fits a 64 MiB
// filesystem, write-ahead logs, tables and compactions included.
func TestDiskSmallFilesystem(t *testing.T) {
	if testing.Short() {
		t.Skip("inserts 600,000 keys")
	}
	mnt := testfs.Tmpfs(t, 64<<20)
	dir := filepath.Join(mnt, "set")
	const keys = 600_000
	n, last, code, stderr := fullRun(t, dir, 0, keys)
	if code != 0 || n != keys {
		t.Fatalf("on a 64 MiB filesystem: %d of %d keys, exit %d, %q\n%s", n, keys, code, last, stderr)
	}
	size := du(t, dir)
	t.Logf("%d keys in %.1f MB (%.1f bytes per key)", keys, float64(size)/1e6, float64(size)/keys)
}

// TestDiskFull: a set on a filesystem that fills up stops with an error
// (not an exit of the process, not a hang), keeps every key it reported
// inserted, and goes on once space is freed.
func TestDiskFull(t *testing.T) {
	if testing.Short() {
		t.Skip("fills a filesystem")
	}
	mnt := testfs.Tmpfs(t, 32<<20)
	dir := filepath.Join(mnt, "set")
	filler := filepath.Join(mnt, "filler")
	// 100,000 keys first, then all but about 4 MB filled.
	if n, last, code, stderr := fullRun(t, dir, 0, 100_000); code != 0 || n != 100_000 {
		t.Fatalf("first run: %d keys, exit %d, %q\n%s", n, code, last, stderr)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(mnt, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail)*st.Bsize - 4<<20
	if err := os.WriteFile(filler, make([]byte, free), 0o644); err != nil {
		t.Fatal(err)
	}
	const total = 2_000_000
	n, last, code, stderr := fullRun(t, dir, 100_000, total)
	if code != 3 || !strings.HasPrefix(last, "err insert: ") || !strings.Contains(last, "no space left on device") ||
		strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Fatalf("on a full filesystem: exit %d (want 3: an error from Insert), last line %q, after %d keys\nstderr: %.2000s", code, last, n, stderr)
	}
	t.Logf("stopped after %d keys: %.300s", n, last)
	if n >= total {
		t.Fatalf("the filesystem never filled up")
	}
	// Space freed: the next run finds every key reported inserted, and
	// completes the set.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if n2, last, code, stderr := fullRun(t, dir, n, 3*n/2); code != 0 || n2 != 3*n/2 {
		t.Fatalf("after space was freed: %d keys, exit %d, %q\n%s", n2, code, last, stderr)
	}
}
