package cli

import (
	"errors"
	"io"
	"sync"

	"github.com/uriscan/uriscan"
)

// recordScanner is the input loop of the line-oriented commands: a
// uriscan.LineScanner (batch mode: the input is classified once, window by
// window, and records are taken from the masks) plus a per-line cache of
// the parse error. The commands only see its results (line number, bytes,
// URI or error).
type recordScanner struct {
	ls   uriscan.LineScanner
	fr   flushReader
	perr *uriscan.Error // why the current line is not a URI-reference: nil or &errv
	errv uriscan.Error  // (valid until the next Scan: its Input is the line's bytes)
	// grammar is --grammar: RFC3986 (the LineScanner's parse, SIMD) or
	// RFC2396 (each line parsed again by uriscan.RFC2396, into u).
	grammar uriscan.Grammar
	u       uriscan.URI
	// beforeRead, if set, is called before each read of the input, so that
	// output can be flushed for interactive use ("tail -f log | uriscan
	// validate"); on files that is once per read buffer.
	beforeRead func()
	// mu is held by the input loop except while it waits in a read (see
	// env.interrupted).
	mu *sync.Mutex
	// stop, if set and true, makes the next read fail with errInterrupted.
	stop func() bool
}

// errInterrupted ends an input that a signal interrupted.
var errInterrupted = errors.New("interrupted")

// flushReader calls flush before every Read of r, and releases mu while
// the read waits.
type flushReader struct {
	r     io.Reader
	flush func()
	mu    *sync.Mutex
	stop  func() bool
}

func (f *flushReader) Read(p []byte) (int, error) {
	if f.flush != nil {
		f.flush()
	}
	if f.stop != nil && f.stop() {
		return 0, errInterrupted
	}
	if f.mu == nil {
		return f.r.Read(p)
	}
	f.mu.Unlock()
	n, err := f.r.Read(p)
	f.mu.Lock()
	if f.stop != nil && f.stop() && err == nil {
		err = errInterrupted
	}
	return n, err
}

// Reset starts a new input: line numbers start again at 1. A nil r drops
// the reference to the previous input.
func (s *recordScanner) Reset(r io.Reader) {
	s.fr = flushReader{r: r, flush: s.beforeRead, mu: s.mu, stop: s.stop}
	if r == nil {
		s.ls.ResetBytes(nil)
	} else {
		s.ls.Reset(&s.fr)
	}
	s.perr = nil
}

// Scan advances to the next line and parses it; it returns false at the end
// of the input or on a read error (see Err).
func (s *recordScanner) Scan() bool {
	s.perr = nil
	if !s.ls.Scan() {
		return false
	}
	if s.ls.ParseErrorTo(&s.errv) {
		s.perr = &s.errv
	}
	if s.grammar != uriscan.RFC3986 {
		s.reparse()
	}
	return true
}

// ScanInvalid is Scan for a caller that does nothing with valid lines:
// it advances to the next line that is not a URI-reference
// (LineScanner.ScanInvalid), under RFC 3986's grammar only.
func (s *recordScanner) ScanInvalid() bool {
	s.perr = nil
	if !s.ls.ScanInvalid() {
		return false
	}
	s.ls.ParseErrorTo(&s.errv)
	s.perr = &s.errv
	return true
}

// reparse parses the line by s.grammar: a line over the limit stays
// invalid as it is.
func (s *recordScanner) reparse() {
	if _, long := s.ls.TooLong(); long {
		return
	}
	u, err := s.grammar.Parse(s.ls.Bytes())
	s.u, s.perr = u, nil
	if err != nil {
		var e *uriscan.Error
		if errors.As(err, &e) {
			s.errv = *e
		} else {
			s.errv = uriscan.Error{Input: string(s.ls.Bytes()), Err: err}
		}
		s.perr = &s.errv
	}
}

// Line returns the current line's number, counting from 1 in each input.
func (s *recordScanner) Line() int { return s.ls.Line() }

// Bytes returns the current line without its terminator (only its first
// uriscan.LongLineKept bytes if it is over the line limit); it is valid
// until the next call to Scan.
func (s *recordScanner) Bytes() []byte { return s.ls.Bytes() }

// Len returns the current line's length, without its terminator.
func (s *recordScanner) Len() int64 {
	if n, ok := s.ls.TooLong(); ok {
		return n
	}
	return int64(len(s.ls.Bytes()))
}

// URI returns the current line parsed; meaningful only if ParseError is nil.
func (s *recordScanner) URI() *uriscan.URI {
	if s.grammar != uriscan.RFC3986 {
		return &s.u
	}
	return s.ls.URI()
}

// ParseError returns why the current line is not a URI-reference, or nil.
func (s *recordScanner) ParseError() *uriscan.Error { return s.perr }

// Err returns the read error that ended the input, if any.
func (s *recordScanner) Err() error { return s.ls.Err() }
