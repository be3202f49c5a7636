package cli

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/seen"
)

// feed gives the Log the records keyers made of lines (k.recs), in input
// order (the lines of input e.fileIdx), and writes their reports, but for
// the lines the Log replays (the last batch of the run before, reported
// then). The Log decides, writes and commits them a batch at a time. k
// is left with what follows the last line on standard error (an input
// error), for drain. A Log error stops the run (e.halt) at the line: what
// follows is neither taken nor said, as the streaming loop stops.
func (d *deduper) feed(k *sink) {
	r := &k.recs
	rec, text, said := int32(0), 0, int32(0) // the next record, its text's start, k.err written
	for i := range r.lines {
		ln := &r.lines[i]
		if ln.errTo > said {
			if d.log.Replaying() {
				d.e.errw.Write(k.err[said:ln.errFrom]) // (a note on the input)
			} else {
				d.e.errw.Write(k.err[said:ln.errTo])
			}
			said = ln.errTo
		}
		if ln.count != 0 {
			d.log.Count(countNames[ln.count])
		}
		for ; rec < ln.recs; rec++ {
			if r.decided {
				d.log.AddDecided(r.keys[rec], k.out[text:r.ends[rec]], r.isNew[rec])
			} else {
				d.log.Add(r.keys[rec], k.out[text:r.ends[rec]])
			}
			d.text += r.ends[rec] - text
			text = r.ends[rec]
		}
		if d.log.EndLineSum(ln.sum, frontier.Position{Input: d.e.fileIdx, Offset: ln.off, Line: ln.line}) != nil {
			d.e.halt = true
			said = int32(len(k.err))
			k.ioFail, k.inputErr = false, false
			break
		}
		if d.log.Pending() == 0 {
			d.text = 0 // decided (a full batch)
		}
	}
	k.err = k.err[:copy(k.err, k.err[said:])]
	k.ioAt = max(0, k.ioAt-int(said))
	k.out = k.out[:0]
	if d.memory && !d.decided && len(r.lines) > 0 && d.set.Len() >= d.growAt { // (with workers: decide)
		d.growSet(d.e.fileIdx, r.lines[len(r.lines)-1].off)
	}
	r.reset()
	if d.text > dedupTextMax {
		d.commit()
	}
	if d.memory && d.e.memBase > 0 && d.setLen() > d.limitAt {
		// The set in memory grew: so does the memory limit.
		n := d.setLen()
		d.limitAt = n + n/8
		d.e.limitMemory()
	}
}

// decide decides the records of k, of input file, in the set in memory
// (recordTaker.decide): in a worker, or in the goroutine that feeds the Log, one
// at a time in input order (see lineio.Decider), so the set is never used by
// two at once.
func (d *deduper) decide(k *sink, file int) {
	d.setMu.Lock()
	defer d.setMu.Unlock()
	if d.setClosed {
		return // (a signal's finish: the records stay undecided, unwritten)
	}
	r := &k.recs
	r.isNew = slices.Grow(r.isNew[:0], len(r.keys))[:len(r.keys)]
	if d.set.AddBatch(r.keys, r.isNew) != nil {
		return // (closed: undecided, the Log refuses the records)
	}
	r.decided = true
	n := d.set.Len()
	d.decidedLen.Store(n)
	if n >= d.growAt && len(r.lines) > 0 {
		d.growSet(file, r.lines[len(r.lines)-1].off)
	}
}

// setLen is the number of keys in the set in memory, as its last decision
// left it where the workers decide (recordTaker.decide): the goroutine that feeds
// the Log does not read the set then.
func (d *deduper) setLen() int64 {
	if d.decided {
		return d.decidedLen.Load()
	}
	return d.set.Len()
}

// growFirst is the size of a set in memory at which dedup first sizes it
// for the rest of the input (growSet); growMax times its keys, or
// growFloor keys (a table of 32 MiB), is the most it grows it to at once.
const (
	growFirst = 1 << 14
	growMax   = 8
	growFloor = 1 << 20
)

// growSet sizes the set in memory for the keys the rest of the input will
// likely bring, from the new keys so far per byte of input read (input
// file, offset off): a set of n keys after a fraction p of the inputs'
// bytes is grown to hold n/p (seen.Memory.Grow), so that a run of new
// keys does not pay for the set's doublings on the way (see docs/dedup.md's
// figures). The estimate is of the files' sizes: a compressed file,
// larger read than stored, gives a lower one; standard input and other
// streams, none. If the new keys come early and duplicates later, the
// set holds room it does not use: at most growMax times its keys, or
// growFloor keys.
func (d *deduper) growSet(file int, off int64) {
	n := d.set.Len()
	d.growAt = 2 * n // when to look again
	g, ok := d.set.(interface{ Grow(int) })
	if !ok {
		return
	}
	if d.sizes == nil {
		d.sizes = make([]int64, len(d.inputs))
		for i, name := range d.inputs {
			d.sizes[i] = -1
			if fi, err := os.Stat(name); name != "-" && err == nil && fi.Mode().IsRegular() {
				d.sizes[i] = fi.Size()
			}
		}
	}
	var read, total int64
	for i, sz := range d.sizes {
		if sz < 0 {
			return // a stream: its size is unknown
		}
		total += sz
		if i < file {
			read += sz
		}
	}
	read += off
	if file >= len(d.sizes) || read <= 0 || read >= total {
		return
	}
	est := int64(float64(n) * float64(total) / float64(read))
	target := min(est, max(growMax*n, growFloor))
	if target > n {
		g.Grow(int(target - n))
		d.growAt = max(d.growAt, target)
		if hook := d.e.tune.setGrown; hook != nil {
			hook()
		}
	}
}

// memBytesPerKey bounds the memory a seen-set in memory takes a key, its
// growth included (seen.Memory: 21 to 43 bytes a key, and the old table
// beside the new one while it grows).
const memBytesPerKey = 64

// dedupTextMax is how many bytes of text (new or not) a batch holds at
// most: memory stays bounded whatever the lines' length (one worker
// decides its batch before each read anyway, which bounds it likewise).
const dedupTextMax = 1 << 20

// commit decides the pending batch (before a read that may block, or
// when it holds dedupTextMax).
func (d *deduper) commit() {
	d.text = 0
	if d.log.Commit() != nil {
		d.e.halt = true
	}
}

// resumeAt, decides, inputFailed and memHeld: recordTaker (feed, decide
// and endFile too).
func (d *deduper) resumeAt() inputPos { return d.resume }
func (d *deduper) decides() bool      { return d.decided }

// inputFailed records, in the Log, an input that could not be read.
func (d *deduper) inputFailed(msg string) {
	d.log.InputError(msg)
	d.failed = true
}

// memHeld is the memory of a set in memory; -1 for a persistent store
// (Pebble's caches, a client's buffers).
func (d *deduper) memHeld() int64 {
	if !d.memory {
		return -1
	}
	return memBytesPerKey * d.setLen()
}

// endFile ends each input: a batch never spans two.
func (d *deduper) endFile() {
	d.text = 0 // (EndInput decides the batch)
	failed := d.failed
	d.failed = false
	var err error
	switch {
	case failed:
		// (Reported above: unreadable, or it failed --verify-input.)
		err = errors.New("it could not be read (see above)")
	case d.e.stopped() || d.e.halt:
		return // finish commits what was read
	case d.e.sc.Err() != nil:
		err = d.e.sc.Err()
	}
	if d.log.EndInput(d.e.fileIdx, err) != nil {
		d.e.halt = true
	}
}

// finish decides what was read, records the run done unless it stopped
// early, closes the output and the store, and prints the summary; once.
func (d *deduper) finish() {
	if d.finished {
		return
	}
	d.finished = true
	e := d.e
	if d.log.Err() == nil && !e.stopped() && !e.halt && e.werr == nil {
		d.log.Finish()
	} else {
		d.log.Commit() // (a signal, --max-errors: what was read is decided)
		d.log.Close()
	}
	// A signal's finish runs while the workers may decide (recordTaker.decide):
	// the set is closed once none does, and none does after.
	d.setMu.Lock()
	d.setClosed = true
	closeErr := d.set.Close()
	d.setMu.Unlock()
	if closeErr != nil && d.log.Err() == nil {
		d.closeErr = closeErr
	}
	c := d.log.Tally()
	blank, invalid, repaired := c.Other["blank"], c.Other["invalid"], c.Other["repaired"]
	var b []byte
	b = append(b, "uriscan: dedup: lines "...)
	b = strconv.AppendInt(b, c.Lines, 10)
	b = append(b, ", blank "...)
	b = strconv.AppendInt(b, blank, 10)
	b = append(b, ", invalid "...)
	b = strconv.AppendInt(b, invalid, 10)
	if repaired > 0 {
		b = append(b, ", repaired "...)
		b = strconv.AppendInt(b, repaired, 10)
	}
	outOfScope := c.Other["out_of_scope"]
	if d.kt.scope != nil {
		b = append(b, ", out of scope "...)
		b = strconv.AppendInt(b, outOfScope, 10)
	}
	if d.kt.x != nil {
		b = append(b, ", uris "...)
		b = strconv.AppendInt(b, c.Records, 10)
	}
	b = append(b, ", unique "...)
	b = strconv.AppendInt(b, c.Unique, 10)
	b = append(b, ", duplicates "...)
	b = strconv.AppendInt(b, c.Duplicates(), 10)
	if d.log.Resumed() {
		b = append(b, " (resumed from "...)
		b = append(b, d.ckptName...)
		b = append(b, ')')
	}
	if e.tty != nil && isTerminal(e.tty) {
		// On a terminal, the time and the rate; not in a log or a
		// pipe, where stderr stays the same from run to run.
		b = appendElapsed(b, time.Since(d.start), c.Lines)
	}
	b = append(b, '\n')
	sum := dedupSummary{Command: "dedup", Lines: c.Lines, Blank: blank, Invalid: invalid, Repaired: repaired, Unique: c.Unique, Duplicates: c.Duplicates(), Resumed: d.log.Resumed()}
	if d.kt.x != nil {
		sum.URIs = &c.Records
	}
	if d.kt.scope != nil {
		sum.OutOfScope = &outOfScope
	}
	e.finalLine = e.writeSummary(d.summaryFile, sum, string(b))
	err := d.log.Err()
	if err == nil && d.closeErr != nil {
		err = &frontier.Error{Step: "store", Err: d.closeErr}
	}
	if err != nil {
		at := d.log.Decided()
		name := d.inputName(at.Input)
		msg := fmt.Sprintf("dedup: %v\nuriscan: dedup: stopped: the input is decided up to %s:%d; %d lines read after it were not decided, and the rest of the input was not read",
			err, name, at.Line, d.log.Pending())
		switch {
		case errors.Is(err, seen.ErrLost):
			msg += "; " + lostAdvice(d.output, d.ckptName != "")
		case d.ckptName != "":
			msg += "; rerun with --resume (automatic with --output) to continue"
		}
		e.ioError(msg)
	}
}

// inputName names input i for messages.
func (d *deduper) inputName(i int) string {
	if i >= len(d.inputs) || d.inputs[i] == "-" {
		return stdinName
	}
	return d.inputs[i]
}

// appendElapsed appends the summary's "; 1.2s, 2.5 M lines/s" for lines
// taken in d.
func appendElapsed(b []byte, d time.Duration, lines int64) []byte {
	b = append(b, "; "...)
	b = append(b, d.Round(time.Millisecond).String()...)
	if s := d.Seconds(); s > 0 && lines > 0 {
		b = append(b, ", "...)
		b = appendSI(b, float64(lines)/s)
		if b[len(b)-1] != ' ' {
			b = append(b, ' ')
		}
		b = append(b, "lines/s"...)
	}
	return b
}
