// Package settest is the test suite every seen.Set implementation must
// pass. An implementation's tests call Run with a function that opens a
// new, empty set:
//
//	func TestMemory(t *testing.T) {
//		settest.Run(t, func(t *testing.T) seen.Set { return seen.NewMemory(0) })
//	}
//
// Run opens one set per subtest and closes it at the end of that subtest
// (open may register its own cleanup with t.Cleanup, for example to remove
// a t.TempDir). The suite is deterministic: its random keys come from fixed
// seeds.
package settest

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/uriscan/uriscan/seen"
)

// RandomKeys is the number of random keys the Random subtest adds (about a
// quarter of them twice).
const RandomKeys = 200_000

// Run runs the shared suite against sets made by open.
func Run(t *testing.T, open func(t *testing.T) seen.Set) {
	t.Helper()
	sub := func(name string, f func(t *testing.T, s seen.Set)) {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			if s == nil {
				t.Fatal("open returned a nil Set")
			}
			defer func() {
				if err := s.Close(); err != nil && !errors.Is(err, seen.ErrClosed) {
					t.Errorf("Close: %v", err)
				}
			}()
			f(t, s)
		})
	}
	sub("NewThenSeen", testNewThenSeen)
	sub("BatchEqualsAdds", testBatchEqualsAdds)
	sub("BatchEdges", testBatchEdges)
	sub("Random", testRandom)
	sub("ZeroKey", testZeroKey)
	sub("OneBitApart", testOneBitApart)
	sub("SharedHalves", testSharedHalves)
	sub("ContainsInsert", testContainsInsert)
	sub("ContainsReadOnly", testContainsReadOnly)
	sub("ContainsInsertEdges", testContainsInsertEdges)
	sub("InsertIdempotent", testInsertIdempotent)
	sub("Closed", testClosed)
}

// model is the reference: a Go map with the sequential semantics of Add.
type model map[seen.Key]struct{}

func (m model) add(k seen.Key) bool {
	if _, ok := m[k]; ok {
		return false
	}
	m[k] = struct{}{}
	return true
}

func (m model) has(k seen.Key) bool {
	_, ok := m[k]
	return ok
}

func mustAdd(t *testing.T, s seen.Set, k seen.Key, want bool) {
	t.Helper()
	got, err := s.Add(k)
	if err != nil {
		t.Fatalf("Add(%x): %v", k, err)
	}
	if got != want {
		t.Fatalf("Add(%x) = %v, want %v", k, got, want)
	}
}

func wantLen(t *testing.T, s seen.Set, want int) {
	t.Helper()
	if got := s.Len(); got != int64(want) {
		t.Fatalf("Len() = %d, want %d", got, want)
	}
}

// key builds a key from two words, little-endian.
func key(lo, hi uint64) seen.Key {
	var k seen.Key
	binary.LittleEndian.PutUint64(k[0:8], lo)
	binary.LittleEndian.PutUint64(k[8:16], hi)
	return k
}

func randKey(r *rand.Rand) seen.Key { return key(r.Uint64(), r.Uint64()) }

func testNewThenSeen(t *testing.T, s seen.Set) {
	wantLen(t, s, 0)
	a, b := key(1, 2), key(3, 4)
	mustAdd(t, s, a, true)
	wantLen(t, s, 1)
	mustAdd(t, s, a, false)
	mustAdd(t, s, a, false)
	wantLen(t, s, 1)
	mustAdd(t, s, b, true)
	mustAdd(t, s, a, false)
	mustAdd(t, s, b, false)
	wantLen(t, s, 2)
}

// checkBatch adds keys with AddBatch and compares each isNew and Len with
// the model.
func checkBatch(t *testing.T, s seen.Set, m model, keys []seen.Key) {
	t.Helper()
	isNew := make([]bool, len(keys))
	for i := range isNew {
		isNew[i] = i%2 == 0 // garbage the set must overwrite
	}
	if err := s.AddBatch(keys, isNew); err != nil {
		t.Fatalf("AddBatch(%d keys): %v", len(keys), err)
	}
	for i, k := range keys {
		if want := m.add(k); isNew[i] != want {
			t.Fatalf("AddBatch: isNew[%d] (key %x) = %v, want %v", i, k, isNew[i], want)
		}
	}
	wantLen(t, s, len(m))
}

func testBatchEqualsAdds(t *testing.T, s seen.Set) {
	r := rand.New(rand.NewPCG(1, 2))
	m := model{}
	var pool []seen.Key // keys seen so far, to draw repeats from
	pick := func() seen.Key {
		if len(pool) > 0 && r.IntN(3) == 0 {
			return pool[r.IntN(len(pool))]
		}
		k := randKey(r)
		pool = append(pool, k)
		return k
	}
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 100, 1000, 4096} {
		keys := make([]seen.Key, n)
		for i := range keys {
			keys[i] = pick()
		}
		if n >= 3 {
			// The same key several times in one batch, adjacent
			// and apart, possibly already in the set.
			keys[n-1] = keys[0]
			keys[n/2] = keys[0]
			keys[1] = keys[0]
		}
		checkBatch(t, s, m, keys)
		// Interleave single Adds with the batches.
		for range 10 {
			k := pick()
			mustAdd(t, s, k, m.add(k))
		}
		wantLen(t, s, len(m))
	}
	// A batch of nothing but one new key.
	k := randKey(r)
	checkBatch(t, s, m, []seen.Key{k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k, k})
}

func testBatchEdges(t *testing.T, s seen.Set) {
	// isNew may be longer than keys; the tail is left alone.
	isNew := []bool{false, false, true, true}
	if err := s.AddBatch([]seen.Key{key(5, 5), key(5, 5)}, isNew); err != nil {
		t.Fatalf("AddBatch: %v", err)
	}
	if want := []bool{true, false, true, true}; fmt.Sprint(isNew) != fmt.Sprint(want) {
		t.Fatalf("isNew = %v, want %v", isNew, want)
	}
	// Shorter isNew: an error, not a panic, and nothing added.
	err := s.AddBatch([]seen.Key{key(6, 6), key(7, 7), key(8, 8)}, make([]bool, 2))
	if !errors.Is(err, seen.ErrShortBatch) {
		t.Fatalf("AddBatch with short isNew: err = %v, want ErrShortBatch", err)
	}
	wantLen(t, s, 1)
	mustAdd(t, s, key(6, 6), true)
	// Empty and nil batches.
	if err := s.AddBatch(nil, nil); err != nil {
		t.Fatalf("AddBatch(nil, nil): %v", err)
	}
	if err := s.AddBatch([]seen.Key{}, []bool{}); err != nil {
		t.Fatalf("AddBatch(empty): %v", err)
	}
	wantLen(t, s, 2)
}

// testRandom adds RandomKeys keys, a quarter of them repeats of earlier
// ones, alternating runs of Add and AddBatch, checking every answer
// against a map, then checks every key is reported as seen.
func testRandom(t *testing.T, s seen.Set) {
	r := rand.New(rand.NewPCG(3, 4))
	m := model{}
	keys := make([]seen.Key, 0, RandomKeys)
	for len(keys) < RandomKeys {
		if len(keys) > 0 && r.IntN(4) == 0 {
			keys = append(keys, keys[r.IntN(len(keys))])
		} else {
			keys = append(keys, randKey(r))
		}
	}
	const singles, batch = 100, 900 // per round of 1000 keys
	rest := keys
	for len(rest) > 0 {
		n := min(singles, len(rest))
		for _, k := range rest[:n] {
			mustAdd(t, s, k, m.add(k))
		}
		rest = rest[n:]
		n = min(batch, len(rest))
		checkBatch(t, s, m, rest[:n])
		rest = rest[n:]
	}
	wantLen(t, s, len(m))
	// Everything is seen now, by Add and by AddBatch.
	for _, k := range keys[:RandomKeys/10] {
		mustAdd(t, s, k, false)
	}
	isNew := make([]bool, len(keys))
	if err := s.AddBatch(keys, isNew); err != nil {
		t.Fatalf("AddBatch: %v", err)
	}
	for i, v := range isNew {
		if v {
			t.Fatalf("AddBatch: key %d (%x) reported new again", i, keys[i])
		}
	}
	wantLen(t, s, len(m))
}

func testZeroKey(t *testing.T, s seen.Set) {
	var zero seen.Key
	mustAdd(t, s, key(1, 0), true) // zero high half
	mustAdd(t, s, key(0, 1), true) // zero low half
	wantLen(t, s, 2)
	mustAdd(t, s, zero, true)
	wantLen(t, s, 3)
	mustAdd(t, s, zero, false)
	mustAdd(t, s, key(1, 0), false)
	mustAdd(t, s, key(0, 1), false)
	wantLen(t, s, 3)
	m := model{zero: {}, key(1, 0): {}, key(0, 1): {}}
	checkBatch(t, s, m, []seen.Key{zero, key(0, 2), zero, key(2, 0), key(0, 2)})
}

// testOneBitApart adds a key and the 128 keys one bit away from it, and
// the same around the zero key, and all-ones.
func testOneBitApart(t *testing.T, s seen.Set) {
	m := model{}
	for _, base := range []seen.Key{key(0x0123456789abcdef, 0xfedcba9876543210), {}, key(^uint64(0), ^uint64(0))} {
		mustAdd(t, s, base, m.add(base))
		for bit := range 128 {
			k := base
			k[bit/8] ^= 1 << (bit % 8)
			mustAdd(t, s, k, m.add(k))
		}
		wantLen(t, s, len(m))
		mustAdd(t, s, base, false)
		for bit := range 128 {
			k := base
			k[bit/8] ^= 1 << (bit % 8)
			mustAdd(t, s, k, false)
		}
	}
	wantLen(t, s, len(m))
}

// testSharedHalves adds many keys sharing their low or high 64 bits, which
// a set may use as a table position or shard: long collision chains, at
// the start and the end of a table.
func testSharedHalves(t *testing.T, s seen.Set) {
	m := model{}
	var keys []seen.Key
	for i := range uint64(700) {
		keys = append(keys,
			key(0, i+1),           // low half zero
			key(^uint64(0), i),    // low half all ones
			key(i, 0x5555555555),  // shared high half
			key(i<<40, 0xabcdef0), // shared low bits
		)
	}
	for i, k := range keys {
		if i%3 == 0 {
			continue // left for the batch below
		}
		mustAdd(t, s, k, m.add(k))
	}
	wantLen(t, s, len(m))
	checkBatch(t, s, m, keys)
	for _, k := range keys {
		mustAdd(t, s, k, false)
	}
}

// checkContains looks keys up with Contains and compares each answer with
// the model; has is one longer than keys, and its last element, and the
// length of the set, must not change.
func checkContains(t *testing.T, s seen.Set, m model, keys []seen.Key) {
	t.Helper()
	has := make([]bool, len(keys)+1)
	for i := range has {
		has[i] = i%2 == 1 // garbage the set must overwrite
	}
	tail := has[len(keys)]
	if err := s.Contains(keys, has); err != nil {
		t.Fatalf("Contains(%d keys): %v", len(keys), err)
	}
	for i, k := range keys {
		if want := m.has(k); has[i] != want {
			t.Fatalf("Contains: has[%d] (key %x) = %v, want %v", i, k, has[i], want)
		}
	}
	if has[len(keys)] != tail {
		t.Fatalf("Contains(%d keys) wrote has[%d], past the keys", len(keys), len(keys))
	}
	wantLen(t, s, len(m))
}

// checkInsert inserts keys and compares Len with the model.
func checkInsert(t *testing.T, s seen.Set, m model, keys []seen.Key) {
	t.Helper()
	if err := s.Insert(keys); err != nil {
		t.Fatalf("Insert(%d keys): %v", len(keys), err)
	}
	for _, k := range keys {
		m.add(k)
	}
	wantLen(t, s, len(m))
}

// testContainsInsert runs the two-step protocol (Contains, then Insert)
// over batches of random keys with repeats, within a batch and of keys
// inserted or added before, checking every answer against the model; each
// Insert is repeated, as a retry would be, and the keys are then seen by
// Contains and AddBatch alike. The largest batch is longer than Redis'
// pipeline chunk.
func testContainsInsert(t *testing.T, s seen.Set) {
	r := rand.New(rand.NewPCG(11, 12))
	m := model{}
	var pool []seen.Key
	pick := func() seen.Key {
		if len(pool) > 0 && r.IntN(3) == 0 {
			return pool[r.IntN(len(pool))]
		}
		k := randKey(r)
		pool = append(pool, k)
		return k
	}
	for _, n := range []int{0, 1, 2, 3, 15, 16, 17, 100, 1000, 4096, 9000} {
		keys := make([]seen.Key, n)
		for i := range keys {
			keys[i] = pick()
		}
		if n >= 3 {
			keys[n-1] = keys[0]
			keys[n/2] = keys[0]
			keys[1] = keys[0]
		}
		checkContains(t, s, m, keys)
		checkInsert(t, s, m, keys)
		checkInsert(t, s, m, keys) // a retry: changes nothing
		checkContains(t, s, m, keys)
		// Single Adds in between, some of keys just inserted.
		for range 10 {
			k := pick()
			mustAdd(t, s, k, m.add(k))
		}
		wantLen(t, s, len(m))
	}
	// AddBatch agrees: every key is recorded.
	checkBatch(t, s, m, pool)
	checkContains(t, s, m, pool)
}

// testContainsReadOnly: Contains records nothing, so keys it was asked
// about are still new to Add and AddBatch afterwards, and then found.
func testContainsReadOnly(t *testing.T, s seen.Set) {
	r := rand.New(rand.NewPCG(13, 14))
	m := model{}
	for round := range 5 {
		keys := make([]seen.Key, 300*(round+1))
		for i := range keys {
			keys[i] = randKey(r)
		}
		keys = append(keys, seen.Key{}, key(0, uint64(round)+1))
		checkContains(t, s, m, keys)
		checkContains(t, s, m, keys) // asked twice: still absent
		half := len(keys) / 2
		for _, k := range keys[:half] {
			mustAdd(t, s, k, m.add(k))
		}
		checkBatch(t, s, m, keys[half:])
		checkContains(t, s, m, keys)
	}
}

func testContainsInsertEdges(t *testing.T, s seen.Set) {
	var zero seen.Key
	m := model{}
	// Empty and nil batches answer and change nothing.
	if err := s.Contains(nil, nil); err != nil {
		t.Fatalf("Contains(nil, nil): %v", err)
	}
	if err := s.Contains([]seen.Key{}, []bool{true}); err != nil {
		t.Fatalf("Contains(empty): %v", err)
	}
	if err := s.Insert(nil); err != nil {
		t.Fatalf("Insert(nil): %v", err)
	}
	if err := s.Insert([]seen.Key{}); err != nil {
		t.Fatalf("Insert(empty): %v", err)
	}
	wantLen(t, s, 0)
	// The zero key, and keys with a zero half.
	checkContains(t, s, m, []seen.Key{zero, key(1, 0), key(0, 1)})
	checkInsert(t, s, m, []seen.Key{zero, zero})
	checkContains(t, s, m, []seen.Key{zero, key(1, 0), key(0, 1), zero})
	mustAdd(t, s, zero, false)
	checkInsert(t, s, m, []seen.Key{key(0, 1), zero, key(1, 0)})
	checkContains(t, s, m, []seen.Key{key(1, 0), zero, key(0, 1), key(1, 1)})
	// A short has: ErrShortBatch, has untouched, nothing recorded.
	has := []bool{true, false}
	err := s.Contains([]seen.Key{key(2, 2), key(3, 3), zero}, has)
	if !errors.Is(err, seen.ErrShortBatch) {
		t.Fatalf("Contains with short has: err = %v, want ErrShortBatch", err)
	}
	if !has[0] || has[1] {
		t.Fatalf("Contains with short has wrote has: %v", has)
	}
	wantLen(t, s, len(m))
	mustAdd(t, s, key(2, 2), m.add(key(2, 2)))
	wantLen(t, s, len(m))
}

// testInsertIdempotent: inserting keys that are recorded already, by
// Insert or Add, in whole or in part, changes nothing, and Len counts each
// distinct key once.
func testInsertIdempotent(t *testing.T, s seen.Set) {
	r := rand.New(rand.NewPCG(15, 16))
	m := model{}
	base := make([]seen.Key, 2000)
	for i := range base {
		base[i] = randKey(r)
	}
	// Every key three times, shuffled.
	var keys []seen.Key
	for range 3 {
		keys = append(keys, base...)
	}
	r.Shuffle(len(keys), func(a, b int) { keys[a], keys[b] = keys[b], keys[a] })
	checkInsert(t, s, m, keys[:len(keys)/2])
	checkInsert(t, s, m, keys) // a retry of a longer batch
	if len(m) != len(base) {
		t.Fatalf("model holds %d keys, want %d", len(m), len(base))
	}
	checkInsert(t, s, m, base[100:300])
	// Keys added one by one, then inserted among new ones.
	extra := []seen.Key{randKey(r), randKey(r), randKey(r)}
	for _, k := range extra {
		mustAdd(t, s, k, m.add(k))
	}
	mixed := append([]seen.Key{randKey(r)}, extra...)
	mixed = append(mixed, base[:10]...)
	mixed = append(mixed, randKey(r))
	checkInsert(t, s, m, mixed)
	// Inserted keys are not new to Add or AddBatch.
	for _, k := range mixed {
		mustAdd(t, s, k, false)
	}
	checkBatch(t, s, m, keys[:1000])
	checkContains(t, s, m, mixed)
}

func testClosed(t *testing.T, s seen.Set) {
	mustAdd(t, s, key(9, 9), true)
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := s.Add(key(9, 9)); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Add after Close: err = %v, want ErrClosed", err)
	}
	if _, err := s.Add(key(10, 10)); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Add of a new key after Close: err = %v, want ErrClosed", err)
	}
	if err := s.AddBatch([]seen.Key{key(9, 9), key(11, 11)}, make([]bool, 2)); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("AddBatch after Close: err = %v, want ErrClosed", err)
	}
	if err := s.Contains([]seen.Key{key(9, 9), key(11, 11)}, make([]bool, 2)); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Contains after Close: err = %v, want ErrClosed", err)
	}
	if err := s.Insert([]seen.Key{key(9, 9), key(12, 12)}); !errors.Is(err, seen.ErrClosed) {
		t.Errorf("Insert after Close: err = %v, want ErrClosed", err)
	}
	_ = s.Len() // must not panic
	if err := s.Close(); err != nil && !errors.Is(err, seen.ErrClosed) {
		t.Errorf("second Close: err = %v, want nil or ErrClosed", err)
	}
}
