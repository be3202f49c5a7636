package cli

import "bytes"

// drain writes what k holds to standard output and error, and empties it.
func (e *env) drain(k *sink) {
	switch {
	case len(k.out) >= writeBufSize/4 && e.werr == nil:
		// A chunk's worth: written as it is, not copied through out.
		e.flush()
		if e.werr == nil {
			if _, err := e.rawOut.Write(k.out); err != nil {
				e.werr = err
			}
		}
		k.out = k.out[:0]
	case len(k.out) > 0:
		e.out.Write(k.out)
		k.out = k.out[:0]
	}
	switch {
	case len(k.err) >= writeBufSize/4:
		e.errw.Flush()
		e.rawErr.Write(k.err) // a failure is kept (e.stderr: exit 2)
		k.err = k.err[:0]
	case len(k.err) > 0:
		e.errw.Write(k.err)
		k.err = k.err[:0]
	}
	if k.invalid {
		e.invalid = true
		k.invalid = false
	}
	if k.ioFail {
		e.ioFail = true
		k.ioFail = false
	}
	if k.halt {
		e.halt = true
		k.halt = false
	}
	e.counts.uris += k.uris
	e.counts.rejected += k.rejected
	k.nInvalid, k.marks, k.uris, k.rejected = 0, k.marks[:0], 0, 0
}

// handOver gives the output c holds to the writer once it is pieceSize or
// more, and goes on in the chunk's spare buffers, or in the ones the
// writer gives back, waiting for them while it writes them. A chunk has at
// most two sets of buffers, and while the pieces waiting for the writer
// hold more than heldMax bytes a worker waits for its own to be written:
// so the memory is bounded whatever the output, with at most a line's
// output (and a piece) per worker waiting, not one per chunk in flight.
func (p *pipeline) handOver(c *chunk) {
	n := c.k.size()
	if n < p.pieceSize {
		return
	}
	held := p.held.Add(int64(n))
	select {
	case c.pieces <- c.k:
		c.lent++
		c.handed = true
	case <-p.quit: // nobody writes it any more
		c.k.out, c.k.err = c.k.out[:0], c.k.err[:0]
		return
	}
	if c.lent == 1 && held <= p.heldMax() {
		c.k, c.spare = c.spare, sink{}
	} else {
		c.k = p.takeBack(c)
		for c.lent > 0 && p.held.Load() > p.heldMax() {
			c.spare = p.takeBack(c)
		}
	}
	switch {
	case cap(c.k.out) >= p.pieceSize:
	case cap(c.spare.out) >= p.pieceSize:
		// (The buffer came back empty: a long line's, kept for the next
		// one; see keepBig.)
		c.k, c.spare = c.spare, c.k
	default:
		c.k.out = make([]byte, 0, p.keepMax()) // a piece's room (see get)
	}
	c.k.reset(&p.e.rep)
}

// takeBack waits for a set of c's buffers that the writer has written
// (none, if the run is quitting).
func (p *pipeline) takeBack(c *chunk) sink {
	c.lent--
	select {
	case k := <-c.back:
		return k
	case <-p.quit:
		return sink{}
	}
}

// next returns the next chunk in input order; false when there is none
// left, or when e.halt is set. Before it waits for the reader (which
// waits for input, or is behind) it calls e.sc.beforeRead, as the
// streaming loop does before a read: the output is flushed, so that "tail
// -f log | uriscan validate" reports as it goes (and dedup first decides
// its pending batch, which may fail and set e.halt); it releases e.mu
// while it waits (see env.interrupted).
func (p *pipeline) next() (*chunk, bool) {
	var c *chunk
	select {
	case c = <-p.order:
	default:
		if p.e.sc.beforeRead != nil {
			p.e.sc.beforeRead()
		}
		if p.e.halt {
			return nil, false
		}
		p.wait(func() { c = <-p.order })
	}
	return c, c != nil
}

// wait runs block (which waits on a channel) with the output flushed and
// e.mu released.
func (p *pipeline) wait(block func()) {
	p.e.flush()
	p.e.mu.Unlock()
	block()
	p.e.mu.Lock()
}

// write writes c's output, its pieces as they come and then the rest once
// c is complete; with quit set (an output error or a signal stopped the
// run) it only waits for c.
func (p *pipeline) write(c *chunk, quit *bool) {
	if c.turn != nil {
		close(c.turn)
	}
	p.e.fileIdx = c.input
	for {
		var k sink
		got, done := false, false
		select {
		case k = <-c.pieces:
			got = true
		case <-c.done:
			done = true
		default:
			p.wait(func() {
				select {
				case k = <-c.pieces:
					got = true
				case <-c.done:
					done = true
				}
			})
		}
		if done {
			select {
			case k = <-c.pieces: // handed over just before the end
				p.writePiece(c, &k, quit)
			default:
			}
			p.drainPiece(&c.k, quit)
			if c.seq >= 0 && (c.handed || c.byWriter) {
				p.decidedByWriter(c) // (decided in drainChunk)
			}
			if c.end && !*quit {
				p.e.endFile()
				if p.e.halt {
					p.stop(quit)
				}
			}
			c.k.out = p.keepBig(c.k.out)
			// The worker is done with c: its buffers come home.
			for ; c.lent > 0; c.lent-- {
				select {
				case k := <-c.back:
					if cap(c.spare.out) == 0 {
						c.spare = k
					}
				default: // dropped by a worker that quit
				}
			}
			return
		}
		if got {
			p.writePiece(c, &k, quit)
		}
	}
}

// writePiece writes a piece of c's output, counts it written (see
// handOver), and gives its buffers back to c's worker, less one grown past
// keepMax; a worker that quit no longer takes them, and they are dropped.
func (p *pipeline) writePiece(c *chunk, k *sink, quit *bool) {
	n := k.size()
	p.drainPiece(k, quit)
	p.held.Add(-int64(n))
	k.out = p.keepBig(k.out)
	if cap(k.err) > p.keepMax() {
		k.err = nil
	}
	k.recs.trim(p.keepMax())
	select {
	case c.back <- *k:
	default:
	}
}

// keepBig returns b, written, unless it grew past keepMax: then it is kept
// for the next big chunk, if it is larger than the one kept (see
// useBig), and nil is returned.
func (p *pipeline) keepBig(b []byte) []byte {
	if cap(b) <= p.keepMax() {
		return b
	}
	select {
	case old := <-p.bigOut:
		if cap(old) > cap(b) {
			b = old
		}
	default:
	}
	select {
	case p.bigOut <- b[:0]:
	default: // (useBig put one back meanwhile)
	}
	return nil
}

// useBig gives c, a big chunk, the buffer kept for the output of big
// chunks, if it is larger than its own: the output of a long line is
// built without growing a buffer (and leaving the old ones as garbage)
// line after line.
func (p *pipeline) useBig(c *chunk) {
	select {
	case b := <-p.bigOut:
		if cap(b) > cap(c.k.out) {
			if cap(c.spare.out) == 0 && c.lent == 0 {
				c.spare.out = c.k.out[:0] // the room, for after the line
			}
			c.k.out = append(b, c.k.out...) // (empty, or a note)
			return
		}
		select {
		case p.bigOut <- b:
		default:
		}
	default:
	}
}

// drainPiece writes k unless quitting, and quits on an output error, a
// signal, or a command that stopped (dedup: a store error).
func (p *pipeline) drainPiece(k *sink, quit *bool) {
	if *quit {
		return
	}
	cut := p.e.rep.take(k)
	p.e.drainChunk(k)
	if cut || p.e.werr != nil || p.e.stopped() || p.e.halt {
		p.stop(quit)
	}
}

// stop makes the run quit: the workers and the reader stop, and what is
// left is not written.
func (p *pipeline) stop(quit *bool) {
	*quit = true
	close(p.quit)
	p.stopDecisions()
}

// drainChunk writes a chunk's output (gives its records to e.feed, if
// set) and tells onInputError of an input error in it.
func (e *env) drainChunk(k *sink) {
	if e.feed != nil {
		if e.decide != nil && !k.recs.decided && len(k.recs.keys) > 0 {
			// A piece, or a chunk no worker took (see chunk.seq):
			// every record before it is decided.
			e.decide(k, e.fileIdx)
			if hook := e.tune.decided; hook != nil {
				hook(true)
			}
		}
		e.feed(k)
	}
	if k.inputErr && e.onInputError != nil {
		e.onInputError(string(bytes.TrimSuffix(bytes.TrimPrefix(k.err[k.ioAt:], []byte("uriscan: ")), []byte("\n"))))
	}
	e.drain(k)
}
