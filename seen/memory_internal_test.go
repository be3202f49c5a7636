package seen

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"
)

// mix is splitmix64's finalizer: a bijection, so distinct counters give
// distinct, uniformly spread keys.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// testKey returns the i-th key of a fixed sequence of distinct keys.
func testKey(i uint64) Key {
	var k Key
	binary.LittleEndian.PutUint64(k[0:8], mix(i))
	binary.LittleEndian.PutUint64(k[8:16], mix(^i))
	return k
}

// contains reports whether k is in m without adding it.
func (m *Memory) contains(k Key) bool {
	lo, hi := binary.LittleEndian.Uint64(k[0:8]), binary.LittleEndian.Uint64(k[8:16])
	if lo|hi == 0 {
		return m.hasZero
	}
	for _, tm := range []struct {
		t    []slot
		mask uint64
	}{{m.tab, m.mask}, {m.old, m.oldMask}} {
		if tm.t == nil {
			continue
		}
		for i := lo & tm.mask; ; i = (i + 1) & tm.mask {
			s := tm.t[i]
			if s.lo == lo && s.hi == hi {
				return true
			}
			if s.lo|s.hi == 0 {
				break
			}
		}
	}
	return false
}

// checkInvariants: the keys in the new table plus the old table's slots
// not yet moved are exactly the non-zero keys, without duplicates, and
// within the load limit.
func (m *Memory) checkInvariants(t *testing.T) {
	t.Helper()
	count := int64(0)
	for _, s := range m.tab {
		if s.lo|s.hi != 0 {
			count++
		}
	}
	if m.old != nil {
		for _, s := range m.old[m.migrated:] {
			if s.lo|s.hi != 0 {
				count++
				var k Key
				binary.LittleEndian.PutUint64(k[0:8], s.lo)
				binary.LittleEndian.PutUint64(k[8:16], s.hi)
				saved := m.old
				m.old = nil
				if m.contains(k) {
					t.Fatalf("key %x is both unmoved in the old table and in the new one", k)
				}
				m.old = saved
			}
		}
	}
	if count != m.nonZero() {
		t.Fatalf("tables hold %d keys, Len says %d non-zero", count, m.nonZero())
	}
	if m.nonZero() > m.limit || m.limit > int64(len(m.tab)) {
		t.Fatalf("%d keys over the limit %d of %d slots", m.nonZero(), m.limit, len(m.tab))
	}
}

func TestMemoryGrowth(t *testing.T) {
	m := NewMemory(0)
	const n = 20_000
	growths, oldSlots, addsSinceGrowth := 0, 0, 0
	for i := range uint64(n) {
		k := testKey(i)
		slots := len(m.tab)
		if isNew, _ := m.Add(k); !isNew {
			t.Fatalf("key %d not new", i)
		}
		if len(m.tab) != slots {
			// (A table of migrateStep slots or fewer has moved already.)
			growths++
			oldSlots, addsSinceGrowth = slots, 0
		}
		if m.old != nil {
			addsSinceGrowth++
			// The old table must be gone after len/migrateStep Adds.
			if addsSinceGrowth > oldSlots/migrateStep {
				t.Fatalf("still migrating %d Adds after growing from %d slots", addsSinceGrowth, oldSlots)
			}
		}
		if i%97 == 0 || m.old != nil && i%7 == 0 {
			m.checkInvariants(t)
			for j := uint64(0); j <= i; j += 1 + i/50 {
				if !m.contains(testKey(j)) {
					t.Fatalf("after %d keys, key %d is missing", i+1, j)
				}
				if isNew, _ := m.Add(testKey(j)); isNew {
					t.Fatalf("after %d keys, key %d is new again", i+1, j)
				}
			}
		}
	}
	m.checkInvariants(t)
	if want := 9; growths != want { // 64 slots to 32768
		t.Errorf("grew %d times, want %d", growths, want)
	}
	if len(m.tab) != 32768 || m.Len() != n {
		t.Errorf("%d slots, Len %d", len(m.tab), m.Len())
	}
}

func TestMemoryPreSized(t *testing.T) {
	for _, c := range []struct{ hint, slots int }{
		{-1, 64}, {0, 64}, {1, 64}, {48, 64}, {49, 128}, {96, 128}, {97, 256},
		{10_000_000, 1 << 24}, {12_582_912, 1 << 24}, {12_582_913, 1 << 25},
	} {
		if got := slotsFor(c.hint); got != uint64(c.slots) {
			t.Errorf("slotsFor(%d) = %d, want %d", c.hint, got, c.slots)
		}
	}
	for _, hint := range []int{1, 48, 49, 1000, 12345} {
		m := NewMemory(hint)
		slots := len(m.tab)
		for i := range uint64(hint) {
			m.Add(testKey(i))
		}
		if len(m.tab) != slots || m.old != nil {
			t.Errorf("NewMemory(%d) grew from %d to %d slots", hint, slots, len(m.tab))
		}
	}
}

func TestMemoryNoAllocs(t *testing.T) {
	m := NewMemory(100_000)
	i := uint64(0)
	if a := testing.AllocsPerRun(50_000, func() { m.Add(testKey(i)); i++ }); a != 0 {
		t.Errorf("Add of new keys: %v allocations per call", a)
	}
	j := uint64(0)
	if a := testing.AllocsPerRun(50_000, func() { m.Add(testKey(j)); j++ }); a != 0 {
		t.Errorf("Add of seen keys: %v allocations per call", a)
	}
	keys := make([]Key, 100)
	isNew := make([]bool, 100)
	if a := testing.AllocsPerRun(100, func() {
		for n := range keys {
			keys[n] = testKey(i)
			i++
		}
		m.AddBatch(keys, isNew)
	}); a != 0 {
		t.Errorf("AddBatch: %v allocations per call", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		for n := range keys {
			keys[n] = testKey(i)
			i++
		}
		m.Insert(keys)
	}); a != 0 {
		t.Errorf("Insert: %v allocations per call", a)
	}
	has := make([]bool, 100)
	if a := testing.AllocsPerRun(100, func() {
		for n := range keys {
			keys[n] = testKey(i - uint64(n%2)*50) // half present, half not
			i++
		}
		m.Contains(keys, has)
	}); a != 0 {
		t.Errorf("Contains: %v allocations per call", a)
	}
}

// TestMemoryContainsMigrating checks Contains while the table migrates,
// after every Add: it finds every key added so far (those not moved yet
// are only in the old table, those added since the growth only in the new
// one, those moved in both), finds none of as many absent keys, and moves
// nothing (Contains is read-only).
func TestMemoryContainsMigrating(t *testing.T) {
	const n = 6000
	m := NewMemory(0)
	var keys []Key
	has := make([]bool, 2*n)
	checks, onlyOld := 0, 0
	for i := range uint64(n) {
		m.Add(testKey(i))
		if m.old == nil {
			continue
		}
		// Is some key not moved yet (in the old table only)?
		for _, s := range m.old[m.migrated:] {
			if s.lo|s.hi != 0 {
				onlyOld++
				break
			}
		}
		keys = keys[:0]
		for j := range i + 1 {
			keys = append(keys, testKey(j), testKey(n+j))
		}
		migrated, slots := m.migrated, len(m.tab)
		if err := m.Contains(keys, has); err != nil {
			t.Fatal(err)
		}
		if m.migrated != migrated || len(m.tab) != slots || m.old == nil {
			t.Fatalf("after %d keys: Contains moved slots (migrated %d to %d)", i+1, migrated, m.migrated)
		}
		for j, k := range keys {
			if want := j%2 == 0; has[j] != want {
				t.Fatalf("after %d keys, while migrating from %d slots (%d moved): Contains(key %d = %x) = %v, want %v",
					i+1, len(m.old), m.migrated, j/2, k, has[j], want)
			}
		}
		checks++
	}
	if checks == 0 || onlyOld == 0 {
		t.Fatalf("Contains checked %d times while migrating, %d of them with unmoved keys: the test grows too little", checks, onlyOld)
	}
	t.Logf("%d checks while migrating", checks)
}

func heapAlloc() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestMemoryBytesPerKey measures the heap a Memory holds at 10 million
// keys, grown from empty (a set pre-sized for 10 million has the same
// 2^24 slots, see TestMemoryPreSized), and the peak while the last
// growth migrates.
func TestMemoryBytesPerKey(t *testing.T) {
	if testing.Short() {
		t.Skip("adds 10 million keys")
	}
	const n = 10_000_000
	before := heapAlloc()
	m := NewMemory(0)
	var peak uint64
	var peakKeys int64
	for i := range uint64(n) {
		migrating := m.old != nil
		m.Add(testKey(i))
		if m.old != nil && !migrating && m.Len() > n/2 {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			peak, peakKeys = ms.HeapAlloc-before, m.Len()
		}
	}
	after := heapAlloc()
	perKey := float64(after-before) / n
	t.Logf("%d keys: %d slots, heap %.1f MB, %.2f bytes per key", m.Len(), len(m.tab), float64(after-before)/1e6, perKey)
	t.Logf("peak while migrating, at %d keys: heap %.1f MB, %.2f bytes per key", peakKeys, float64(peak)/1e6, float64(peak)/float64(peakKeys))
	if perKey > 32 {
		t.Errorf("%.2f bytes per key, want at most 32", perKey)
	}
	runtime.KeepAlive(m)
}

// TestMemoryAddIncremental: growing is incremental, so no Add does work in
// proportion to the set. While a Memory grows from empty to 5 million keys
// (500 thousand with -short), every Add is checked against the state it
// found: an Add that doubles the table finds no migration left to finish
// (it would otherwise move the rest of the old table at once), and it
// starts one from exactly the table that was full; an Add during a
// migration moves at most migrateStep of the old table's slots. How long
// the Adds take is BenchmarkMemoryAddLatency's (a test asserts no time:
// the scheduler alone can stall an Add for milliseconds on a busy machine).
func TestMemoryAddIncremental(t *testing.T) {
	n := 5_000_000
	if testing.Short() {
		n = 500_000
	}
	m := NewMemory(0)
	var grew, migrating int
	for i := range n {
		tab, old, migrated := len(m.tab), m.old, m.migrated
		oldLen := len(old)
		m.Add(testKey(uint64(i)))
		switch {
		case len(m.tab) != tab:
			grew++
			if old != nil {
				t.Fatalf("Add %d doubled the table (%d to %d slots) with %d old slots left to move", i, tab, len(m.tab), oldLen-int(migrated))
			}
			// The first step of the migration may have moved a small old
			// table whole.
			if m.old == nil && tab > migrateStep || m.old != nil && (len(m.old) != tab || m.migrated > migrateStep) {
				t.Fatalf("Add %d doubled the table: old table %d slots, %d moved; want the full table of %d, at most %d moved", i, len(m.old), m.migrated, tab, migrateStep)
			}
		case old != nil:
			migrating++
			moved := int(m.migrated) - int(migrated)
			if m.old == nil {
				moved = oldLen - int(migrated)
			}
			if moved < 0 || moved > migrateStep {
				t.Fatalf("Add %d moved %d old slots, want at most %d", i, moved, migrateStep)
			}
		}
	}
	m.checkInvariants(t)
	if m.Len() != int64(n) {
		t.Fatalf("Len %d, want %d", m.Len(), n)
	}
	// Every doubling from the first table's size, and Adds during each
	// migration: otherwise the checks above checked nothing.
	if want := bitsLen(slotsFor(n)) - bitsLen(uint64(len(NewMemory(0).tab))); grew < want || migrating == 0 {
		t.Fatalf("%d doublings and %d Adds while migrating, want %d doublings and some Adds", grew, migrating, want)
	}
	t.Logf("%d Adds to %d slots: %d doublings, %d Adds while migrating", n, len(m.tab), grew, migrating)
}

// bitsLen is the number of bits in x, for counting doublings.
func bitsLen(x uint64) int {
	n := 0
	for ; x != 0; x >>= 1 {
		n++
	}
	return n
}

// BenchmarkMemoryAddLatency grows a Memory from empty to a million keys
// per op and reports, besides the mean, the worst single Add (wall time)
// and the worst bounded by the thread's CPU time over the 256 Adds
// around it (Linux), which leaves out the time the core was taken away:
// what a caller that needs short stalls reads. Pin it (taskset -c 1)
// for figures worth comparing.
func BenchmarkMemoryAddLatency(b *testing.B) {
	const n = 1_000_000
	var worstWall, worstBounded time.Duration
	b.ReportAllocs()
	for b.Loop() {
		w, bd := measureAddLatency(n)
		worstWall, worstBounded = max(worstWall, w), max(worstBounded, bd)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/add")
	b.ReportMetric(float64(worstWall.Microseconds()), "worst-µs")
	if _, ok := threadCPU(); ok {
		b.ReportMetric(float64(worstBounded.Microseconds()), "worst-cpu-µs")
	}
}

// measureAddLatency grows a Memory to n keys and returns the worst Add in
// wall time, and the worst bounded by the thread's CPU time over its
// group of Adds where available (else the wall time).
func measureAddLatency(n int) (worstWall, worstBounded time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const group = 256
	m := NewMemory(0)
	defer m.Close()
	cpu0, haveCPU := threadCPU()
	last := time.Now()
	for g := 0; g < n; g += group {
		var groupWorst time.Duration
		for i := g; i < min(g+group, n); i++ {
			m.Add(testKey(uint64(i)))
			now := time.Now()
			d := now.Sub(last)
			last = now
			worstWall = max(worstWall, d)
			groupWorst = max(groupWorst, d)
		}
		bounded := groupWorst
		if haveCPU {
			cpu1, _ := threadCPU()
			bounded = min(bounded, time.Duration(cpu1-cpu0))
			cpu0 = cpu1
			last = time.Now() // the clock read is not part of an Add
		}
		worstBounded = max(worstBounded, bounded)
	}
	return worstWall, worstBounded
}

// TestMemoryGrow: Grow(n) makes room for n more keys (n Adds of new keys
// then leave the table as Grow made it), from empty, from a full table,
// in the middle of a migration and past a table large enough to be mapped
// on its own (4 MiB, see newTable); the keys stay (invariants, every key
// found, none twice) through the migration it starts; a Grow the table
// already has room for changes nothing; it panics on a negative count and
// does nothing after Close.
func TestMemoryGrow(t *testing.T) {
	for _, c := range []struct {
		name        string
		before, add int
	}{
		{"empty", 0, 1000},
		{"empty, mapped", 0, 300_000},
		{"full", 48, 5000},
		{"migrating", 100, 3000}, // 100 keys: the table grew at 97 and migrates
		{"large, mapped", 200_000, 400_000},
		{"room already", 10, 20},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := NewMemory(0)
			for i := range uint64(c.before) {
				m.Add(testKey(i))
			}
			slotsBefore := len(m.tab)
			m.Grow(c.add)
			slots := len(m.tab)
			if c.name == "room already" && slots != slotsBefore {
				t.Fatalf("Grow(%d) with room for it: %d slots to %d", c.add, slotsBefore, slots)
			}
			if uint64(slots) < slotsFor(c.before+c.add) {
				t.Fatalf("Grow(%d) after %d keys: %d slots, want at least %d", c.add, c.before, slots, slotsFor(c.before+c.add))
			}
			if tableBytes := slots * 16; tableBytes >= 4<<20 && runtime.GOOS == "linux" && !raceDetector && m.tabMap == nil {
				t.Errorf("a table of %d bytes made by Grow is the heap's, want it mapped", tableBytes)
			}
			for i := range uint64(c.before + c.add) {
				isNew, _ := m.Add(testKey(i))
				if isNew != (i >= uint64(c.before)) {
					t.Fatalf("Add(key %d) = %v after Grow, want %v", i, isNew, i >= uint64(c.before))
				}
			}
			if len(m.tab) != slots {
				t.Fatalf("Grow(%d): the table grew again, from %d to %d slots", c.add, slots, len(m.tab))
			}
			m.checkInvariants(t)
			if m.Len() != int64(c.before+c.add) {
				t.Fatalf("Len %d, want %d", m.Len(), c.before+c.add)
			}
			addr, size := uintptr(unsafe.Pointer(&m.tab[0])), uintptr(len(m.tab))*16
			mappedTable := m.tabMap != nil
			m.Close()
			if m.tab != nil || m.tabMap != nil {
				t.Fatal("Close kept the table")
			}
			if mappedTable && isMapped(t, addr, size) {
				t.Fatalf("Close left the table mapped at %#x", addr)
			}
			m.Grow(10) // nothing after Close
			if m.tab != nil {
				t.Fatal("Grow after Close made a table")
			}
		})
	}
	defer func() {
		if recover() == nil {
			t.Error("Grow(-1) did not panic")
		}
	}()
	NewMemory(0).Grow(-1)
}

// TestMemoryMappedFreed: a reserved table mapped on its own (NewMemory's
// large hint) is unmapped when the migration of a growth ends and at
// Close; the keys moved from it stay.
func TestMemoryMappedFreed(t *testing.T) {
	m := NewMemory(300_000)
	linux := runtime.GOOS == "linux" && !raceDetector
	if linux && m.tabMap == nil {
		t.Fatalf("NewMemory(300000): a table of %d bytes is the heap's, want it mapped", len(m.tab)*16)
	}
	addr, size := uintptr(unsafe.Pointer(&m.tab[0])), uintptr(len(m.tab))*16
	if linux && !isMapped(t, addr, size) {
		t.Fatalf("the table at %#x is not in /proc/self/maps", addr)
	}
	n := uint64(m.limit) + uint64(len(m.tab))/migrateStep + 100 // the table doubles and migrates
	for i := range n {
		m.Add(testKey(i))
	}
	if m.old != nil || m.oldMap != nil {
		t.Fatalf("after %d Adds the migration has not ended", n)
	}
	if linux && isMapped(t, addr, size) {
		t.Fatalf("the table migrated from is still mapped at %#x", addr)
	}
	m.checkInvariants(t)
	for i := range n {
		if !m.contains(testKey(i)) {
			t.Fatalf("key %d lost in the migration from a mapped table", i)
		}
	}
	m.Close()
}

// TestMemoryMappedDropped: a Memory dropped without Close has its mapped
// table unmapped once it is collected (the tableMap's cleanup), as a heap
// table would be freed: /proc/self/maps no longer lists it.
func TestMemoryMappedDropped(t *testing.T) {
	if runtime.GOOS != "linux" || raceDetector {
		t.Skip("tables are mapped on their own on Linux, without the race detector")
	}
	mapped := func(addr, size uintptr) bool { return isMapped(t, addr, size) }
	addr, size := dropMapped(t)
	if !mapped(addr, size) {
		t.Fatalf("the table at %#x is not in /proc/self/maps", addr)
	}
	for i := 0; i < 50 && mapped(addr, size); i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if mapped(addr, size) {
		t.Fatalf("the table of a dropped Memory is still mapped at %#x", addr)
	}
}

// dropMapped makes a Memory with a mapped table, adds to it, and drops
// it; it returns where its table was.
//
//go:noinline
func dropMapped(t *testing.T) (addr, size uintptr) {
	m := NewMemory(300_000)
	if m.tabMap == nil {
		t.Fatal("NewMemory(300000): the table is the heap's, want it mapped")
	}
	m.Add(testKey(1))
	return uintptr(unsafe.Pointer(&m.tab[0])), uintptr(len(m.tab)) * 16
}

// isMapped reports whether /proc/self/maps lists a mapping of exactly
// [addr, addr+size) (the kernel may merge a neighbour into a mapping, or
// reuse its addresses after the unmap: a table is found while it is
// mapped, if not merged; the tables tested here are not).
func isMapped(t *testing.T, addr, size uintptr) bool {
	t.Helper()
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var lo, hi uintptr
		if _, err := fmt.Sscanf(line, "%x-%x", &lo, &hi); err == nil && lo == addr && hi == addr+size {
			return true
		}
	}
	return false
}
