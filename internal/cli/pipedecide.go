package cli

import "sync"

// decisions puts the chunks' decisions (env.decide) in input order, one
// at a time, without a worker waiting for another: a worker done with a
// chunk whose turn has not come leaves it (ready) and takes the next
// chunk, and whoever decides the chunk before goes on with it. So the
// workers decide in turn while the others key their chunks, and the
// writer, which feeds the Log, does not decide (but a piece's sinks).
type decisions struct {
	mu      sync.Mutex
	next    int64            // the seq of the chunk to decide next
	ready   map[int64]*chunk // done by their workers, waiting for their turn
	busy    bool             // a goroutine is deciding ready chunks
	stopped bool             // the run quits: nothing is decided any more
}

// chain gives c, about to be sent, its place in the decisions' order
// (see chunk.seq).
func (p *pipeline) chain(c *chunk) {
	if p.e.decide != nil {
		c.seq = p.seq
		p.seq++
	}
}

// decideChunk, in c's worker once it is done with c, closes c.done, the
// records of c decided first if the run decides (env.decide): at once if
// it is c's turn (see decisions), and then the ready chunks that follow,
// else later, by whoever decides the chunk before c. A chunk that handed
// a piece over is left to the writer (see write), which decides that
// piece first.
func (p *pipeline) decideChunk(c *chunk) {
	d := &p.dec
	if c.seq < 0 || c.handed {
		close(c.done)
		return
	}
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		close(c.done)
		return
	}
	if d.busy || c.seq != d.next {
		if d.ready == nil {
			d.ready = map[int64]*chunk{}
		}
		d.ready[c.seq] = c
		d.mu.Unlock()
		return
	}
	d.busy = true
	d.mu.Unlock()
	p.decideFrom(c, false)
}

// decidedByWriter tells the decisions that the writer decided c's sinks
// (a chunk that handed a piece over, or one no worker took): the writer
// then decides the ready chunks that follow.
func (p *pipeline) decidedByWriter(c *chunk) {
	d := &p.dec
	d.mu.Lock()
	d.next = c.seq + 1
	next := d.ready[d.next]
	if next == nil || d.stopped || d.busy {
		d.mu.Unlock()
		return
	}
	delete(d.ready, d.next)
	d.busy = true
	d.mu.Unlock()
	p.decideFrom(next, true)
}

// decideFrom decides c, whose turn it is (d.busy set by the caller), and
// the ready chunks after it while there are, closing each one's done
// (and telling the tuning's decided hook, byWriter). The turn moves on
// before done is closed: the writer, which waits for done, may be the one
// to decide the chunk after (decidedByWriter), and must find the turn its
// own.
func (p *pipeline) decideFrom(c *chunk, byWriter bool) {
	d := &p.dec
	for c != nil {
		p.e.decide(&c.k, c.input)
		if hook := p.e.tune.decided; hook != nil {
			hook(byWriter)
		}
		d.mu.Lock()
		d.next = c.seq + 1
		next := d.ready[d.next]
		if next != nil && !d.stopped {
			delete(d.ready, d.next)
		} else {
			next = nil
			d.busy = false
		}
		d.mu.Unlock()
		close(c.done)
		c = next
	}
}

// stopDecisions, as the run quits, completes the chunks waiting for
// their turn, undecided: the writer may wait for one (see write).
func (p *pipeline) stopDecisions() {
	d := &p.dec
	d.mu.Lock()
	d.stopped = true
	for _, c := range d.ready {
		close(c.done)
	}
	d.ready = nil
	d.mu.Unlock()
}

func (p *pipeline) stopping() bool {
	select {
	case <-p.quit:
		return true
	default:
		return p.e.stopped()
	}
}
