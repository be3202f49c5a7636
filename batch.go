package uriscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/uriscan/uriscan/internal/pathstats"
)

// LineScanner scans newline-separated URI-references, from a buffer
// (NewLineScannerBytes) or a stream (NewLineScanner), the way bufio.Scanner
// scans lines: each call to Scan parses the next record. Records end in
// "\n" or "\r\n" (the terminator is not part of the record); a last record
// without a terminator counts.
//
// The input is classified once, window by window, as one stream: the
// kernel never runs per line, and the walk takes records from the masks
// while they are in L1. Scanning allocates nothing per record, valid or
// not (ParseError allocates only when called on an invalid record).
// Memory is bounded by the read buffer and the longest line.
type LineScanner struct {
	w     walker
	u     URI
	r     io.Reader
	buf   []byte // stream mode: read buffer; data is a prefix of it
	data  []byte // the complete records being scanned (w.src aliases it)
	have  int    // stream mode: bytes of buf read so far (data, then a partial line)
	pos   int    // offset in data of the next record
	line  int
	valid bool
	ioErr error // sticky; io.EOF once the reader is exhausted

	// Records taken ahead by the batch assembly: recs[irec:nrec] are
	// next. skip counts records to leave to scan (fast or the walk)
	// after a batch that stopped at one the assembly does not take.
	recs       [fastBatchLen]uriFields
	irec, nrec int
	skip       int
	windowEnd  bool // the record after recs starts a new window
}

// DefaultBufferSize is the read buffer of a streaming LineScanner: large
// enough to amortize reads, small enough to stay in L2.
const DefaultBufferSize = 256 << 10

// NewLineScanner returns a scanner that reads records from r.
func NewLineScanner(r io.Reader) *LineScanner {
	s := &LineScanner{}
	s.Reset(r)
	return s
}

// ErrLineTooLong is the error Err returns when a stream holds a line that
// would outgrow MaxLength; the scan ends at it.
var ErrLineTooLong = fmt.Errorf("uriscan: a line longer than MaxLength: %w", ErrTooLong)

// useGoFast is whether scan tries fast before the walk; tests switch it
// off to run the walk on every record.
var useGoFast = true

// maxBytesMode is the longest buffer NewLineScannerBytes scans in place
// (a variable so that tests can lower it).
var maxBytesMode = MaxLength

// NewLineScannerBytes returns a scanner over the records in buf. URIs and
// records refer into buf, which must not change while they are in use
// (unless buf is longer than MaxLength: see ResetBytes).
func NewLineScannerBytes(buf []byte) *LineScanner {
	s := &LineScanner{}
	s.ResetBytes(buf)
	return s
}

// Reset makes s read records from r, keeping its buffer; line numbers
// start again at 1.
func (s *LineScanner) Reset(r io.Reader) {
	s.r, s.ioErr = r, nil
	if s.buf == nil {
		s.buf = make([]byte, DefaultBufferSize)
	}
	s.setData(s.buf[:0])
	s.have, s.line = 0, 0
}

// ResetBytes makes s scan the records in buf; line numbers start again at 1.
// A buf longer than MaxLength (offsets are 32-bit) is read as a stream
// instead, so its records refer into the scanner's own buffer.
func (s *LineScanner) ResetBytes(buf []byte) {
	if len(buf) > maxBytesMode {
		s.Reset(bytes.NewReader(buf))
		return
	}
	s.r, s.ioErr = nil, io.EOF
	s.setData(buf)
	s.line = 0
}

func (s *LineScanner) setData(d []byte) {
	s.data, s.pos = d, 0
	s.u.start, s.u.end = 0, 0
	s.irec, s.nrec, s.skip, s.windowEnd = 0, 0, 0, false
	s.w.init(bytesToString(d), 0)
	s.u.src = s.w.src // records are spans of it: set once, not per record
	s.w.batch = true
}

// Scan advances to the next record and parses it. It returns false at the
// end of the input or on a read error (see Err).
func (s *LineScanner) Scan() bool {
	if s.irec >= s.nrec && !s.batch() {
		return s.scan()
	}
	// The next record the batch assembly took.
	r := &s.recs[s.irec]
	s.irec++
	pathstats.Add(pathstats.BatchAsm, 1)
	s.u.uriFields = *r
	s.valid, s.pos = true, int(r.end)+1
	s.line++
	return true
}

// batch runs the batch assembly from pos, unless the record there must go
// to scan, and reports whether it took any records.
func (s *LineScanner) batch() bool {
	if s.skip > 0 {
		s.skip--
		return false
	}
	if !useFastBatch || s.pos >= len(s.data) {
		return false
	}
	n, stop := 0, fastStopWindow // known when the last batch ended so
	if !s.windowEnd {
		n, stop = s.w.fastBatch(s.pos, &s.recs)
	}
	s.windowEnd = false
	if n == 0 && stop == fastStopWindow && s.w.next < len(s.w.src) {
		s.w.refillAt(s.pos) // a window that starts at the record
		n, stop = s.w.fastBatch(s.pos, &s.recs)
	}
	switch stop {
	case fastStopShape:
		if n > 0 {
			s.skip = 1 // scan takes the record after these
		}
	case fastStopWindow:
		s.windowEnd = n > 0
	}
	s.irec, s.nrec = 0, n
	return n > 0
}

// scan takes the record at pos with fast or the walk.
func (s *LineScanner) scan() bool {
	pos := s.pos
	if pos >= len(s.data) {
		if !s.fill() {
			s.valid = false
			return false
		}
		pos = s.pos
	}
	s.line++
	u := &s.u
	u.defined, u.hostType, u.portOK, u.port = 0, NoHost, false, 0
	end, ok := 0, false
	if useGoFast {
		end, ok = s.w.fast(u, pos)
	}
	if !ok && end == fastWindowEnd && s.w.next < len(s.w.src) {
		// The record runs past the window: classify one that starts at
		// it (re-classifying the part already seen) and try again.
		s.w.refillAt(pos)
		end, ok = s.w.fast(u, pos)
	}
	if ok {
		// A fast record ends at a "\n".
		pathstats.Add(pathstats.GoFast, 1)
		s.valid, s.pos = true, end+1
		u.start, u.end = int32(pos), int32(end)
		return true
	}
	s.slow(pos)
	return true
}

// slow scans the record at pos with the walk.
func (s *LineScanner) slow(pos int) {
	pathstats.Add(pathstats.Walk, 1)
	u := &s.u
	u.defined, u.hostType, u.portOK, u.port = 0, NoHost, false, 0
	s.w.seek(pos)
	s.w.errOff = noError
	end := s.w.walk(u, pos)
	s.valid = s.w.errOff == noError
	u.start, u.end = int32(pos), int32(end)
	// Step over the terminator, "\n" or "\r\n" (walk consumed its events).
	next := end + 1
	if end < len(s.data) && s.data[end] == '\r' {
		next++
	}
	s.pos = next
}

// fill reads input until data holds at least one complete record, keeping
// the partial line after the last "\n" for the next fill. It reports false
// when the input is exhausted.
func (s *LineScanner) fill() bool {
	if s.r == nil {
		return false
	}
	have := copy(s.buf, s.buf[len(s.data):s.have]) // the partial line, to the front
	from := 0                                      // buf[:from] holds no "\n"
	for {
		if s.ioErr != nil {
			s.have = have
			if have == 0 {
				s.setData(s.buf[:0])
				return false
			}
			s.setData(s.buf[:have]) // the last record has no terminator
			return true
		}
		if have == len(s.buf) { // a line longer than the buffer
			if 2*len(s.buf) > maxBytesMode {
				// Offsets are 32-bit: such a line ends the scan, and Err
				// says why.
				s.ioErr = ErrLineTooLong
				continue
			}
			nb := make([]byte, 2*len(s.buf))
			copy(nb, s.buf[:have])
			s.buf = nb
		}
		m, err := s.r.Read(s.buf[have:])
		if err != nil {
			s.ioErr = err
		}
		have += m
		if i := bytes.LastIndexByte(s.buf[from:have], '\n'); i >= 0 {
			s.have = have
			s.setData(s.buf[:from+i+1])
			return true
		}
		from = have
	}
}

// Line returns the current record's number, counting from 1.
func (s *LineScanner) Line() int { return s.line }

// Bytes returns the current record without its terminator. It is valid
// until the next call to Scan (in stream mode the buffer is reused).
func (s *LineScanner) Bytes() []byte { return s.data[s.u.start:s.u.end:s.u.end] }

// Valid reports whether the current record is a URI-reference.
func (s *LineScanner) Valid() bool { return s.valid }

// URI returns the current record parsed. Its components are meaningful
// only when Valid; it is valid until the next call to Scan.
func (s *LineScanner) URI() *URI { return &s.u }

// ParseError returns why the current record is not a URI-reference, or
// nil. Offsets count from the start of the record. It allocates (the
// Error holds a copy of the record); Valid does not.
func (s *LineScanner) ParseError() *Error {
	if s.valid {
		return nil
	}
	return s.w.error(&s.u, string(s.u.String()), int(s.u.start))
}

// Err returns the read error that ended the input, or nil at its end.
func (s *LineScanner) Err() error {
	if s.ioErr == nil || errors.Is(s.ioErr, io.EOF) {
		return nil
	}
	return s.ioErr
}
