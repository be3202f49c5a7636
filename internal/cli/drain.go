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

// drainChunk writes what the streaming loop's sink holds, its records
// decided first if they are to be (see undecided).
func (e *env) drainChunk(k *sink) {
	if e.undecided(k) {
		e.taker.decide(k, e.fileIdx)
	}
	e.drainSink(k)
}

// undecided reports whether k's records are to be decided (the taker's
// decide) before they are fed, and are not yet: every record before k's
// is.
func (e *env) undecided(k *sink) bool {
	return e.taker != nil && e.taker.decides() && !k.recs.decided && len(k.recs.keys) > 0
}

// drainSink writes a sink's output (gives its records to the taker, if
// any, and tells it of an input error in it).
func (e *env) drainSink(k *sink) {
	if e.taker != nil {
		e.taker.feed(k)
	}
	if k.inputErr && e.taker != nil {
		e.taker.inputFailed(string(bytes.TrimSuffix(bytes.TrimPrefix(k.err[k.ioAt:], []byte("uriscan: ")), []byte("\n"))))
	}
	e.drain(k)
}
