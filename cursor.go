// Stage 2's input: the cursor over the masks stage 1 (classify*.go)
// writes, one window of blocks at a time.

package uriscan

import (
	"math/bits"
	"unsafe"
)

// winBlocks is how many blocks the cursor classifies per kernel call:
// 2 KiB, so a window of masks (1.3 KiB) and its input stay in L1, while
// the costs paid per window (the kernel call, the batch assembly's entry,
// the record cut at the window's end and classified again in the next)
// are spread over about 40 records of a URL list. 512 bytes made them
// about 10 instructions of a record's 190 on kasztp (callgrind).
const winBlocks = 32

// shortBlocks bounds the inputs that Parse and Extract's check walk with
// masks of shortBlocks+1 blocks instead of a window's: Go zeroes the masks
// it declares, and a window's would cost a short input more than its walk.
const shortBlocks = 8

// cursor yields, in increasing order, the offsets of the bytes the walk
// must look at: every invalid byte (which includes '\n') and, in full
// mode, every structural byte or, in tail mode, only the tail bytes
// (? # % [ ]) that matter in a path, query or fragment. It classifies the
// input lazily, one window at a time.
type cursor struct {
	src  string
	win  int    // offset of block m[0]
	base int    // offset of block m[blk]
	bits uint64 // events of block m[blk] not yet returned
	blk  int    // current block in m
	nblk int    // valid blocks in m
	next int    // first offset not yet classified
	selS uint64 // all ones in full mode
	selT uint64 // all ones in tail mode
	// m holds the window's masks, m[nblk] kept zero (for the fast paths,
	// which read the block after a record's). It is the caller's: at least
	// winBlocks+1 blocks, or one more than the whole input's blocks when
	// that is fewer (Parse's short inputs, which then zero less).
	m []blockMasks
	// eng is the kernel fill runs and the fast paths the walker's users
	// try (see engine); the caller sets it with m.
	eng engine
}

// init starts the cursor at start of src; the caller has set m.
func (c *cursor) init(src string, start int) {
	c.src = src
	c.next = start
	c.bits, c.blk, c.nblk = 0, 0, 0
	c.selS, c.selT = ^uint64(0), 0
}

// events selects the events of a block for the current mode.
func (c *cursor) events(m *blockMasks) uint64 {
	return m.invalid | m.structural&c.selS | m.tail&c.selT
}

// seek switches to full mode and positions the cursor so that the next pop
// returns the first event at or after pos, which must not be before the
// current block.
func (c *cursor) seek(pos int) {
	c.selS, c.selT = ^uint64(0), 0
	if c.nblk == 0 {
		return
	}
	rel := pos - c.win
	if rel >= c.nblk*blockSize { // past the window: popSlow fills the next
		c.blk = c.nblk - 1
		c.base = c.win + c.blk*blockSize
		c.bits = 0
		return
	}
	c.blk = rel / blockSize
	c.base = c.win + c.blk*blockSize
	k := uint(rel % blockSize)
	c.bits = c.events(&c.m[c.blk]) >> k << k
}

// popSlow moves to the next block that has events and pops its first
// one; it returns len(src), with no bits left, at the end of the input.
func (c *cursor) popSlow() int {
	for {
		if c.blk+1 < c.nblk {
			c.blk++
			c.base += blockSize
		} else {
			if c.next >= len(c.src) {
				c.bits = 0
				return len(c.src)
			}
			c.fill()
		}
		if b := c.events(&c.m[c.blk]); b != 0 {
			c.bits = b & (b - 1)
			return c.base + bits.TrailingZeros64(b)
		}
	}
}

// refillAt classifies a window starting at pos, which must not be past
// the input already classified (so windows may overlap). The walk
// positions itself with seek before it pops.
func (c *cursor) refillAt(pos int) {
	c.next = pos
	c.fill()
	c.bits = 0
}

// fill classifies the next window of input.
func (c *cursor) fill() {
	n := min(len(c.src)-c.next, winBlocks*blockSize)
	nb := (n + blockSize - 1) / blockSize
	classifyBlocks(c.m[:nb], unsafe.Slice(unsafe.StringData(c.src[c.next:]), n), c.eng.kernel)
	c.m[nb] = blockMasks{}
	c.adopt(nb, n)
}

// adopt makes m[:nb], the masks of the n bytes from next, the window, as
// fill does once it has classified them (Parse classifies short inputs
// itself).
func (c *cursor) adopt(nb, n int) {
	c.win, c.base, c.blk, c.nblk = c.next, c.next, 0, nb
	c.next += n
}
