package seen

import (
	"encoding/binary"
	"math/bits"
	"sync/atomic"
)

const (
	// minSlots is the smallest table: 64 slots, 1 KiB.
	minSlots = 64
	// maxSlots bounds a size hint: 2^40 slots would be 16 TiB.
	maxSlots = 1 << 40
	// migrateStep is how many old slots each Add moves while the table
	// grows. The old table must be empty before the new one reaches its
	// load limit, which takes 3/4 of the old table's slots in new keys:
	// any step of 2 or more is enough. 256 finishes early (after old/256
	// Adds) and bounds the work of one Add to 256 slot reads and as many
	// inserts, nearly in order (a key moves to its slot or the one a
	// table's length after it): a few microseconds. While migrating, an
	// Add looks a key up in both tables without fetching ahead (see
	// prefetch), so a short migration pays: 16 took 10% more of dedup's
	// cycles on 1 M new keys (250 against 275 ms with one worker, 264
	// against 302 with two).
	migrateStep = 256
)

// slot is one key, read little-endian as two words; {0, 0} is empty.
type slot struct{ lo, hi uint64 }

// Memory is an in-memory Set: an open-addressing hash table with linear
// probing over a power-of-two slice of 16-byte slots, grown incrementally
// (see the package documentation for the layout). Adding a key never
// allocates, except when the table doubles.
//
// Memory is not safe for concurrent use by multiple goroutines.
type Memory struct {
	tab   []slot // current table; len is a power of two
	mask  uint64 // len(tab) - 1
	limit int64  // grow when more than limit non-zero keys are stored

	old      []slot // previous table while migrating, else nil
	oldMask  uint64
	migrated uint64 // old slots below this index have been moved to tab

	tabMap, oldMap *tableMap // the tables' own mappings, if they are (see newTable)

	n       int64 // distinct keys, the zero key included
	hasZero bool
	closed  bool
}

var _ Set = (*Memory)(nil)

// NewMemory returns an empty Memory sized to hold sizeHint keys without
// growing (it still grows past that). A sizeHint <= 0 starts small. A
// table of 4 MiB or more (a sizeHint of 98,305 or more) is mapped and
// written through here, on Linux in huge pages (see newTable): NewMemory
// then takes about a millisecond per 8 MiB, which no Add pays later.
func NewMemory(sizeHint int) *Memory {
	m := &Memory{}
	m.makeTable(slotsFor(sizeHint), true)
	return m
}

// slotsFor returns the power-of-two table size that holds n keys at a load
// of at most 3/4.
func slotsFor(n int) uint64 {
	if n <= 0 {
		return minSlots
	}
	need := uint64(n) + (uint64(n)+2)/3 // ceil(n * 4/3)
	if need > maxSlots {
		need = maxSlots
	}
	s := uint64(1) << bits.Len64(need-1)
	if s < minSlots {
		s = minSlots
	}
	return s
}

// makeTable makes m's table: n slots, reserved by the caller (NewMemory's
// hint, Grow) or doubled as keys come (see newTable). Each page of a
// reserved table, or of one of at most ownAll slots, is written here
// before any is read (see own); a larger doubled one is as it migrates
// (own), or as Adds fill it, so that no single Add pays for all of it.
func (m *Memory) makeTable(n uint64, reserve bool) {
	t, tm := newTable(n, reserve)
	if !raceDetector && (reserve || len(t) <= ownAll) {
		for i := 0; i < len(t); i += pageSlots {
			t[i] = slot{}
		}
	}
	m.tab, m.tabMap = t, tm
	m.mask = uint64(len(t) - 1)
	m.limit = int64(len(t) - len(t)/4)
}

// Add records k and reports whether it was not in the set before. It
// returns ErrClosed after Close and no other error.
func (m *Memory) Add(k Key) (bool, error) {
	if m.closed {
		return false, ErrClosed
	}
	return m.add(binary.LittleEndian.Uint64(k[0:8]), binary.LittleEndian.Uint64(k[8:16])), nil
}

// add is Add without the closed check.
func (m *Memory) add(lo, hi uint64) bool {
	if lo|hi == 0 {
		if m.hasZero {
			return false
		}
		m.hasZero = true
		m.n++
		return true
	}
	if m.old == nil {
		// Steady state: one table.
		t, mask := m.tab, m.mask
		for i := lo & mask; ; i = (i + 1) & mask {
			s := &t[i]
			if s.lo == lo && s.hi == hi {
				return false
			}
			if s.lo|s.hi == 0 {
				if m.nonZero() >= m.limit {
					// Full: grow, then insert into the new table.
					break
				}
				s.lo, s.hi = lo, hi
				m.n++
				return true
			}
		}
		m.grow()
	}
	return m.addMigrating(lo, hi)
}

// addMigrating adds a non-zero key while an old table may still hold keys:
// a key is present if either table has it, and new keys go to the new
// table. Each call moves migrateStep old slots.
func (m *Memory) addMigrating(lo, hi uint64) bool {
	if m.old != nil {
		// The old table is never written during migration, so its
		// probe sequences stay intact; keys already moved are found
		// here as well as in the new table, which is harmless.
		t, mask := m.old, m.oldMask
		for i := lo & mask; ; i = (i + 1) & mask {
			s := &t[i]
			if s.lo == lo && s.hi == hi {
				m.migrate(migrateStep)
				return false
			}
			if s.lo|s.hi == 0 {
				break
			}
		}
	}
	isNew := false
	t, mask := m.tab, m.mask
	own(&t[lo&mask])
	for i := lo & mask; ; i = (i + 1) & mask {
		s := &t[i]
		if s.lo == lo && s.hi == hi {
			break
		}
		if s.lo|s.hi == 0 {
			s.lo, s.hi = lo, hi
			m.n++
			isNew = true
			break
		}
	}
	if m.old != nil {
		m.migrate(migrateStep)
	}
	if isNew && m.old == nil && m.nonZero() > m.limit {
		// Unreachable with migrateStep >= 2 (the old table empties
		// first), kept so the load limit holds whatever the step.
		m.grow()
	}
	return isNew
}

func (m *Memory) nonZero() int64 {
	if m.hasZero {
		return m.n - 1
	}
	return m.n
}

// ownAll is the largest table whose pages are all written when it is made
// (at most 4,096 pages: a few milliseconds), pageSlots the slots of a
// page of 4 KiB.
const (
	ownAll    = 1 << 20
	pageSlots = 4096 / 16
)

// own writes slot s of the new table before it is read (an atomic add of
// 0: its value stays), while the table grows: the first access to a page
// of a fresh table is then a write, which the kernel maps at once. A page
// read first maps the shared zero page, and the write that follows copies
// it, which in a process running on several CPUs also flushes the other
// CPUs' TLBs (an interrupt to each): uriscan dedup --workers 2 spent 40%
// of its cycles in those flushes while its set grew, against none with
// own. Not under the race detector, which keeps a record for each address
// an atomic operation touches: a table of millions of slots made single
// Adds take 200 ms there.
func own(s *slot) {
	if !raceDetector {
		atomic.AddUint64(&s.lo, 0)
	}
}

// grow starts migrating into a table twice the size, first finishing any
// migration still running.
func (m *Memory) grow() {
	if m.old != nil {
		m.migrate(uint64(len(m.old)))
	}
	if uint64(len(m.tab)) >= maxSlots {
		panic("seen: Memory table cannot grow past 2^40 slots")
	}
	m.old, m.oldMask, m.migrated, m.oldMap = m.tab, m.mask, 0, m.tabMap
	m.makeTable(2*uint64(len(m.tab)), false)
}

// Grow makes room for n more keys: after it, n Adds of new keys do not
// grow the table (a table large enough already is kept). A caller that
// knows about how many keys are coming (the lines of a file, an estimate
// from its first part) saves the doublings on the way, each of which
// moves every key and maps fresh pages: dedup of 1 M new keys ran 1.3x
// faster from a table sized for them. The keys move to the new table
// while Adds go on, as in a doubling; the new table is made as
// NewMemory's (mapped and written through: about a millisecond per 8 MiB,
// paid here). It panics if n is negative; a table past what memory
// holds fails as make does.
func (m *Memory) Grow(n int) {
	if n < 0 {
		panic("seen: Memory.Grow: negative count")
	}
	if m.closed {
		return
	}
	need := slotsFor(int(min(m.nonZero()+min(int64(n), maxSlots), maxSlots)))
	if need <= uint64(len(m.tab)) {
		return
	}
	if m.old != nil {
		m.migrate(uint64(len(m.old)))
	}
	if m.nonZero() == 0 {
		// Nothing to move: the new table replaces the old at once.
		freeTable(m.tabMap)
	} else {
		m.old, m.oldMask, m.migrated, m.oldMap = m.tab, m.mask, 0, m.tabMap
	}
	m.makeTable(need, true)
}

// migrate moves up to step old slots, in index order, to the new table,
// and drops the old table after its last slot. A moved key is inserted
// without a membership check: Add never puts a key that is in the old
// table into the new one, and each old slot moves once.
func (m *Memory) migrate(step uint64) {
	old := m.old
	end := m.migrated + step
	if end > uint64(len(old)) {
		end = uint64(len(old))
	}
	t, mask := m.tab, m.mask
	for j := m.migrated; j < end; j++ {
		s := old[j]
		if s.lo|s.hi == 0 {
			continue
		}
		i := s.lo & mask
		own(&t[i])
		for t[i].lo|t[i].hi != 0 {
			i = (i + 1) & mask
		}
		t[i] = s
	}
	m.migrated = end
	if end == uint64(len(old)) {
		freeTable(m.oldMap)
		m.old, m.oldMask, m.migrated, m.oldMap = nil, 0, 0, nil
	}
}

// batchAhead is how many keys AddBatch and Contains fetch the slots of
// at once, a batch ahead of the keys they add or look up.
const batchAhead = 32

// AddBatch records keys in order and sets isNew[i] as Add(keys[i]) would.
// It returns ErrClosed after Close, ErrShortBatch if len(isNew) <
// len(keys), and no other error.
//
// In steady state it fetches the home slots of the next keys while it
// adds the ones before (see prefetch): on a table larger than the caches
// this is faster than a loop of Add.
func (m *Memory) AddBatch(keys []Key, isNew []bool) error {
	if m.closed {
		return ErrClosed
	}
	if len(isNew) < len(keys) {
		return ErrShortBatch
	}
	m.addBatch(keys, isNew[:len(keys)])
	return nil
}

// Insert records keys, as AddBatch does without answering. It returns
// ErrClosed after Close and no other error.
func (m *Memory) Insert(keys []Key) error {
	if m.closed {
		return ErrClosed
	}
	m.addBatch(keys, nil)
	return nil
}

// addBatch is AddBatch (isNew of len(keys)) and Insert (isNew nil).
func (m *Memory) addBatch(keys []Key, isNew []bool) {
	m.prefetch(keys)
	for len(keys) > 0 {
		n := min(len(keys), batchAhead)
		chunk := keys[:n]
		m.prefetch(keys[n:min(len(keys), 2*n)])
		for i := range chunk {
			k := &chunk[i]
			v := m.add(binary.LittleEndian.Uint64(k[0:8]), binary.LittleEndian.Uint64(k[8:16]))
			if isNew != nil {
				isNew[i] = v
			}
		}
		keys = keys[n:]
		if isNew != nil {
			isNew = isNew[n:]
		}
	}
}

// prefetch fetches the home slots of the first batchAhead keys in steady
// state (a no-op while migrating), so that their cache misses overlap
// with each other and with the adds or look-ups of the keys before them:
// on a table larger than the caches, adds waited for the slot's line 68%
// of their time when the keys of a batch were read just before adding
// them.
func (m *Memory) prefetch(keys []Key) {
	if m.old == nil && len(keys) > 0 {
		prefetchSlots(m.tab, m.mask, keys[:min(len(keys), batchAhead)])
	}
}

// prefetchSink keeps prefetchSlotsGo's loads.
var prefetchSink atomic.Uint64

// prefetchSlotsGo reads the home slot of each key in t, as prefetchSlots
// does where there is no assembly: loads, which the processor overlaps
// until its reorder buffer fills.
func prefetchSlotsGo(t []slot, mask uint64, keys []Key) {
	var sum uint64
	for i := range keys {
		sum += t[binary.LittleEndian.Uint64(keys[i][0:8])&mask].hi
	}
	if sum == 1 {
		prefetchSink.Add(sum) // (never, as far as the compiler knows)
	}
}

// Contains sets has[i] to whether keys[i] is in the set, changing
// nothing (the table does not migrate either). It returns ErrClosed after
// Close, ErrShortBatch if len(has) < len(keys), and no other error. Like
// AddBatch, it fetches the home slots of the next keys while it looks up
// the ones before.
func (m *Memory) Contains(keys []Key, has []bool) error {
	if m.closed {
		return ErrClosed
	}
	if len(has) < len(keys) {
		return ErrShortBatch
	}
	m.prefetch(keys)
	for len(keys) > 0 {
		n := min(len(keys), batchAhead)
		chunk := keys[:n]
		m.prefetch(keys[n:min(len(keys), 2*n)])
		for i := range chunk {
			k := &chunk[i]
			has[i] = m.lookup(binary.LittleEndian.Uint64(k[0:8]), binary.LittleEndian.Uint64(k[8:16]))
		}
		keys, has = keys[n:], has[n:]
	}
	return nil
}

// lookup reports whether the key (lo, hi) is in the set, without writing
// anything. While migrating, a key is in the new table (added since the
// growth, or moved already) or in the old one (not moved yet, or moved:
// the old table is never written, so its probe sequences stay intact and
// a moved key is found in either).
func (m *Memory) lookup(lo, hi uint64) bool {
	if lo|hi == 0 {
		return m.hasZero
	}
	if probe(m.tab, m.mask, lo, hi) {
		return true
	}
	return m.old != nil && probe(m.old, m.oldMask, lo, hi)
}

// probe reports whether the non-zero key (lo, hi) is in table t.
func probe(t []slot, mask, lo, hi uint64) bool {
	for i := lo & mask; ; i = (i + 1) & mask {
		s := &t[i]
		if s.lo == lo && s.hi == hi {
			return true
		}
		if s.lo|s.hi == 0 {
			return false
		}
	}
}

// Len returns the number of distinct keys recorded; after Close, the
// number recorded before it.
func (m *Memory) Len() int64 { return m.n }

// Close releases the tables. Add, AddBatch, Contains and Insert then
// return ErrClosed.
// Closing a closed Memory returns nil.
func (m *Memory) Close() error {
	m.closed = true
	freeTable(m.tabMap)
	freeTable(m.oldMap)
	m.tab, m.old, m.tabMap, m.oldMap = nil, nil, nil, nil
	m.mask, m.oldMask, m.migrated, m.limit = 0, 0, 0, 0
	return nil
}
