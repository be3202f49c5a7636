package keylog_test

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/testexec"
	"github.com/uriscan/uriscan/seen"
)

const crashEnvDir = "URISCAN_KEYLOG_CRASH_DIR"

// crashBatch is the i-th batch of the crash test's child: 1500 keys of
// its own, then 500 of the batches before it, shuffled.
func crashBatch(i int) []seen.Key {
	keys := make([]seen.Key, 0, 2000)
	for j := range 1500 {
		keys = append(keys, bkey(i*1500+j))
	}
	r := rand.New(rand.NewPCG(uint64(i), 7))
	for range 500 {
		if i > 0 {
			keys = append(keys, bkey(r.IntN(i*1500)))
		}
	}
	r.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
	return keys
}

// TestCrashChild is the child process of TestCrash: it opens the set in
// DIR and adds batches 0, 1, 2, ... until it is killed, printing the keys
// AddBatch reported new and "batch N" after each batch.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashEnvDir)
	if dir == "" {
		t.Skip("helper process for TestCrash")
	}
	s, err := openSet(dir, anyParams)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	// From about where the last round ended, so that the kills land in
	// batches that write.
	for i := max(0, int(s.Len())/1500-2); i < 100_000; i++ {
		keys := crashBatch(i)
		isNew := make([]bool, len(keys))
		if err := s.AddBatch(keys, isNew); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		for j, v := range isNew {
			if v {
				fmt.Fprintf(out, "new %x\n", keys[j])
			}
		}
		fmt.Fprintf(out, "batch %d\n", i)
		out.Flush()
	}
	os.Exit(0) // (not reached in time: killed)
}

// TestCrash kills a process that adds keys (SIGKILL, at random moments,
// in the middle of writes and syncs) again and again, and checks after
// each kill that every key ever reported new is in the set, that no key
// was reported new twice, and that the set holds no key it was not given.
func TestCrash(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	dir := filepath.Join(t.TempDir(), "set")
	reported := map[seen.Key]int{} // key -> round that reported it new
	maxBatch := -1
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	for round := range rounds {
		child := testexec.Start(t, "TestCrashChild", crashEnvDir+"="+dir)
		cmd, stdout, stderr := child.Cmd, child.Stdout, child.Stderr
		killAt := 1 + r.IntN(40)
		batches := 0
		var pending []seen.Key
		sc := bufio.NewScanner(stdout)
		killed := false
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "new "):
				b, err := hex.DecodeString(line[4:])
				if err == nil && len(b) == 16 {
					pending = append(pending, seen.Key(b))
				}
			case strings.HasPrefix(line, "batch "):
				n, _ := strconv.Atoi(line[6:])
				maxBatch = max(maxBatch, n)
				batches++
				for _, k := range pending {
					if r0, dup := reported[k]; dup {
						t.Fatalf("round %d: key %x reported new again (first in round %d)", round, k, r0)
					}
					reported[k] = round
				}
				pending = pending[:0]
				if batches == killAt && !killed {
					// Kill a moment later: inside the next batch's write,
					// its sync, or between them.
					killed = true
					time.AfterFunc(time.Duration(r.IntN(3000))*time.Microsecond, func() { cmd.Process.Kill() })
				}
			}
		}
		werr := cmd.Wait()
		if !killed || !strings.Contains(fmt.Sprint(werr), "killed") {
			t.Fatalf("round %d: child ended with %v before it was killed\n%s", round, werr, stderr.String())
		}

		s := open(t, dir, anyParams)
		keys := make([]seen.Key, 0, len(reported))
		for k := range reported {
			keys = append(keys, k)
		}
		has := make([]bool, len(keys))
		if err := s.Contains(keys, has); err != nil {
			t.Fatal(err)
		}
		for i, h := range has {
			if !h {
				t.Fatalf("round %d: key %x reported new in round %d is not in the set", round, keys[i], reported[keys[i]])
			}
		}
		// Nothing but the keys of the batches the child began.
		if limit := int64((maxBatch + 2) * 1500); s.Len() < int64(len(reported)) || s.Len() > limit {
			t.Fatalf("round %d: Len = %d, want %d to %d", round, s.Len(), len(reported), limit)
		}
		if err := s.Verify(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d rounds, %d keys reported new, up to batch %d", rounds, len(reported), maxBatch)
}

const crashCommitEnv = "URISCAN_KEYLOG_CRASH_COMMIT_DIR"

// TestCrashCommitChild is the child process of TestCrashCommit: it opens
// the set in DIR and, as package frontier does, from the batch its run
// (runA) last committed on (redone: its keys may be missing), inserts
// batch i with the commit record of Seq i+1, printing "batch i" after
// each, until it is killed.
func TestCrashCommitChild(t *testing.T) {
	dir := os.Getenv(crashCommitEnv)
	if dir == "" {
		t.Skip("helper process for TestCrashCommit")
	}
	s, err := openSet(dir, anyParams)
	if err == nil {
		var c int64
		if c, err = s.Committed(runA); err == nil {
			for i := max(0, c-1); i < 100_000 && err == nil; i++ {
				if err = s.InsertCommit(seen.Commit{Run: runA, Seq: i + 1}, crashBatch(int(i))); err == nil {
					fmt.Printf("batch %d\n", i)
				}
			}
		}
	}
	fmt.Fprintln(os.Stderr, "child:", err)
	os.Exit(2)
}

// TestCrashCommit kills a process that inserts batches with their commit
// records (SIGKILL, at random moments) again and again, and checks after
// each kill that the run's commit record is never behind its keys: with
// Committed c, the keys of every batch before batch c-1 (Seq c) are in
// the set, those of batch c-1 all or none, those of later batches none,
// and c is past every batch the child reported done.
func TestCrashCommit(t *testing.T) {
	rounds := 12
	if testing.Short() {
		rounds = 4
	}
	dir := filepath.Join(t.TempDir(), "set")
	maxBatch := -1
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	for round := range rounds {
		child := testexec.Start(t, "TestCrashCommitChild", crashCommitEnv+"="+dir)
		cmd, stdout, stderr := child.Cmd, child.Stdout, child.Stderr
		killAt := 1 + r.IntN(40)
		batches := 0
		killed := false
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			line := sc.Text()
			if !strings.HasPrefix(line, "batch ") {
				continue
			}
			n, _ := strconv.Atoi(line[6:])
			maxBatch = max(maxBatch, n)
			if batches++; batches == killAt && !killed {
				killed = true
				time.AfterFunc(time.Duration(r.IntN(3000))*time.Microsecond, func() { cmd.Process.Kill() })
			}
		}
		werr := cmd.Wait()
		if !killed || !strings.Contains(fmt.Sprint(werr), "killed") {
			t.Fatalf("round %d: child ended with %v before it was killed\n%s", round, werr, stderr.String())
		}

		s := open(t, dir, anyParams)
		c, err := s.Committed(runA)
		if err != nil {
			t.Fatal(err)
		}
		if c < int64(maxBatch)+1 {
			t.Fatalf("round %d: Committed = %d, but batch %d (Seq %d) was reported done", round, c, maxBatch, maxBatch+1)
		}
		// The keys of batch j of its own: 1500 from j*1500.
		present := func(j int64) int {
			keys := keyRange(int(j)*1500, int(j+1)*1500)
			has := make([]bool, len(keys))
			if err := s.Contains(keys, has); err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, h := range has {
				if h {
					n++
				}
			}
			return n
		}
		for j := int64(0); j < c-1; j++ {
			if n := present(j); n != 1500 {
				t.Fatalf("round %d: Committed = %d, and %d keys of batch %d are in the set, want 1500", round, c, n, j)
			}
		}
		last := present(c - 1)
		if last != 0 && last != 1500 {
			t.Fatalf("round %d: %d keys of batch %d (Seq %d, the last committed), want all or none", round, last, c-1, c)
		}
		for j := c; j < c+3; j++ {
			if n := present(j); n != 0 {
				t.Fatalf("round %d: %d keys of batch %d (Seq %d) are in the set, whose commit record is not (Committed %d)", round, n, j, j+1, c)
			}
		}
		if want := 1500*(c-1) + int64(last); s.Len() != want {
			t.Fatalf("round %d: Len = %d, want %d", round, s.Len(), want)
		}
		if err := s.Verify(); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d rounds, up to batch %d", rounds, maxBatch)
}
