package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/uriscan/uriscan"
)

// --workers: the line-oriented commands (validate, split, normalize,
// resolve) and extract split their input into chunks of whole lines that
// workers handle in parallel; the main goroutine writes the chunks' output
// in input order, so the output is the same, byte for byte, whatever the
// number of workers. With one worker the line commands run the streaming
// loop (eachRecord) that dedup also uses, and the tests compare the two.
//
// Memory is bounded: at most inflight(workers) chunks exist, each of
// chunkSize bytes plus at most one line of --max-line bytes; a longer line
// is read past by a streaming LineScanner (as with one worker), never held.

// chunkSize is how many bytes of input a chunk holds (whole lines); a
// variable so that tests can cut inputs into many small chunks.
var chunkSize = 256 << 10

// chunkLines is the most lines a chunk holds, so that the output a chunk
// makes stays small whatever the input (a line's JSON is 150 bytes or
// more; a megabyte of blank lines would make 150 MB).
var chunkLines = 8192

func inflight(workers int) int { return 2*workers + 2 }

// sink is where a worker writes what one chunk gives: its output, its
// standard error, and what it means for the exit status.
type sink struct {
	out, err []byte
	invalid  bool // some line was invalid
	ioFail   bool // an input could not be read or a line not handled
	inputErr bool // err holds an input error (told to onInputError)
}

// reportLine appends "NAME:LINE: offset N: REASON" for s's current,
// invalid line to k's standard error.
func (k *sink) reportLine(name string, s *recordScanner) {
	k.err = appendReport(k.err, name, s)
}

// ioError appends an error message to k's standard error (exit 2).
func (k *sink) ioError(msg string) {
	k.ioFail = true
	k.err = append(k.err, "uriscan: "...)
	k.err = append(k.err, msg...)
	k.err = append(k.err, '\n')
}

// lineFn handles one line of input: its output goes to k.out, messages to
// k.err. A lineFactory makes one per goroutine (each holds its buffers).
type (
	lineFn      func(k *sink, name string, s *recordScanner)
	lineFactory func() lineFn
)

// addWorkersFlag defines --workers on fs.
func addWorkersFlag(fs *flag.FlagSet) *int {
	return fs.Int("workers", runtime.GOMAXPROCS(0), "how many `goroutines` handle the input (default: the number of CPUs); the output is the same, in input order, whatever the number")
}

// eachLine runs the line command that newFn makes over files with the
// given number of workers, and returns the exit status.
func (e *env) eachLine(files []string, workers int, newFn lineFactory) int {
	if workers <= 1 {
		fn := newFn()
		var k sink
		return e.eachRecord(files, func(name string, s *recordScanner) {
			fn(&k, name, s)
			e.drain(&k)
		})
	}
	maxLine := e.sc.ls.MaxLine()
	return e.parallel(files, workers, false, func() func(c *chunk) {
		fn := newFn()
		var s recordScanner
		s.ls.SetMaxLine(maxLine)
		return func(c *chunk) {
			s.ls.ResetBytes(c.data)
			s.ls.StartAt(c.off, c.line)
			s.perr = nil
			for s.Scan() {
				if s.perr != nil {
					c.k.invalid = true
				}
				fn(&c.k, c.name, &s)
			}
			s.ls.ResetBytes(nil)
		}
	}, newFn)
}

// drain writes what k holds to standard output and error, and empties it.
func (e *env) drain(k *sink) {
	if len(k.out) > 0 {
		e.out.Write(k.out)
		k.out = k.out[:0]
	}
	if len(k.err) > 0 {
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
}

// chunk is a piece of one input handed to a worker: whole lines (or, for
// extract, text cut after a byte no URI holds), and what the worker made
// of them.
type chunk struct {
	buf  []byte // owned, reused
	data []byte // the input handled: a prefix of buf
	name string // the input's name, for messages
	line int    // lines of the input before data
	off  int64  // input offset of data[0]
	k    sink
	done chan struct{} // closed when k is complete
}

// pipeline is one run of eachLine or extract with workers.
type pipeline struct {
	e       *env
	extract bool // cut chunks for extract (no line limit)
	maxLine int
	free    chan *chunk // chunks not in flight
	work    chan *chunk // to the workers
	order   chan *chunk // to the writer, in input order
	quit    chan struct{}
	// newFn, for the line commands, handles a line the reader reads past
	// itself (one longer than maxLine).
	newFn  lineFactory
	longFn lineFn
	ls     recordScanner // the reader's own, for lines over the limit
}

// parallel runs newWorker's chunk handlers on workers goroutines over
// files, the main goroutine writing their output in order; extract cuts
// chunks for extract. newFn is the line function (nil for extract).
func (e *env) parallel(files []string, workers int, extract bool, newWorker func() func(*chunk), newFn lineFactory) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	n := inflight(workers)
	p := &pipeline{
		e: e, extract: extract, maxLine: e.sc.ls.MaxLine(), newFn: newFn,
		free:  make(chan *chunk, n),
		work:  make(chan *chunk, n),
		order: make(chan *chunk, n),
		quit:  make(chan struct{}),
	}
	for range n {
		p.free <- &chunk{}
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			handle := newWorker()
			for c := range p.work {
				handle(c)
				close(c.done)
			}
		}()
	}
	go func() {
		p.readAll(files)
		close(p.work)
		close(p.order)
	}()
	quit := false
	for {
		c, ok := p.next()
		if !ok {
			break
		}
		if !quit {
			e.drainChunk(&c.k)
			if e.werr != nil || e.stopped() {
				quit = true
				close(p.quit)
			}
		}
		p.free <- c
	}
	wg.Wait()
	e.flush()
	if e.werr != nil {
		e.errw.WriteString("uriscan: writing output: " + e.werr.Error() + "\n")
	}
	return e.status()
}

// next returns the next chunk in input order once it is complete; false
// when there is none left. It flushes the output before it waits, so that
// "tail -f log | uriscan validate" reports as it goes, and releases e.mu
// while it waits (see env.interrupted).
func (p *pipeline) next() (*chunk, bool) {
	var c *chunk
	select {
	case c = <-p.order:
	default:
		p.e.flush()
		p.e.mu.Unlock()
		c = <-p.order
		p.e.mu.Lock()
	}
	if c == nil {
		return nil, false
	}
	select {
	case <-c.done:
	default:
		p.e.flush()
		p.e.mu.Unlock()
		<-c.done
		p.e.mu.Lock()
	}
	return c, true
}

// drainChunk writes a chunk's output and tells onInputError of an input
// error in it.
func (e *env) drainChunk(k *sink) {
	if k.inputErr && e.onInputError != nil {
		e.onInputError(string(bytes.TrimSuffix(bytes.TrimPrefix(k.err, []byte("uriscan: ")), []byte("\n"))))
	}
	e.drain(k)
}

// get returns a free chunk, emptied, or nil when the run is quitting.
func (p *pipeline) get() *chunk {
	select {
	case c := <-p.free:
		c.data, c.k.out, c.k.err = nil, c.k.out[:0], c.k.err[:0]
		c.k.invalid, c.k.ioFail, c.k.inputErr = false, false, false
		c.done = make(chan struct{})
		return c
	case <-p.quit:
		return nil
	}
}

// send hands c to a worker (and to the writer, in order).
func (p *pipeline) send(c *chunk) {
	p.order <- c
	p.work <- c
}

// sendDone hands c, already complete (its sink filled by the reader), to
// the writer.
func (p *pipeline) sendDone(c *chunk) {
	close(c.done)
	p.order <- c
}

func (p *pipeline) stopping() bool {
	select {
	case <-p.quit:
		return true
	default:
		return p.e.stopped()
	}
}

// readAll reads each input in turn and cuts it into chunks.
func (p *pipeline) readAll(files []string) {
	for _, file := range files {
		c := p.get()
		if c == nil || p.e.stopped() {
			return
		}
		in, err := p.e.openQuiet(file)
		c.name = in.name
		c.k.err = append(c.k.err, in.note...) // said before the input's lines
		if err != nil {
			c.k.ioError(err.Error())
			c.k.inputErr = true
			in.close()
			p.sendDone(c)
			continue
		}
		ok := p.read(c, in.r)
		if err := in.close(); err != nil && ok {
			if c := p.get(); c != nil {
				c.name = in.name
				c.k.ioError(in.name + ": " + err.Error())
				c.k.inputErr = true
				p.sendDone(c)
			}
		}
		if !ok {
			return
		}
	}
}

// read cuts one input into chunks, starting with c (which may hold a note
// for standard error already); false if the run is quitting.
func (p *pipeline) read(c *chunk, r io.Reader) bool {
	var (
		off   int64 // input offset of c.buf[0]
		line  int   // lines before c.buf[0]
		have  int   // bytes of c.buf read
		empty int   // reads in a row that gave nothing
		m     int
		err   error
		cut   int
	)
	c.buf = p.sized(c.buf, 0)
	target := chunkSize // bytes a chunk holds
	if p.extract {
		target = min(chunkSize, len(c.buf)/2)
	}
	for {
		if p.stopping() {
			return false
		}
		end := len(c.buf)
		if have < target {
			end = target // a chunk's worth; more only for a long line
		}
		if have == end {
			goto cut // a full buffer (left from the last cut): cut it first
		}
		m, err = r.Read(c.buf[have:end])
		have += m
		if m == 0 && err == nil {
			if empty++; empty >= 100 {
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		switch {
		case err == io.EOF:
			for bytes.Count(c.buf[:have], nl) > chunkLines {
				if c, have = p.sendCut(c, nthLineEnd(c.buf[:have], chunkLines), have, &off, &line); c == nil {
					return false
				}
			}
			c.data, c.off, c.line = c.buf[:have], off, line
			if have > 0 {
				p.send(c)
			} else {
				p.sendDone(c) // a note, or nothing
			}
			return true
		case err != nil:
			return p.readError(c, have, off, line, err)
		case m == 0:
			continue
		}
	cut:
		// Cut after the last line end (extract: failing that, after the
		// last byte no URI holds).
		cut = bytes.LastIndexByte(c.buf[:have], '\n') + 1
		if cut == 0 && have < len(c.buf) && (have < target || !p.extract) {
			continue // read on: the line is not complete
		}
		if cut == 0 && p.extract {
			if cut = lastNonURIByte(c.buf[:have]) + 1; cut == 0 && have < len(c.buf) {
				continue
			} else if cut == 0 {
				// A run of URI bytes longer than the buffer: keep its end
				// (as uriscan.ExtractScanner does).
				drop := have - uriscan.MaxExtractLength
				have = copy(c.buf, c.buf[drop:have])
				off += int64(drop)
				continue
			}
		}
		if cut == 0 && have <= p.maxLine+1 {
			// A line longer than the buffer, within the limit: grow it.
			nb := make([]byte, min(2*len(c.buf), p.maxLine+2+chunkSize))
			copy(nb, c.buf[:have])
			c.buf = nb
			continue
		}
		if cut == 0 {
			// A line over the limit: a streaming scanner reads past it.
			var ok bool
			if c, have, ok = p.longLine(c, have, r, off, line); !ok {
				return false
			}
			if have < 0 {
				return true // the input ended with the line
			}
			off, line = c.off, c.line
			continue
		}
		if c, have = p.sendCut(c, cut, have, &off, &line); c == nil {
			return false
		}
	}
}

// sized returns b, or a new buffer, of the length a chunk's buffer has:
// for extract exactly uriscan.DefaultBufferSize, so that a run of URI
// bytes too long for it is cut where uriscan.ExtractScanner cuts it; for
// the line commands twice chunkSize, or at least n (a buffer grown for a
// long line).
func (p *pipeline) sized(b []byte, n int) []byte {
	want := max(2*chunkSize, n)
	if p.extract {
		want = uriscan.DefaultBufferSize
	}
	if cap(b) < want {
		return make([]byte, want)
	}
	if p.extract {
		return b[:want]
	}
	return b[:cap(b)]
}

// sendCut sends c.buf[:cut] (at most chunkLines lines of it) to a worker
// and returns the next chunk, holding what c held after it; off and line
// move on past what was sent. It returns nil when quitting.
func (p *pipeline) sendCut(c *chunk, cut, have int, off *int64, line *int) (*chunk, int) {
	next := p.get()
	if next == nil {
		return nil, 0
	}
	next.buf = p.sized(next.buf, len(c.buf))
	lines := bytes.Count(c.buf[:cut], nl)
	if lines > chunkLines {
		cut, lines = nthLineEnd(c.buf[:cut], chunkLines), chunkLines
	}
	have = copy(next.buf, c.buf[cut:have])
	c.data, c.off, c.line = c.buf[:cut], *off, *line
	next.name = c.name
	*off += int64(cut)
	*line += lines
	p.send(c)
	return next, have
}

var nl = []byte{'\n'}

// nthLineEnd returns the offset just after the n-th '\n' of b, which has
// more than n.
func nthLineEnd(b []byte, n int) int {
	at := 0
	for range n {
		at += bytes.IndexByte(b[at:], '\n') + 1
	}
	return at
}

// readError ends an input that a read failed: the whole lines in
// c.buf[:have] go to a worker; a cut last line is reported as truncated
// (never taken), as with one worker. Extract takes all it read, then
// reports the error.
func (p *pipeline) readError(c *chunk, have int, off int64, line int, err error) bool {
	cut := have
	if !p.extract {
		cut = bytes.LastIndexByte(c.buf[:have], '\n') + 1
	}
	rest := append([]byte(nil), c.buf[cut:have]...)
	lines := bytes.Count(c.buf[:cut], nl)
	if cut > 0 || len(c.k.err) > 0 {
		c.data, c.off, c.line = c.buf[:cut], off, line
		name := c.name
		p.send(c)
		if c = p.get(); c == nil {
			return false
		}
		c.name = name
	}
	off += int64(cut)
	line += lines
	if p.extract {
		c.k.ioError(c.name + ": " + err.Error())
	} else {
		s := &recordScanner{}
		s.ls.SetMaxLine(p.maxLine)
		s.ls.Reset(io.MultiReader(bytes.NewReader(rest), errReader{err}))
		s.ls.StartAt(off, line)
		for s.Scan() {
			// Only a cut line is left, and it is not a record.
		}
		if err := s.Err(); err != nil {
			c.k.ioError(inputErrorMsg(c.name, err))
		}
	}
	c.k.inputErr = true
	p.sendDone(c)
	return true
}

// longLine hands a line over the limit, which starts at offset off (line
// number line+1) and of which c.buf[:have] holds the start, to a streaming
// LineScanner reading on from r: the scanner reads past it as with one
// worker. It returns the chunk to go on with, holding have bytes read
// after the line (-1 if the input ended with it) at offset c.off, line
// c.line; false when quitting.
func (p *pipeline) longLine(c *chunk, have int, r io.Reader, off int64, line int) (*chunk, int, bool) {
	if p.longFn == nil {
		p.longFn = p.newFn()
		p.ls.ls.SetMaxLine(p.maxLine)
	}
	nr := &untilNewline{r: r}
	s := &p.ls
	s.ls.Reset(io.MultiReader(bytes.NewReader(c.buf[:have]), nr))
	s.ls.StartAt(off, line)
	s.perr = nil
	ended := false
	if s.Scan() {
		if s.perr != nil {
			c.k.invalid = true
		}
		p.longFn(&c.k, c.name, s)
	}
	if err := s.Err(); err != nil {
		c.k.ioError(inputErrorMsg(c.name, err))
		c.k.inputErr = true
		ended = true
	}
	s.ls.Reset(nil)
	ended = ended || !nr.done
	// c carries the line's output; its buffer goes on with the next chunk.
	buf := c.buf
	c.buf, c.data = nil, nil
	name := c.name
	p.sendDone(c)
	next := p.get()
	if next == nil {
		return nil, 0, false
	}
	next.buf, next.name = p.sized(buf, len(nr.left)), name
	next.off, next.line = off+int64(have)+nr.n, line+1
	if ended {
		p.free <- next
		return next, -1, true
	}
	return next, copy(next.buf, nr.left), true
}

// inputErrorMsg words the read error that ended an input.
func inputErrorMsg(name string, err error) string {
	var te *uriscan.TruncatedError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s:%d: the last line (%d bytes, offset %d) was cut short by a read error, and is not taken: %v", name, te.Line, te.Len, te.Offset, te.Err)
	}
	return name + ": " + err.Error()
}

// errReader returns its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// untilNewline reads r up to and including the first '\n', then gives
// io.EOF; left holds what the read that found it gave after it, n the
// bytes it returned, and done whether it found one.
type untilNewline struct {
	r    io.Reader
	left []byte
	n    int64
	done bool
}

func (u *untilNewline) Read(p []byte) (int, error) {
	if u.done {
		return 0, io.EOF
	}
	n, err := u.r.Read(p)
	if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
		u.left = append(u.left[:0], p[i+1:n]...)
		u.done = true
		n, err = i+1, nil
	}
	u.n += int64(n)
	return n, err
}

// lastNonURIByte returns the index of the last byte of b that no URI
// holds (space, control, non-ASCII, and " < > \ ^ ` { | }), or -1.
func lastNonURIByte(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c <= ' ' || c >= 0x7f:
			return i
		case c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}':
			return i
		}
	}
	return -1
}
