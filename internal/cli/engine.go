package cli

import (
	"errors"
	"io"
	"strconv"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/lineio"
)

// engineRun is a command's run on package lineio's engine
// (lineio.Command[sink] and lineio.Host): its workers, the handling of a
// line over the limit, and the env the chunks' sinks are committed to.
type engineRun struct {
	e         *env
	p         *pipeline
	newWorker func(*pipeline) func(*chunk)
	// newFn, for the line commands, handles a line the reader reads past
	// itself (one longer than the limit), with longFn and ls: the
	// reader's own.
	newFn  lineFactory
	longFn lineFn
	ls     recordScanner
}

// engineCommand is r with the hooks of r.e's command: its taker's
// endFile and decide (dedup), extract's longRun.
func (e *env) engineCommand(r *engineRun) lineio.Command[sink] {
	switch {
	case e.taker != nil && e.taker.decides():
		return decidingRun{endingRun{r}}
	case e.taker != nil:
		return endingRun{r}
	case e.longRun != nil:
		return skippingRun{r}
	}
	return r
}

func (r *engineRun) NewSink() sink { return sink{rep: &r.e.rep} }

func (r *engineRun) Worker(int) func(*chunk) { return r.newWorker(r.p) }

// Commit writes k, of input, in input order; it stops the run on an
// output error, a signal, --max-errors, or a command that stopped (dedup:
// a store error).
func (r *engineRun) Commit(k *sink, input int) bool {
	e := r.e
	e.fileIdx = input
	cut := e.rep.take(k)
	e.drainSink(k)
	return cut || e.werr != nil || e.stopped() || e.halt
}

// LongLine has the line function read a line over the limit from rd as
// the streaming loop reads it.
func (r *engineRun) LongLine(k *sink, name string, rd io.Reader, off int64, line int) bool {
	if r.longFn == nil {
		r.longFn = r.newFn()
		r.ls.ls.SetMaxLine(r.p.maxLine)
		r.ls.grammar = r.e.sc.grammar
	}
	s := &r.ls
	s.ls.Reset(rd)
	s.ls.StartAt(off, line)
	s.perr = nil
	ok := true
	if s.Scan() {
		r.longFn(k, name, s)
		if s.perr != nil {
			k.countInvalid()
		}
	}
	if err := s.Err(); err != nil {
		r.InputError(k, lineio.ReadErrorMsg(name, err), false)
		ok = false
	}
	s.ls.Reset(nil)
	return ok
}

func (r *engineRun) InputError(k *sink, msg string, halt bool) {
	k.ioError(msg)
	k.inputErr = true
	k.halt = k.halt || halt
}

func (r *engineRun) Note(k *sink, note string) { k.err = append(k.err, note...) }

// Progress, Idle, Wait and Stopped: lineio.Host.
func (r *engineRun) Progress(bytes, lines int64) { r.e.prog.add(bytes, lines) }

// Idle calls e.sc.beforeRead, as the streaming loop does before a read:
// the output is flushed (and dedup first decides its pending batch, which
// may fail and set e.halt).
func (r *engineRun) Idle() bool {
	if r.e.sc.beforeRead != nil {
		r.e.sc.beforeRead()
	}
	return r.e.halt
}

// Wait runs block with the output flushed and e.mu released (see
// env.interrupted).
func (r *engineRun) Wait(block func()) {
	r.e.flush()
	r.e.mu.Unlock()
	block()
	r.e.mu.Lock()
}

func (r *engineRun) Stopped() bool { return r.e.stopped() }

// endingRun is a run that tells the taker of each input's end.
type endingRun struct{ *engineRun }

func (r endingRun) EndInput(input int) bool {
	r.e.fileIdx = input
	r.e.taker.endFile()
	return r.e.halt
}

// decidingRun is dedup's run with its set in memory decided by the
// workers (recordTaker.decide).
type decidingRun struct{ endingRun }

func (r decidingRun) Decide(k *sink, input int) { r.e.taker.decide(k, input) }
func (r decidingRun) Undecided(k *sink) bool    { return r.e.undecided(k) }

// skippingRun is extract's run with --rejects: a run of URI bytes the
// reader skips is reported (env.longRun).
type skippingRun struct{ *engineRun }

func (r skippingRun) SkipRun(k *sink, name string, m uriscan.Match, lineStart int64, head []byte) {
	r.e.longRun(k, name, m, lineStart, head)
}

// fileSource is the command's inputs as the engine reads them: files
// opened (decompressed, verified) by env.openQuiet, from e.resumeAt
// (dedup's resume).
type fileSource struct {
	e     *env
	files []string
}

func (s fileSource) Len() int { return len(s.files) }

func (s fileSource) Open(i int) (lineio.Input, error) {
	e := s.e
	start := e.resumeAt()
	if i < start.File {
		return lineio.Input{}, lineio.ErrSkip
	}
	in, err := e.openQuiet(s.files[i])
	li := lineio.Input{Name: in.name, R: in.r, Note: in.note, Close: in.close}
	if in.note != "" {
		li.Skipped = int64(len(utf8BOM))
	}
	if err != nil {
		return li, errors.New(openErrorMsg(err))
	}
	if st := start; i == st.File && st.Offset > 0 {
		// A resume: read from its position, or stop, as the streaming
		// loop does.
		if err := in.skip(in.r, st.Offset); err != nil {
			return li, &lineio.Halt{Err: errors.New(in.name + ": resuming at offset " + strconv.FormatInt(st.Offset, 10) + ": " + err.Error())}
		}
		li.Offset, li.Line = st.Offset, st.Line
	}
	return li, nil
}

// openErrorMsg is an input's open error as a message: "NAME: why".
func openErrorMsg(err error) string {
	msg, _ := lineio.PathErrorMsg(err)
	return msg
}
