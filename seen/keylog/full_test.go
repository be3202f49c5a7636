//go:build linux

package keylog_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/testfs"
	"github.com/uriscan/uriscan/seen"
)

// TestFull fills a small filesystem: the call that finds it full fails
// and stops the set, the process goes on, and once there is room again
// the set opens with every key it acknowledged.
func TestFull(t *testing.T) {
	mnt := testfs.Tmpfs(t, 1<<20)
	filler := filepath.Join(mnt, "filler")
	if err := os.WriteFile(filler, make([]byte, 64<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(mnt, "set")
	s := open(t, dir, anyParams)
	acked := 0
	var err error
	for ; acked < 1<<20; acked += 1000 {
		keys := make([]seen.Key, 1000)
		for j := range keys {
			keys[j] = bkey(acked + j)
		}
		if err = s.Insert(keys); err != nil {
			break
		}
	}
	if err == nil || !strings.Contains(err.Error(), "no space") || !strings.Contains(err.Error(), "stopped") {
		t.Fatalf("Insert into a full filesystem: %v", err)
	}
	if _, err := s.Add(bkey(1 << 30)); err == nil {
		t.Error("Add after the set stopped succeeded")
	}
	if err := s.Close(); err == nil {
		t.Error("Close of a stopped set returned nil")
	}
	t.Logf("%d keys acknowledged before the filesystem was full", acked)
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	s = open(t, dir, anyParams)
	defer s.Close()
	if n := s.Len(); n != int64(acked) && n != int64(acked+1000) {
		t.Fatalf("Len = %d after the failure, want %d (or %d)", n, acked, acked+1000)
	}
	wantKeys(t, s, int(s.Len()), 1000)
	fill(t, s, int(s.Len()), int(s.Len())+500, 500) // it takes keys again
}
