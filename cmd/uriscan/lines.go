package main

import (
	"bufio"
	"errors"
	"io"

	"github.com/uriscan/uriscan"
)

// readBufSize is the size of the input buffer: most lines are returned as
// slices of it, without copying.
const readBufSize = 64 << 10

// maxKeptLineBuf: a line buffer grown past this for one very long line is
// released afterwards rather than kept for the rest of the input.
const maxKeptLineBuf = 4 << 20

// lineReader splits a stream into lines ending in "\n" or "\r\n"; the line
// terminator is not part of the line, and a final line without "\n" counts.
// Memory is bounded by the longest line: a line longer than the read buffer
// is assembled in a reusable buffer, never truncated or dropped.
type lineReader struct {
	r   *bufio.Reader
	buf []byte // assembles lines longer than r's buffer
	err error  // sticky; io.EOF at the end of the input
	// beforeRead, if set, is called before a read that may block (the input
	// buffer is empty), so that output can be flushed for interactive use.
	beforeRead func()
}

// Reset makes l read from r, reusing its buffers.
func (l *lineReader) Reset(r io.Reader) {
	if l.r == nil {
		l.r = bufio.NewReaderSize(r, readBufSize)
	} else {
		l.r.Reset(r)
	}
	l.err = nil
}

// Next returns the next line, valid until the following call. ok is false
// at the end of the input or on a read error (see Err).
func (l *lineReader) Next() (line []byte, ok bool) {
	if l.err != nil {
		return nil, false
	}
	if cap(l.buf) > maxKeptLineBuf {
		l.buf = nil
	}
	l.buf = l.buf[:0]
	for {
		if l.beforeRead != nil && l.r.Buffered() == 0 {
			l.beforeRead()
		}
		frag, err := l.r.ReadSlice('\n')
		switch {
		case err == nil:
			line = frag
			if len(l.buf) > 0 {
				l.buf = append(l.buf, frag...)
				line = l.buf
			}
			return trimEOL(line[:len(line)-1]), true
		case errors.Is(err, bufio.ErrBufferFull):
			l.buf = append(l.buf, frag...)
			continue
		}
		l.err = err
		if err == io.EOF && len(l.buf)+len(frag) > 0 {
			l.buf = append(l.buf, frag...)
			return trimEOL(l.buf), true
		}
		return nil, false
	}
}

// Err returns the read error that ended the input, or nil at its end.
func (l *lineReader) Err() error {
	if l.err == io.EOF {
		return nil
	}
	return l.err
}

func trimEOL(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// recordScanner is the input loop of the line-oriented commands: it reads
// one input's lines and parses each as a URI-reference. The commands only
// see its results (line number, bytes, URI or error), so a batch-scanning
// parser can replace the per-line Parse here without changing them.
type recordScanner struct {
	lines lineReader
	n     int            // 1-based number of the current line
	text  []byte         // the current line, without its terminator
	uri   uriscan.URI    // the current line parsed, when perr is nil
	perr  *uriscan.Error // why the current line is not a URI-reference
}

// Reset starts a new input: line numbers start again at 1.
func (s *recordScanner) Reset(r io.Reader) {
	s.lines.Reset(r)
	s.n = 0
	s.text, s.uri, s.perr = nil, uriscan.URI{}, nil
}

// Scan advances to the next line and parses it; it returns false at the end
// of the input or on a read error (see Err).
func (s *recordScanner) Scan() bool {
	line, ok := s.lines.Next()
	if !ok {
		s.text, s.uri, s.perr = nil, uriscan.URI{}, nil
		return false
	}
	s.n++
	s.text = line
	u, err := uriscan.Parse(line)
	s.uri, s.perr = u, nil
	if err != nil {
		var pe *uriscan.Error
		if !errors.As(err, &pe) {
			pe = &uriscan.Error{Input: string(line), Err: err}
		}
		s.perr = pe
	}
	return true
}

// Line returns the current line's number, counting from 1 in each input.
func (s *recordScanner) Line() int { return s.n }

// Bytes returns the current line without its terminator; it is valid until
// the next call to Scan.
func (s *recordScanner) Bytes() []byte { return s.text }

// URI returns the current line parsed; meaningful only if ParseError is nil.
func (s *recordScanner) URI() *uriscan.URI { return &s.uri }

// ParseError returns why the current line is not a URI-reference, or nil.
func (s *recordScanner) ParseError() *uriscan.Error { return s.perr }

// Err returns the read error that ended the input, if any.
func (s *recordScanner) Err() error { return s.lines.Err() }
