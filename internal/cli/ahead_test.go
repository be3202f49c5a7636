package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	redisstore "github.com/uriscan/uriscan/seen/redis"
)

// ckptStores are the persistent --store values a test of the checkpoint
// runs against, in dir: the key log, Pebble, and Redis when
// URISCAN_REDIS_ADDR names a server (under a prefix of the test's own,
// dropped at its end). newStore gives the flags of a new store of the
// same kind: another directory, another prefix.
func ckptStores(t *testing.T, dir string) (stores map[string][]string, newStore func(name string) []string) {
	stores = map[string][]string{"disk": {"--store", "disk:" + filepath.Join(dir, "seen")}}
	if testStores.Pebble {
		stores["pebble"] = []string{"--store", "pebble:" + filepath.Join(dir, "pebble")}
	}
	n := 0
	var redisStore func() []string
	if addr := os.Getenv("URISCAN_REDIS_ADDR"); addr != "" {
		redisStore = func() []string {
			n++
			prefix := fmt.Sprintf("uriscan-test:ahead:%d.%d.%d:", os.Getpid(), time.Now().UnixNano(), n)
			t.Cleanup(func() {
				s, err := redisstore.Open([]string{addr}, &redisstore.Options{AnyParams: true, Prefix: prefix})
				if err == nil {
					err = s.Drop()
					s.Close()
				}
				if err != nil {
					t.Errorf("cleanup: dropping the set %s: %v", prefix, err)
				}
			})
			return []string{"--store", "redis://" + addr, "--store-prefix", prefix}
		}
		stores["redis"] = redisStore()
	} else if os.Getenv("URISCAN_REDIS_REQUIRE") == "1" {
		t.Fatal("URISCAN_REDIS_ADDR is not set, and URISCAN_REDIS_REQUIRE=1")
	}
	return stores, func(name string) []string {
		n++
		switch name {
		case "redis":
			return redisStore()
		case "pebble":
			return []string{"--store", fmt.Sprintf("pebble:%s/pebble%d", dir, n)}
		}
		return []string{"--store", fmt.Sprintf("disk:%s/seen%d", dir, n)}
	}
}

// readFiles returns the contents of the files; put writes them back.
func readFiles(t *testing.T, names ...string) (put func()) {
	t.Helper()
	b := make([][]byte, len(names))
	for i, n := range names {
		var err error
		if b[i], err = os.ReadFile(n); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		t.Helper()
		for i, n := range names {
			if err := os.WriteFile(n, b[i], 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// killedDedup runs dedup --output out.txt over input with store (its
// --store flags) in a new directory, killed once out.txt has 20,000
// bytes; it returns the directory, the output, its checkpoint and the
// command's arguments.
func killedDedup(t *testing.T, store []string, key, input string) (dir, out, ckpt string, args []string) {
	t.Helper()
	dir = t.TempDir()
	out = filepath.Join(dir, "out.txt")
	args = append(append([]string{"dedup"}, store...), "--key-file", key, "--output", "out.txt", "--batch", "128", input)
	killAfter(t, child(t, dir, args...), out, 20000)
	return dir, out, out + ".checkpoint", args
}

// TestDedupCheckpointOlderThanStore: an output and its checkpoint put back
// from a copy taken before the store's last batches are refused (exit 2,
// both untouched, the message says which is newer and how to recover) for
// every persistent store, with --rebuild too; --rewind-store cuts a key
// log back and the run completes exactly once, and is refused for the
// others; a new store with --rebuild completes it too.
func TestDedupCheckpointOlderThanStore(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process")
	}
	top := t.TempDir()
	input := killInput(t, top, 30000)
	want, summary := reference(t, input)
	key := writeKey(t, top)
	stores, newStore := ckptStores(t, top)
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			dir, out, ckpt, args := killedDedup(t, store, key, input)
			putBack := readFiles(t, out, ckpt)
			if code, errs := runChild(t, child(t, dir, args...)); code > 1 {
				t.Fatalf("the run to its end: exit %d\n%s", code, errs)
			}
			putBack()
			unchanged := unchangedFiles(t, out, ckpt)
			code, errs := runChild(t, child(t, dir, args...))
			if code != 2 || !strings.Contains(errs, "is older than the store") || !strings.Contains(errs, "--rebuild alone cannot mend it") ||
				!strings.Contains(errs, "new store and --rebuild") || strings.Contains(errs, "--rewind-store") != (name == "disk") {
				t.Fatalf("a checkpoint older than the store: exit %d\n%s", code, errs)
			}
			unchanged("refused")
			if code, errs = runChild(t, child(t, dir, append(args, "--rebuild")...)); code != 2 || !strings.Contains(errs, "is older than the store") {
				t.Fatalf("with --rebuild: exit %d\n%s", code, errs)
			}
			unchanged("refused with --rebuild")
			code, errs = runChild(t, child(t, dir, append(args, "--rewind-store")...))
			if name != "disk" {
				if code != 2 || !strings.Contains(errs, "cannot be cut back") {
					t.Fatalf("--rewind-store with %s: exit %d\n%s", name, code, errs)
				}
				unchanged("refused with --rewind-store")
			} else {
				if code > 1 || !strings.Contains(errs, "--rewind-store: cut the key log back") {
					t.Fatalf("--rewind-store: exit %d\n%s", code, errs)
				}
				wantComplete(t, out, want, summary, errs, "after --rewind-store")
				putBack()
			}
			// The recovery for every store: a new one, built from the
			// output with --rebuild.
			nargs := append(append([]string{"dedup"}, newStore(name)...), args[len(store)+1:]...)
			code, errs = runChild(t, child(t, dir, append(nargs, "--rebuild")...))
			if code > 1 {
				t.Fatalf("a new store with --rebuild: exit %d\n%s", code, errs)
			}
			wantComplete(t, out, want, summary, errs, "a new store with --rebuild")
		})
	}
}

// TestDedupCheckpointDamaged: a checkpoint with a changed byte, or whose
// output_length was edited, is refused (exit 2, the output and the
// checkpoint untouched, the store not opened) for every persistent store.
func TestDedupCheckpointDamaged(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a process")
	}
	top := t.TempDir()
	input := killInput(t, top, 30000)
	key := writeKey(t, top)
	stores, _ := ckptStores(t, top)
	for name, store := range stores {
		t.Run(name, func(t *testing.T) {
			dir, out, ckpt, args := killedDedup(t, store, key, input)
			cb, err := os.ReadFile(ckpt)
			if err != nil {
				t.Fatal(err)
			}
			i := strings.Index(string(cb), `"output_length":`) + len(`"output_length":`)
			for what, bad := range map[string]string{
				"a changed byte":       string(cb[:40]) + string(cb[40]^1) + string(cb[41:]),
				"output_length edited": string(cb[:i]) + "1" + string(cb[i:]),
			} {
				if err := os.WriteFile(ckpt, []byte(bad), 0o644); err != nil {
					t.Fatal(err)
				}
				unchanged := unchangedFiles(t, out, ckpt)
				code, errs := runChild(t, child(t, dir, args...))
				if code != 2 || !strings.Contains(errs, "is damaged") || !strings.Contains(errs, "nothing was changed") {
					t.Fatalf("%s: exit %d\n%s", what, code, errs)
				}
				unchanged(what)
			}
		})
	}
}
