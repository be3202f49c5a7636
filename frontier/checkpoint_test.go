package frontier_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	"github.com/uriscan/uriscan/seen/pebble"
	"github.com/uriscan/uriscan/seen/redis"
	"github.com/uriscan/uriscan/urikey"
)

// The tests of this file hold the checkpoint and the store to each other
// for every persistent store: the key log, Pebble, and Redis (a single
// server and a cluster, when URISCAN_REDIS_ADDR and URISCAN_REDIS_CLUSTER
// name them: .ci/redis.sh; skipped without, failed with
// URISCAN_REDIS_REQUIRE=1).

// store is one persistent store under test: open opens it (made on first
// use), the same store every call; fresh gives another, new store of the
// same kind; stateFile is the store's own state file ("" for Redis).
type store struct {
	name      string
	openErr   func(t *testing.T) (seen.Set, error)
	fresh     func(t *testing.T) store
	stateFile string
	rewinds   bool // a frontier.Rewinder
}

func (st store) open(t *testing.T) seen.Set {
	t.Helper()
	s, err := st.openErr(t)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func crawlerParams(t *testing.T) seen.Params {
	t.Helper()
	h, err := urikey.NewHasher(testKey, normalize.Crawler)
	if err != nil {
		t.Fatal(err)
	}
	p, err := h.Params()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func keylogStore(t *testing.T) store {
	dir := filepath.Join(t.TempDir(), "seen")
	return store{name: "keylog", stateFile: filepath.Join(dir, "uriscan-seen.json"), rewinds: true,
		openErr: func(t *testing.T) (seen.Set, error) {
			return keylog.Open(dir, &keylog.Options{Params: crawlerParams(t)})
		}, fresh: keylogStore}
}

func pebbleStore(t *testing.T) store {
	dir := filepath.Join(t.TempDir(), "pebble")
	return store{name: "pebble", stateFile: filepath.Join(dir, "uriscan-seen.json"),
		openErr: func(t *testing.T) (seen.Set, error) {
			return pebble.Open(dir, &pebble.Options{Params: crawlerParams(t)})
		}, fresh: pebbleStore}
}

func redisStore(env string) func(t *testing.T) store {
	var mk func(t *testing.T) store
	mk = func(t *testing.T) store {
		v := strings.TrimSpace(os.Getenv(env))
		if v == "" {
			msg := env + " is not set: no Redis to test against (eval \"$(.ci/redis.sh)\")"
			if os.Getenv("URISCAN_REDIS_REQUIRE") == "1" {
				t.Fatal(msg + ", and URISCAN_REDIS_REQUIRE=1")
			}
			t.Skip(msg)
		}
		addrs := strings.Split(v, ",")
		prefix := fmt.Sprintf("uriscan-test:frontier:%d.%d.%x:", os.Getpid(), time.Now().UnixNano(), rand.Uint64())
		t.Cleanup(func() {
			d, err := redis.Open(addrs, &redis.Options{AnyParams: true, Prefix: prefix})
			if err != nil {
				t.Errorf("cleanup: %v", err)
				return
			}
			defer d.Close()
			if err := d.Drop(); err != nil {
				t.Errorf("cleanup: Drop: %v", err)
			}
		})
		return store{name: "redis", fresh: mk, openErr: func(t *testing.T) (seen.Set, error) {
			return redis.Open(addrs, &redis.Options{Params: crawlerParams(t), Prefix: prefix, Timeout: time.Minute})
		}}
	}
	return mk
}

// eachStore runs f for each persistent store, as subtests.
func eachStore(t *testing.T, f func(t *testing.T, st store)) {
	for _, s := range []struct {
		name string
		mk   func(t *testing.T) store
	}{
		{"keylog", keylogStore}, {"pebble", pebbleStore},
		{"redis", redisStore("URISCAN_REDIS_ADDR")}, {"redis-cluster", redisStore("URISCAN_REDIS_CLUSTER")},
	} {
		t.Run(s.name, func(t *testing.T) { f(t, s.mk(t)) })
	}
}

// crawlStore runs crawl with a set of st, closed after.
func crawlStore(t *testing.T, st store, input, output string, opts ...func(*frontier.Options)) error {
	t.Helper()
	set := st.open(t)
	_, err := crawl(input, output, set, 100, opts...)
	if cerr := set.Close(); err == nil && cerr != nil {
		t.Fatal(cerr)
	}
	return err
}

// stopAfter runs a crawl of input into output with a set of st that
// stops (Close without Finish) after n lines: a run killed there.
func stopAfter(t *testing.T, st store, input, output string, n int) {
	t.Helper()
	h, _ := urikey.NewHasher(testKey, normalize.Crawler)
	keyOf := func(line []byte) (seen.Key, error) { s, err := h.SumRaw(line); return seen.Key(s), err }
	set := st.open(t)
	defer set.Close()
	log, err := frontier.Open(set, frontier.Options{Output: output, Inputs: []string{input}, Run: map[string]string{"level": "crawler"}, Batch: 100, KeyOf: keyOf})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(input)
	feed(t, log, h, data, n)
	if err := log.Close(); err != nil {
		t.Fatal(err)
	}
}

// stoppedRun makes a crawl of a 3000-line input with a set of st and
// stops it after 1234 lines (a run killed there); it returns the input,
// the output, the checkpoint and what an uninterrupted run writes.
func stoppedRun(t *testing.T, st store) (input, out, ckpt, want string) {
	t.Helper()
	dir := t.TempDir()
	input = crawlerInput(t, dir, 3000)
	want, _ = reference(t, input)
	out = filepath.Join(dir, "out.txt")
	stopAfter(t, st, input, out, 1234)
	return input, out, out + ".checkpoint", want
}

// files holds the bytes of some files, to put them back or compare.
type files map[string][]byte

func snapshot(t *testing.T, names ...string) files {
	t.Helper()
	f := files{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		f[n] = b
	}
	return f
}

func (f files) restore(t *testing.T) {
	t.Helper()
	for n, b := range f {
		if err := os.WriteFile(n, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// unchanged fails t if a file is not as f has it.
func (f files) unchanged(t *testing.T, what string) {
	t.Helper()
	for n, b := range f {
		got, err := os.ReadFile(n)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("%s: %s changed (%d bytes, was %d; %v)", what, filepath.Base(n), len(got), len(b), err)
		}
	}
}

func wantOutput(t *testing.T, output, want, what string) {
	t.Helper()
	got, err := os.ReadFile(output)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("%s: the output has %d lines, want %d (an uninterrupted run's)", what, strings.Count(string(got), "\n"), strings.Count(want, "\n"))
	}
}

// checkpointJSON returns the checkpoint's members (the file unsealed).
func checkpointJSON(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	obj, sealed, err := atomicfile.UnsealJSON(b)
	if err != nil || !sealed {
		t.Fatalf("checkpoint %s: sealed %v, %v", name, sealed, err)
	}
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func writeCheckpointJSON(t *testing.T, name string, m map[string]any, seal bool) {
	t.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if seal {
		b = atomicfile.SealJSON(b)
	}
	if err := os.WriteFile(name, append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestStoreAhead: a checkpoint (with its output) put back from before the
// store's last commits is refused for every persistent store, with
// ErrStoreAhead, the output and the checkpoint untouched; Rebuild does
// not mend it. Rewind cuts a key log back and the run completes as an
// uninterrupted one; the other stores refuse it. A new store with Rebuild
// (the recovery the message offers) completes it too.
func TestStoreAhead(t *testing.T) {
	eachStore(t, func(t *testing.T, st store) {
		input, out, ckpt, want := stoppedRun(t, st)
		backup := snapshot(t, out, ckpt)
		if err := crawlStore(t, st, input, out); err != nil {
			t.Fatal(err)
		}
		wantOutput(t, out, want, "the run to its end")
		backup.restore(t)

		err := crawlStore(t, st, input, out)
		var ae *frontier.AheadError
		if !errors.Is(err, frontier.ErrStoreAhead) || !errors.As(err, &ae) {
			t.Fatalf("a checkpoint older than the store: %v, want ErrStoreAhead", err)
		}
		if ae.StoreSeq <= ae.Seq+1 || !strings.Contains(err.Error(), "older than the store") {
			t.Fatalf("store batch %d, checkpoint batch %d: %v", ae.StoreSeq, ae.Seq, err)
		}
		backup.unchanged(t, "refused")
		if err := crawlStore(t, st, input, out, func(o *frontier.Options) { o.Rebuild = true }); !errors.Is(err, frontier.ErrStoreAhead) {
			t.Fatalf("Rebuild over a store ahead: %v, want ErrStoreAhead", err)
		}
		backup.unchanged(t, "refused with Rebuild")

		var dropped int64 = -1
		rewind := func(o *frontier.Options) { o.Rewind, o.OnRewind = true, func(n int64) { dropped = n } }
		err = crawlStore(t, st, input, out, rewind)
		if st.rewinds {
			if err != nil {
				t.Fatalf("Rewind: %v", err)
			}
			if dropped <= 0 {
				t.Fatalf("Rewind: OnRewind told %d keys dropped", dropped)
			}
			wantOutput(t, out, want, "rewound")
		} else {
			if !errors.As(err, &ae) || ae.Rewind == nil {
				t.Fatalf("Rewind of a %s store: %v, want an AheadError that says why not", st.name, err)
			}
			backup.unchanged(t, "refused with Rewind")
		}

		// A new store built from the output.
		backup.restore(t)
		nst := st.fresh(t)
		if err := crawlStore(t, nst, input, out, func(o *frontier.Options) { o.Rebuild = true }); err != nil {
			t.Fatalf("a new store with Rebuild: %v", err)
		}
		wantOutput(t, out, want, "a new store rebuilt from the output")
	})
}

// failing is a set whose InsertCommit fails at a chosen step (a kill
// there): after the commit record, or after it and half the keys, or
// before anything.
type failing struct {
	seen.Committer
	step string // "before", "record", "half"
	n    int    // InsertCommits to let through first
}

var errKilled = errors.New("killed (test)")

func (f *failing) InsertCommit(c seen.Commit, keys []seen.Key) error {
	if f.n > 0 {
		f.n--
		return f.Committer.InsertCommit(c, keys)
	}
	switch f.step {
	case "record":
		if err := f.Committer.InsertCommit(c, nil); err != nil {
			return err
		}
	case "half":
		if err := f.Committer.InsertCommit(c, keys[:len(keys)/2]); err != nil {
			return err
		}
	}
	return errKilled
}

// TestOneBatchGaps: a run stopped between the checkpoint and the store's
// commit record, between the record and the keys, or in the middle of the
// keys (the store one batch behind the checkpoint, or at it with keys
// missing) resumes with no error and writes what an uninterrupted run
// writes, for every persistent store.
func TestOneBatchGaps(t *testing.T) {
	eachStore(t, func(t *testing.T, st store) {
		dir := t.TempDir()
		input := crawlerInput(t, dir, 3000)
		want, _ := reference(t, input)
		// A stop at the first batch (n 0) or a later one, and again at
		// the resume's first insert (the replay's).
		for _, c := range []struct{ n, again int }{{0, 0}, {7, 0}, {7, 1}} {
			for _, step := range []string{"before", "record", "half"} {
				t.Run(fmt.Sprintf("%s-%d-%d", step, c.n, c.again), func(t *testing.T) {
					st := st.fresh(t)
					out := filepath.Join(t.TempDir(), "out.txt")
					for i, n := range []int{c.n, 0}[:1+c.again] {
						set := st.open(t)
						_, err := crawl(input, out, &failing{Committer: set.(seen.Committer), step: step, n: n}, 100)
						set.Close()
						if !errors.Is(err, errKilled) {
							t.Fatalf("failing run %d: %v", i+1, err)
						}
					}
					if err := crawlStore(t, st, input, out); err != nil {
						t.Fatalf("resumed after a stop %s: %v", step, err)
					}
					wantOutput(t, out, want, "resumed")
				})
			}
		}
	})
}

// TestStoreBehind: a store that records an earlier batch of the run than
// the one before the checkpoint's (put back from an older copy, though
// it holds as many keys as the checkpoint's stamp) is refused as one that
// lost keys, and Rebuild mends it: the run completes as an uninterrupted
// one.
func TestStoreBehind(t *testing.T) {
	eachStore(t, func(t *testing.T, st store) {
		input, out, ckpt, want := stoppedRun(t, st)
		m := checkpointJSON(t, ckpt)
		run, _ := m["run_id"].(string)
		sc, _ := m["store_commit"].(map[string]any)
		before, _ := sc["before"].(float64)
		if !seen.ValidRunID(run) || before < 3 {
			t.Fatalf("checkpoint: run_id %q, store_commit %v", run, m["store_commit"])
		}
		set := st.open(t)
		if err := set.(seen.Committer).InsertCommit(seen.Commit{Run: run, Seq: int64(before) - 2}, nil); err != nil {
			t.Fatal(err)
		}
		set.Close()
		backup := snapshot(t, out, ckpt)
		if err := crawlStore(t, st, input, out); !errors.Is(err, seen.ErrLost) || !strings.Contains(err.Error(), "lost this run's writes") {
			t.Fatalf("a store behind the checkpoint: %v, want ErrLost", err)
		}
		backup.unchanged(t, "refused")
		rebuild := func(o *frontier.Options) { o.Rebuild = true }
		// Stopped at the commit record Rebuild adds at once, then again.
		set = st.open(t)
		_, err := crawl(input, out, &failing{Committer: set.(seen.Committer), step: "before"}, 100, rebuild)
		set.Close()
		if !errors.Is(err, errKilled) {
			t.Fatalf("Rebuild, stopped at its first commit record: %v", err)
		}
		if err := crawlStore(t, st, input, out, rebuild); err != nil {
			t.Fatalf("Rebuild: %v", err)
		}
		wantOutput(t, out, want, "rebuilt")
	})
}

// TestDamagedCheckpoint: a checkpoint with any byte changed (three ways),
// cut short, emptied, or without a version is refused with ErrDamaged before anything is
// changed; so is one whose output_length was edited and its checksum
// dropped. A store's own state file with a changed
// byte is refused too, the output untouched.
func TestDamagedCheckpoint(t *testing.T) {
	eachStore(t, func(t *testing.T, st store) {
		input, out, ckpt, want := stoppedRun(t, st)
		good := snapshot(t, out, ckpt)
		b := good[ckpt]
		try := func(what string, bad []byte, set seen.Set) {
			t.Helper()
			if err := os.WriteFile(ckpt, bad, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := crawl(input, out, set, 100)
			if !errors.Is(err, frontier.ErrDamaged) {
				t.Fatalf("%s: %v, want ErrDamaged", what, err)
			}
			if _, lerr := frontier.LastStamp(ckpt); !errors.Is(lerr, frontier.ErrDamaged) {
				t.Fatalf("%s: LastStamp: %v, want ErrDamaged", what, lerr)
			}
			if got, _ := os.ReadFile(out); !bytes.Equal(got, good[out]) {
				t.Fatalf("%s: the output changed", what)
			}
		}
		set := st.open(t)
		n := 0
		for i := range b {
			for _, x := range []byte{0x01, 0x20, 0x80} {
				bad := bytes.Clone(b)
				bad[i] ^= x
				try(fmt.Sprintf("byte %d ^ %#x", i, x), bad, set)
				n++
			}
		}
		try("cut short", b[:len(b)/2], set)
		try("empty", nil, set)
		try("an object with no version", []byte("{}\n"), set)
		set.Close()
		good.restore(t)
		m := checkpointJSON(t, ckpt)
		m["output_length"] = m["output_length"].(float64) - 100
		writeCheckpointJSON(t, ckpt, m, false)
		set = st.open(t)
		try("output_length edited, checksum dropped", snapshot(t, ckpt)[ckpt], set)
		set.Close()
		t.Logf("%d changed bytes refused", n)

		// The checkpoint is good again, the run goes on.
		good.restore(t)
		if st.stateFile != "" {
			s := snapshot(t, st.stateFile)
			for i := range s[st.stateFile] {
				bad := bytes.Clone(s[st.stateFile])
				bad[i] ^= 0x01
				if err := os.WriteFile(st.stateFile, bad, 0o644); err != nil {
					t.Fatal(err)
				}
				if set, err := st.openErr(t); err == nil {
					set.Close()
					t.Fatalf("state file byte %d changed: the store opened", i)
				}
				good.unchanged(t, fmt.Sprintf("state file byte %d changed", i))
			}
			s.restore(t)
		}
		if err := crawlStore(t, st, input, out); err != nil {
			t.Fatal(err)
		}
		wantOutput(t, out, want, "resumed from the good checkpoint")
	})
}

// TestCheckpointUpgrade: a checkpoint of version 2 (no run, no checksum)
// is read and upgraded: the run resumes, completes as an uninterrupted
// one, and its checkpoint is then of version 3, sealed, with a run. A
// version 2 checkpoint with a checksum was never written: refused as
// damaged.
func TestCheckpointUpgrade(t *testing.T) {
	st := keylogStore(t)
	input, out, ckpt, want := stoppedRun(t, st)
	m := checkpointJSON(t, ckpt)
	m["version"] = 2
	delete(m, "run_id")
	delete(m, "store_commit")
	writeCheckpointJSON(t, ckpt, m, true)
	if err := crawlStore(t, st, input, out); !errors.Is(err, frontier.ErrDamaged) {
		t.Fatalf("a sealed version 2 checkpoint: %v, want ErrDamaged", err)
	}
	writeCheckpointJSON(t, ckpt, m, false)
	if err := crawlStore(t, st, input, out); err != nil {
		t.Fatalf("a version 2 checkpoint: %v", err)
	}
	wantOutput(t, out, want, "resumed from version 2")
	m = checkpointJSON(t, ckpt)
	if m["version"] != float64(3) || !seen.ValidRunID(fmt.Sprint(m["run_id"])) || m["store_commit"] == nil {
		t.Fatalf("the upgraded checkpoint: version %v, run_id %v, store_commit %v", m["version"], m["run_id"], m["store_commit"])
	}
}

// TestStaleTemp: the temporary files of checkpoint writes that a killed
// run left (FILE.checkpoint.tmpNNN) are removed when the next run opens
// the checkpoint; other files beside it are not.
func TestStaleTemp(t *testing.T) {
	st := keylogStore(t)
	input, out, ckpt, _ := stoppedRun(t, st)
	dir := filepath.Dir(out)
	stale := []string{ckpt + ".tmp123456", ckpt + ".tmp9"}
	keep := []string{ckpt + ".bak", ckpt + ".tmp.bak", filepath.Join(dir, "other.checkpoint.tmp1")}
	for _, n := range append(stale, keep...) {
		if err := os.WriteFile(n, []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := crawlStore(t, st, input, out); err != nil {
		t.Fatal(err)
	}
	for _, n := range stale {
		if _, err := os.Stat(n); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: still there (%v)", filepath.Base(n), err)
		}
	}
	for _, n := range keep {
		if _, err := os.Stat(n); err != nil {
			t.Errorf("%s: removed (%v)", filepath.Base(n), err)
		}
	}
}

// lostCheck is a set whose Check says it lost keys, whatever it holds.
type lostCheck struct{ seen.Committer }

func (l lostCheck) Check(seen.Stamp) error {
	return &seen.LostError{Store: "the test's set", Count: -1, Why: "it says so"}
}

// TestAheadAndMoved: a set ahead of the checkpoint is refused with Rebuild
// whatever else is wrong with it (it also lost keys), and a run may move
// to another set with Rebuild (Options.SetEntry), which then gets the
// output's keys and completes the run; but naming the same set another
// way is no move: still ahead, refused.
func TestAheadAndMoved(t *testing.T) {
	a, b := keylogStore(t), keylogStore(t)
	input, out, ckpt, want := stoppedRun(t, a)
	backup := snapshot(t, out, ckpt)
	if err := crawlStore(t, a, input, out); err != nil {
		t.Fatal(err)
	}
	backup.restore(t)
	rebuild := func(o *frontier.Options) { o.Rebuild = true }
	set := a.open(t)
	_, err := crawl(input, out, lostCheck{set.(seen.Committer)}, 100, rebuild)
	set.Close()
	if !errors.Is(err, frontier.ErrStoreAhead) {
		t.Fatalf("a set ahead that also lost keys, with Rebuild: %v, want ErrStoreAhead", err)
	}
	backup.unchanged(t, "refused")

	// The checkpoint named its set "A"; Run entries other than SetEntry
	// must still match.
	named := func(name string, setEntry bool) func(o *frontier.Options) {
		return func(o *frontier.Options) {
			o.Run = map[string]string{"level": "crawler", "store": name}
			if setEntry {
				o.SetEntry = "store"
			}
		}
	}
	// (The stopped run recorded no "store": start again, naming it.)
	os.Remove(out)
	os.Remove(ckpt)
	a = keylogStore(t)
	h, _ := urikey.NewHasher(testKey, normalize.Crawler)
	keyOf := func(line []byte) (seen.Key, error) { s, err := h.SumRaw(line); return seen.Key(s), err }
	set = a.open(t)
	o := frontier.Options{Output: out, Inputs: []string{input}, Batch: 100, KeyOf: keyOf}
	named("A", true)(&o)
	log, err := frontier.Open(set, o)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(input)
	feed(t, log, h, data, 1234)
	log.Close()
	set.Close()
	backup = snapshot(t, out, ckpt)
	if err := crawlStore(t, a, input, out, named("A", true)); err != nil {
		t.Fatal(err)
	}
	backup.restore(t)
	if err := crawlStore(t, a, input, out, named("./A", false), rebuild); err == nil || !strings.Contains(err.Error(), "does not belong to this run") {
		t.Fatalf("another store name without SetEntry: %v", err)
	}
	if err := crawlStore(t, a, input, out, named("./A", true), rebuild); !errors.Is(err, frontier.ErrStoreAhead) {
		t.Fatalf("the same set named another way, with Rebuild: %v, want ErrStoreAhead", err)
	}
	backup.unchanged(t, "refused")
	if err := crawlStore(t, b, input, out, named("B", true)); err == nil || !strings.Contains(err.Error(), "does not belong to this run") {
		t.Fatalf("another set without Rebuild: %v", err)
	}
	var told int64 = -1
	onRebuild := func(o *frontier.Options) { o.OnRebuild = func(_ error, n int64) { told = n } }
	if err := crawlStore(t, b, input, out, named("B", true), rebuild, onRebuild); err != nil {
		t.Fatalf("moved to another set with Rebuild: %v", err)
	}
	if told != int64(len(backup[out])) {
		t.Fatalf("OnRebuild told %d bytes, want the output's %d", told, len(backup[out]))
	}
	wantOutput(t, out, want, "moved to another set")
	if m := checkpointJSON(t, ckpt); m["run"].(map[string]any)["store"] != "B" {
		t.Fatalf("the checkpoint names the set %v, want B", m["run"])
	}
}
