package lineio

// handOver gives the output c holds to the writer once it is pieceSize or
// more, and goes on in the chunk's spare buffers, or in the ones the
// writer gives back, waiting for them while it writes them. A chunk has at
// most two sets of buffers, and while the pieces waiting for the writer
// hold more than heldMax bytes a worker waits for its own to be written:
// so the memory is bounded whatever the output, with at most a line's
// output (and a piece) per worker waiting, not one per chunk in flight.
func (p *pipe[S, P]) handOver(c *Chunk[S]) {
	n := P(&c.K).Size()
	if n < p.pieceSize {
		return
	}
	held := p.held.Add(int64(n))
	select {
	case c.pieces <- c.K:
		c.lent++
		c.handed = true
	case <-p.quit: // nobody writes it any more
		P(&c.K).Reset()
		return
	}
	if c.lent == 1 && held <= p.heldMax() {
		c.K, c.spare = c.spare, p.cmd.NewSink()
	} else {
		c.K = p.takeBack(c)
		for c.lent > 0 && p.held.Load() > p.heldMax() {
			c.spare = p.takeBack(c)
		}
	}
	switch {
	case cap(*P(&c.K).Out()) >= p.pieceSize:
	case cap(*P(&c.spare).Out()) >= p.pieceSize:
		// (The buffer came back empty: a long line's, kept for the next
		// one; see keepBig.)
		c.K, c.spare = c.spare, c.K
	default:
		*P(&c.K).Out() = make([]byte, 0, p.keepMax()) // a piece's room (see get)
	}
	P(&c.K).Reset()
}

// takeBack waits for a set of c's buffers that the writer has written
// (none, if the run is quitting).
func (p *pipe[S, P]) takeBack(c *Chunk[S]) S {
	c.lent--
	select {
	case k := <-c.back:
		return k
	case <-p.quit:
		return p.cmd.NewSink()
	}
}

// next returns the next chunk in input order; false when there is none
// left, or when the Host's Idle stops the run (p.halted). Before it waits
// for the reader (which waits for input, or is behind) it calls Idle, as
// the streaming loop flushes before a read: "tail -f log | uriscan
// validate" reports as it goes (and dedup first decides its pending
// batch).
func (p *pipe[S, P]) next() (*Chunk[S], bool) {
	var c *Chunk[S]
	select {
	case c = <-p.order:
	default:
		if p.host.Idle() {
			p.halted = true
			return nil, false
		}
		p.host.Wait(func() { c = <-p.order })
	}
	return c, c != nil
}

// write commits c's output, its pieces as they come and then the rest
// once c is complete; with quit set (the run stopped) it only waits for c.
func (p *pipe[S, P]) write(c *Chunk[S], quit *bool) {
	if c.turn != nil {
		close(c.turn)
	}
	for {
		var k S
		got, done := false, false
		select {
		case k = <-c.pieces:
			got = true
		case <-c.done:
			done = true
		default:
			p.host.Wait(func() {
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
			p.commit(&c.K, c.Input, quit)
			if c.seq >= 0 && (c.handed || c.byWriter) {
				p.decidedByWriter(c) // (decided in commit)
			}
			if c.end && !*quit && p.end.EndInput(c.Input) {
				p.stop(quit)
			}
			out := P(&c.K).Out()
			*out = p.keepBig(*out)
			// The worker is done with c: its buffers come home.
			for ; c.lent > 0; c.lent-- {
				select {
				case k := <-c.back:
					if cap(*P(&c.spare).Out()) == 0 {
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

// writePiece commits a piece of c's output, counts it written (see
// handOver), and gives its buffers back to c's worker, less one grown past
// keepMax; a worker that quit no longer takes them, and they are dropped.
func (p *pipe[S, P]) writePiece(c *Chunk[S], k *S, quit *bool) {
	n := P(k).Size()
	p.commit(k, c.Input, quit)
	p.held.Add(-int64(n))
	out := P(k).Out()
	*out = p.keepBig(*out)
	P(k).Trim(p.keepMax())
	select {
	case c.back <- *k:
	default:
	}
}

// keepBig returns b, written, unless it grew past keepMax: then it is kept
// for the next big chunk, if it is larger than the one kept (see
// useBig), and nil is returned.
func (p *pipe[S, P]) keepBig(b []byte) []byte {
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
func (p *pipe[S, P]) useBig(c *Chunk[S]) {
	select {
	case b := <-p.bigOut:
		out := P(&c.K).Out()
		if cap(b) > cap(*out) {
			if spare := P(&c.spare).Out(); cap(*spare) == 0 && c.lent == 0 {
				*spare = (*out)[:0] // the room, for after the line
			}
			*out = append(b, *out...) // (empty, or a note)
			return
		}
		select {
		case p.bigOut <- b:
		default:
		}
	default:
	}
}

// commit gives k (of input) to the Command unless quitting, decided first
// if it is Undecided (a piece, or a chunk no worker took: every sink
// before it is decided), and quits when the Command says so.
func (p *pipe[S, P]) commit(k *S, input int, quit *bool) {
	if *quit {
		return
	}
	if p.dec != nil && p.dec.Undecided(k) {
		p.dec.Decide(k, input)
		p.byWriter.Add(1)
	}
	if p.cmd.Commit(k, input) {
		p.stop(quit)
	}
}

// stop makes the run quit: the workers and the reader stop, and what is
// left is not written.
func (p *pipe[S, P]) stop(quit *bool) {
	*quit = true
	close(p.quit)
	p.stopDecisions()
}
