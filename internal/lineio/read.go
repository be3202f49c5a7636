package lineio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/uriscan/uriscan"
)

// get returns a free chunk, emptied, or nil when the run is quitting.
func (p *pipe[S, P]) get() *Chunk[S] {
	select {
	case c := <-p.free:
		k := P(&c.K)
		k.Reset()
		c.Data, c.end = nil, false
		k.Trim(p.keepMax())
		if out := k.Out(); cap(*out) < p.pieceSize {
			// A piece's room, so that it does not grow by doubling.
			*out = make([]byte, 0, p.keepMax())
		}
		c.lb, c.prev, c.Before, c.turn = nil, nil, 0, nil
		c.seq, c.handed, c.byWriter = -1, false, false
		if cap(c.buf) > 2*p.chunkSize && !p.extract {
			// Grown for a long line: kept for the next, not by every chunk.
			p.spare(c.buf)
			c.buf = nil
		}
		c.done = make(chan struct{})
		return c
	case <-p.quit:
		return nil
	}
}

// send hands c, holding data from offset p.off, to a worker (and to the
// writer, in order), and moves the reader's position past it.
func (p *pipe[S, P]) send(c *Chunk[S], data []byte) {
	if !p.extract && len(data) >= p.bigChunk() {
		select {
		case p.bigs <- struct{}{}:
			c.turn = make(chan struct{})
		case <-p.quit:
		}
	}
	c.Data, c.Off, c.Input = data, p.off, p.input
	c.lb = &lineBase{done: make(chan struct{})}
	c.prev, c.first, c.firstStart = p.last, p.line, p.lineStart
	p.last = c.lb
	p.chain(c)
	p.advance(int64(len(data)))
	p.order <- c
	p.work <- c
}

// advance moves the reader's position on by n bytes of input, and counts
// them.
func (p *pipe[S, P]) advance(n int64) {
	p.off += n
	p.readBytes.Add(n)
	p.host.Progress(n, 0)
}

// skipRun tells the Skipper of a run of URI bytes longer than
// uriscan.MaxExtractLength, which starts at the reader's position with run
// (its bytes so far) and which the reader skips but for its end: a URI of
// that length is no URI a crawler or a log keeps, and holding it would
// make memory unbounded. It goes in c, before c's matches.
func (p *pipe[S, P]) skipRun(c *Chunk[S], run []byte) {
	if p.skip == nil {
		return
	}
	line := p.lineNow() // no line end in the run: its line is the reader's
	head := run[:min(len(run), echoMax)]
	m := uriscan.Match{Start: p.off, End: p.off + int64(len(head)), Line: int64(line) + 1, Rejected: true}
	p.skip.SkipRun(&c.K, c.Name, m, p.lineStart, head)
}

// echoMax is how many bytes of a skipped run SkipRun is given.
const echoMax = 200

// lineNow returns the number of lines before the reader's position,
// waiting for the workers to have counted them (not once the run quits).
func (p *pipe[S, P]) lineNow() int {
	if p.last != nil {
		select {
		case <-p.last.done:
		case <-p.quit:
			// The run is quitting, and the workers may not count the
			// chunks before: what the caller makes is not written.
			return p.line
		}
		p.line, p.lineStart, p.last = p.last.line+p.last.lines, p.last.end, nil
	}
	return p.line
}

// sendDone hands c, already complete (its sink filled by the reader), to
// the writer.
func (p *pipe[S, P]) sendDone(c *Chunk[S]) {
	c.Input = p.input
	p.chain(c)
	c.byWriter = true
	close(c.done)
	p.order <- c
}

// readAll reads each input in turn and cuts it into chunks; after each,
// for an Ender, it sends a chunk that says the input ended (Chunk.end).
func (p *pipe[S, P]) readAll(src Source) {
	for i := range src.Len() {
		p.input = i
		if ok, read := p.readInput(src); !ok {
			return
		} else if !read {
			continue
		}
		if p.end != nil {
			c := p.get()
			if c == nil {
				return
			}
			c.end = true
			p.sendDone(c)
		}
	}
}

// readInput opens input p.input and cuts it into chunks; ok false if the
// run is quitting, or stops (a Halt); read false for an input skipped.
func (p *pipe[S, P]) readInput(src Source) (ok, read bool) {
	c := p.get()
	if c == nil || p.host.Stopped() {
		return false, true
	}
	in, err := src.Open(p.input)
	if err == ErrSkip {
		p.free <- c
		return true, false
	}
	c.Name = in.Name
	if in.Note != "" {
		p.cmd.Note(&c.K, in.Note) // said before the input's lines
	}
	p.off, p.last, p.line, p.lineStart = 0, nil, 0, 0
	if in.Skipped > 0 {
		p.readBytes.Add(in.Skipped)
		p.host.Progress(in.Skipped, 0)
	}
	if in.Close == nil {
		in.Close = func() error { return nil }
	}
	if err != nil {
		var h *Halt
		halt := errors.As(err, &h)
		p.cmd.InputError(&c.K, err.Error(), halt)
		in.Close()
		p.sendDone(c)
		return !halt, true
	}
	p.off, p.line, p.lineStart = in.Offset, in.Line, in.Offset
	ok = p.read(c, in.R)
	if err := in.Close(); err != nil && ok {
		if c := p.get(); c != nil {
			c.Name = in.Name
			p.cmd.InputError(&c.K, in.Name+": "+err.Error(), false)
			p.sendDone(c)
		}
	}
	return ok, true
}

// read cuts one input into chunks, starting with c (which may hold a note
// already); false if the run is quitting.
func (p *pipe[S, P]) read(c *Chunk[S], r io.Reader) bool {
	var (
		inRun bool // a run being skipped was reported (see skipRun)
		have  int  // bytes of c.buf read (from p.off)
		empty int  // reads in a row that gave nothing
		m     int
		err   error
		cut   int
	)
	window, target := p.window()
	c.buf = p.sized(c.buf, window)
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
			if have > 0 {
				p.send(c, c.buf[:have])
			} else {
				p.sendDone(c) // a note, or nothing
			}
			return true
		case err != nil:
			return p.readError(c, have, err)
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
			if cut = LastNonURIByte(c.buf[:have]) + 1; cut == 0 && have < len(c.buf) {
				continue
			} else if cut == 0 {
				// A run of URI bytes longer than the buffer: keep its end
				// (as uriscan.ExtractScanner does).
				if !inRun {
					p.skipRun(c, c.buf[:have])
					inRun = true
				}
				drop := have - uriscan.MaxExtractLength
				c.Before = c.buf[drop-1]
				have = copy(c.buf, c.buf[drop:have])
				p.advance(int64(drop))
				continue
			}
		}
		if cut == 0 && have <= p.maxLine+1 {
			// A line longer than the buffer, within the limit: grow it.
			nb := p.sized(nil, min(2*len(c.buf), p.maxLine+2+p.chunkSize))
			copy(nb, c.buf[:have])
			p.spare(c.buf)
			c.buf = nb
			continue
		}
		if cut == 0 {
			// A line over the limit: LongLine reads past it.
			var ok bool
			if c, have, ok = p.longLine(c, have, r); !ok {
				return false
			}
			if have < 0 {
				return true // the input ended with the line
			}
			continue
		}
		next := p.get()
		if next == nil {
			return false
		}
		next.buf = p.sized(next.buf, max(window, have-cut)) // a grown buffer is not passed on
		next.Name, next.Before = c.Name, c.buf[cut-1]
		have = copy(next.buf, c.buf[cut:have])
		p.send(c, c.buf[:cut])
		c, inRun = next, false
	}
}

// sized returns b, or the spare buffer, or a new buffer, of at least n
// bytes (exactly n for extract: see window).
func (p *pipe[S, P]) sized(b []byte, n int) []byte {
	if cap(b) < n && cap(p.bigIn) >= n {
		b, p.bigIn = p.bigIn, nil
	}
	if cap(b) < n {
		return make([]byte, n)
	}
	if p.extract {
		return b[:n]
	}
	return b[:cap(b)]
}

// spare keeps b, a read buffer grown for a long line, as the reader's
// spare (see sized), if it is larger than the one it has.
func (p *pipe[S, P]) spare(b []byte) {
	if cap(b) > 2*p.chunkSize && cap(b) > cap(p.bigIn) && !p.extract {
		p.bigIn = b[:0]
	}
}

var nl = []byte{'\n'}

// readError ends an input that a read failed: the whole lines in
// c.buf[:have] go to a worker; a cut last line is reported as truncated
// (never taken), as uriscan.LineScanner reports it. Extract takes the cut
// last line up to its last byte that no URI holds: a URI that ends before
// it is whole, and taken; the run of URI bytes that reaches the cut may be
// a URI cut short ("https://www.ke"), and is not (nor a rejection in it).
func (p *pipe[S, P]) readError(c *Chunk[S], have int, err error) bool {
	cut := bytes.LastIndexByte(c.buf[:have], '\n') + 1
	cutLine := false // (extract's: the line commands' is the scanner's)
	if p.extract {
		// (An extract chunk may end in the middle of a line.)
		cutLine = have > cut || have == 0 && p.off > 0 && c.Before != '\n'
		cut = LastNonURIByte(c.buf[:have]) + 1
	}
	rest := append([]byte(nil), c.buf[cut:have]...)
	p.readBytes.Add(int64(len(rest))) // read, if not taken
	if cut > 0 || P(&c.K).Size() > 0 {
		name := c.Name
		p.send(c, c.buf[:cut])
		if c = p.get(); c == nil {
			return false
		}
		c.Name = name
	}
	switch {
	case p.extract && cutLine:
		p.cmd.InputError(&c.K, fmt.Sprintf("%s:%d: the last line was cut short by a read error at byte %d of the input, and is taken only up to byte %d (no URI that reaches the cut): %v",
			c.Name, p.lineNow()+1, p.off+int64(len(rest)), p.off, err), false)
	case p.extract:
		p.cmd.InputError(&c.K, c.Name+": "+err.Error(), false)
	default:
		var s uriscan.LineScanner
		s.SetMaxLine(p.maxLine)
		s.Reset(io.MultiReader(bytes.NewReader(rest), errReader{err}))
		s.StartAt(p.off, p.lineNow())
		for s.Scan() {
			// Only a cut line is left, and it is not a record.
		}
		if err := s.Err(); err != nil {
			p.cmd.InputError(&c.K, ReadErrorMsg(c.Name, err), false)
		}
	}
	p.sendDone(c)
	return true
}

// longLine hands a line over the limit, which starts at the reader's
// position and of which c.buf[:have] holds the start, to
// Command.LongLine, reading on from r. It returns the chunk to go on
// with, holding have bytes read after the line (-1 if the input ended
// with it); false when quitting.
func (p *pipe[S, P]) longLine(c *Chunk[S], have int, r io.Reader) (*Chunk[S], int, bool) {
	nr := &untilNewline{r: r}
	line := p.lineNow()
	ok := p.cmd.LongLine(&c.K, c.Name, io.MultiReader(bytes.NewReader(c.buf[:have]), nr), p.off, line)
	ended := !ok || !nr.done
	// c carries the line's output; its buffer goes on with the next chunk.
	buf := c.buf
	c.buf, c.Data = nil, nil
	name := c.Name
	p.sendDone(c)
	p.advance(int64(have) + nr.n)
	p.line, p.lineStart = line+1, p.off
	next := p.get()
	if next == nil {
		return nil, 0, false
	}
	next.buf, next.Name = p.sized(buf, len(nr.left)), name
	if ended {
		p.free <- next
		return next, -1, true
	}
	return next, copy(next.buf, nr.left), true
}

// ReadErrorMsg words the read error err that ended input name: a line
// cut short (*uriscan.TruncatedError), or "NAME: why".
func ReadErrorMsg(name string, err error) string {
	var te *uriscan.TruncatedError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s:%d: the last line (%d bytes, from byte %d of the input) was cut short by a read error, and is not taken: %v", name, te.Line, te.Len, te.Offset, te.Err)
	}
	if msg, ok := PathErrorMsg(err); ok && strings.HasPrefix(msg, name+": ") {
		return msg // not "NAME: read NAME: why"
	}
	return name + ": " + err.Error()
}

// PathErrorMsg words err, a *fs.PathError of a system call on an input
// (in a wrapping error, which may add to it), as "NAME: why", without the
// call ("open NAME: why", "read NAME: why"); false, with err's text, for
// another error (a decompressor's "gunzip NAME: why" says what failed).
func PathErrorMsg(err error) (string, bool) {
	var pe *fs.PathError
	if errors.As(err, &pe) && (pe.Op == "open" || pe.Op == "read") {
		return strings.Replace(err.Error(), pe.Op+" "+pe.Path+": ", pe.Path+": ", 1), true
	}
	return err.Error(), false
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

// LastNonURIByte returns the index of the last byte of b that no URI
// holds (space, control, non-ASCII, and " < > \ ^ ` { | }), or -1: where
// Extract may cut text.
func LastNonURIByte(b []byte) int {
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

// window is the length of a chunk's buffer: for extract exactly
// uriscan.DefaultBufferSize, so that a run of URI bytes too long for it is
// cut where uriscan.ExtractScanner cuts it; for the line commands twice
// chunkSize (grown for a long line). target is how many bytes a chunk
// holds.
func (p *pipe[S, P]) window() (window, target int) {
	if p.extract {
		return uriscan.DefaultBufferSize, min(p.chunkSize, uriscan.DefaultBufferSize/2)
	}
	return 2 * p.chunkSize, p.chunkSize
}
