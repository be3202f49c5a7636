package keylog

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/uriscan/uriscan/seen"
)

// index maps every key of the log to its position, in memory: an open
// addressing table (linear probing) of 8-byte slots, each a 32-bit
// fingerprint of a key above the key's
// position in the log (its unit number, never 0). A key's home slot comes
// from the top bits of its first half, its fingerprint from the low bits
// of both halves, so the two are independent: a key
// whose fingerprint no slot of its run holds is absent without reading
// the log, and a fingerprint that matches is confirmed against the key in
// the log (a false match: about one new key in 2^32 per slot probed).
//
// # Growth
//
// The table holds at most three quarters of its slots. When a call would
// pass that, the set makes a new table, twice as large as the keys (half
// full once they are all in it), and the old one stays beside it while its
// keys move: each later call that adds keys first moves four times as many
// (at least 65,536), record by record from the log, in order. Until the
// last has moved, a key not found in the new table is looked up in the
// old one, and new keys go to the new one only. So no call stops for the
// whole set (a rebuild of 10^8 keys takes seconds), and the move ends long
// before the new table is three quarters full.
type index struct {
	slots []uint64
	n     int    // keys held
	sink  uint64 // where the loads that only start a cache miss go
}

const (
	// maxLoad is the share of slots the table fills before it grows,
	// as loadNum/loadDen; grown tables start at half full.
	loadNum, loadDen = 3, 4
	// minSlots is the size of an empty set's table.
	minSlots = 1 << 12
)

// split returns k's home hash and fingerprint. Keys are uniform hashes,
// but the home mixes both halves all the same, so that keys alike in
// their first half (a crafted log) do not share a home.
func split(k *seen.Key) (home uint64, fp uint32) {
	lo, hi := binary.LittleEndian.Uint64(k[0:8]), binary.LittleEndian.Uint64(k[8:16])
	return lo ^ hi*0x9e3779b97f4a7c15, uint32(hi) ^ uint32(hi>>32) ^ uint32(lo)
}

// slotsFor is the table size for n keys: twice n, at least minSlots.
func slotsFor(n int64) int {
	return int(max(2*n, minSlots))
}

// reset empties the table and gives it size slots.
func (x *index) reset(size int) {
	x.slots = nil // (the old table may go before the new one is made)
	x.slots = make([]uint64, size)
	x.n = 0
}

// home is the slot where a key with home hash h starts probing.
func (x *index) home(h uint64) int {
	hi, _ := bits.Mul64(h, uint64(len(x.slots)))
	return int(hi)
}

// insertRecord puts the keys of a record (their bytes), known to be
// absent, at positions pos, pos+1, ...: a group at a time, whose home
// slots are loaded first so that their cache misses overlap. With the
// log (data), it checks that they are absent: a key already in the
// index is an error wrapping ErrDamaged (a log this set did not write).
func (x *index) insertRecord(pos uint32, keys []byte, data []byte) error {
	s := x.slots
	var homes [group]int
	var fps [group]uint32
	var sink uint64
	for g := 0; g < len(keys); g += group * unit {
		ks := keys[g:min(g+group*unit, len(keys))]
		m := len(ks) / unit
		for j := range m {
			h, fp := split((*seen.Key)(ks[j*unit:]))
			homes[j], fps[j] = x.home(h), fp
			sink += s[homes[j]]
		}
		for j := range m {
			i := homes[j]
			for v := s[i]; v != 0; v = s[i] {
				if data != nil && uint32(v>>32) == fps[j] &&
					string(data[int64(uint32(v))*int64(unit):][:unit]) == string(ks[j*unit:][:unit]) {
					return fmt.Errorf("%w: the key at byte %d of %s repeats the one at byte %d", ErrDamaged,
						int64(pos)*int64(unit), logName, int64(uint32(v))*int64(unit))
				}
				if i++; i == len(s) {
					i = 0
				}
			}
			s[i] = uint64(fps[j])<<32 | uint64(pos)
			pos++
		}
		x.n += m
	}
	x.sink += sink
	return nil
}
