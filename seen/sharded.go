package seen

import (
	"encoding/binary"
	"sync"
)

// Sharded is a Set in memory, as Memory, spread over several Memory
// shards by key bits: AddBatch, Contains and Insert split a batch by
// shard and decide the shards at once, one goroutine each, so that a
// large batch takes several cores (a key's answers depend on its shard
// alone, and each shard sees its keys in order). Like Memory it is gone
// after the process, and not safe for concurrent use: one call at a time.
type Sharded struct {
	shards []*Memory
	parts  []shardPart // each call's scratch, one per shard
	closed bool
}

var _ Set = (*Sharded)(nil)

// shardPart is one shard's part of a batch: its keys, their answers, and
// where they are in the batch.
type shardPart struct {
	keys []Key
	ans  []bool
	at   []int32
}

// shardedMin is the fewest keys of a batch that are split over the
// shards' goroutines: a smaller one is decided shard by shard on the
// caller's.
const shardedMin = 256

// NewSharded returns an empty Sharded of n shards (at least 1) sized to
// hold sizeHint keys in all without growing.
func NewSharded(n, sizeHint int) *Sharded {
	n = max(n, 1)
	s := &Sharded{shards: make([]*Memory, n), parts: make([]shardPart, n)}
	for i := range s.shards {
		s.shards[i] = NewMemory(sizeHint / n)
	}
	return s
}

// shard returns the shard of k: from the key's high bits (a Memory finds
// a key's slot from its low bits), spread over the shards uniformly.
func (s *Sharded) shard(k *Key) int {
	return int(uint64(binary.LittleEndian.Uint32(k[12:16])) * uint64(len(s.shards)) >> 32)
}

// Add records k and reports whether it was not in the set before. It
// returns ErrClosed after Close and no other error.
func (s *Sharded) Add(k Key) (bool, error) {
	if s.closed {
		return false, ErrClosed
	}
	return s.shards[s.shard(&k)].Add(k)
}

// AddBatch records keys and sets isNew[i] as Add(keys[i]) in order would.
// It returns ErrClosed after Close, ErrShortBatch if len(isNew) <
// len(keys), and no other error.
func (s *Sharded) AddBatch(keys []Key, isNew []bool) error {
	if len(isNew) < len(keys) {
		return ErrShortBatch
	}
	return s.each(keys, isNew, (*Memory).AddBatch)
}

// Contains sets has[i] to whether keys[i] is in the set, changing
// nothing. It returns ErrClosed after Close, ErrShortBatch if len(has) <
// len(keys), and no other error.
func (s *Sharded) Contains(keys []Key, has []bool) error {
	if len(has) < len(keys) {
		return ErrShortBatch
	}
	return s.each(keys, has, (*Memory).Contains)
}

// Insert records keys, as AddBatch does without answering. It returns
// ErrClosed after Close and no other error.
func (s *Sharded) Insert(keys []Key) error {
	return s.each(keys, nil, func(m *Memory, keys []Key, _ []bool) error { return m.Insert(keys) })
}

// each runs op on each shard with its part of keys, the shards at once
// for a large batch, and scatters their answers into ans (if not nil).
func (s *Sharded) each(keys []Key, ans []bool, op func(m *Memory, keys []Key, ans []bool) error) error {
	if s.closed {
		return ErrClosed
	}
	if len(s.shards) == 1 {
		return op(s.shards[0], keys, ans)
	}
	for i := range s.parts {
		p := &s.parts[i]
		p.keys, p.at = p.keys[:0], p.at[:0]
	}
	for i := range keys {
		p := &s.parts[s.shard(&keys[i])]
		p.keys = append(p.keys, keys[i])
		p.at = append(p.at, int32(i))
	}
	run := func(i int) {
		p := &s.parts[i]
		if cap(p.ans) < len(p.keys) {
			p.ans = make([]bool, len(p.keys))
		}
		p.ans = p.ans[:len(p.keys)]
		op(s.shards[i], p.keys, p.ans) // (ErrClosed alone, checked above)
	}
	if len(keys) < shardedMin {
		for i := range s.parts {
			run(i)
		}
	} else {
		var wg sync.WaitGroup
		for i := 1; i < len(s.parts); i++ {
			wg.Go(func() { run(i) })
		}
		run(0)
		wg.Wait()
	}
	if ans != nil {
		for i := range s.parts {
			p := &s.parts[i]
			for j, at := range p.at {
				ans[at] = p.ans[j]
			}
		}
	}
	return nil
}

// Grow makes room for n more keys in all, as Memory.Grow does: each
// shard for its part, with room for a shard's share to run above the
// mean (keys spread over the shards binomially). It panics if n is
// negative.
func (s *Sharded) Grow(n int) {
	if n < 0 {
		panic("seen: Sharded.Grow: negative count")
	}
	per := n / len(s.shards)
	per += per / 32
	for _, m := range s.shards {
		m.Grow(per)
	}
}

// Len returns the number of distinct keys recorded; after Close, the
// number recorded before it.
func (s *Sharded) Len() int64 {
	var n int64
	for _, m := range s.shards {
		n += m.Len()
	}
	return n
}

// Close releases the shards. Add, AddBatch, Contains and Insert then
// return ErrClosed. Closing a closed Sharded returns nil.
func (s *Sharded) Close() error {
	s.closed = true
	for _, m := range s.shards {
		m.Close()
	}
	s.parts = nil
	return nil
}
