package uriscan

import (
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"

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
//
// A LineScanner must not be copied once Reset (or a constructor) has run:
// the copy would share the original's window of masks.
//
// # Limits
//
// A record longer than the line limit (DefaultMaxLine unless SetMaxLine
// or Buffer says otherwise) is invalid: ParseError wraps ErrTooLong and
// says the record's length, Bytes returns only its first LongLineKept
// bytes, and in stream mode the rest of it is read past without being
// kept, so memory stays bounded by the read buffer and the limit whatever
// the input; the scan goes on with the next record. A last record that a
// read error (other than io.EOF) cuts short is not a record: Scan returns
// false and Err returns a *TruncatedError.
type LineScanner struct {
	w       walker
	masks   [winBlocks + 1]blockMasks // w's
	u       URI
	r       io.Reader
	buf     []byte // stream mode: read buffer; data is a prefix of it
	data    []byte // the complete records being scanned (w.src aliases it)
	have    int    // stream mode: bytes of buf read so far (data, then a partial line)
	pos     int    // offset in data of the next record
	line    int
	valid   bool
	ioErr   error  // sticky; io.EOF once the reader is exhausted
	maxLine int    // longest record as set; 0 means DefaultMaxLine
	lim     int    // longest record in force (MaxLine), set by Reset
	base    int64  // input offset of data[0]
	empty   int    // reads in a row that returned nothing
	skipBOM bool   // SkipBOM
	bomTodo bool   // stream mode: the input's first bytes are still to be checked for a BOM
	bomBuf  []byte // bytes mode: the buffer whose BOM ResetBytes took off

	// The current record is longer than maxLine: its length (0 if it is
	// not). A long record read past in stream mode keeps its first bytes
	// as data, and its offsets here.
	long                int64
	longStart, longNext int64
	longPending         bool // fill read past one; scan has not taken it yet

	// Records taken ahead by the batch assembly: recs[irec:nrec] are
	// next. skip counts records to leave to scan (fast or the walk)
	// after a batch that stopped at one the assembly does not take.
	recs       [fastBatchLen]uriFields
	irec, nrec int
	skip       int
	windowEnd  bool // the record after recs starts a new window

	// How the scanner runs, as the tests ask (newLineScanner): eng, the
	// engine (nil: dispatch), which setData gives w; inPlaceMax, the
	// longest buffer ResetBytes scans in place (0: MaxLength).
	eng        *engine
	inPlaceMax int
}

// DefaultBufferSize is the read buffer of a streaming LineScanner: large
// enough to amortize reads, small enough to stay in L2.
const DefaultBufferSize = 256 << 10

// NewLineScanner returns a scanner that reads records from r.
func NewLineScanner(r io.Reader) *LineScanner {
	return newLineScanner(r, nil)
}

// newLineScanner is NewLineScanner with the engine e (nil: dispatch).
func newLineScanner(r io.Reader, e *engine) *LineScanner {
	s := &LineScanner{eng: e}
	s.Reset(r)
	return s
}

// DefaultMaxLine is the longest record a LineScanner takes unless told
// otherwise (SetMaxLine, Buffer): 1 MiB, far longer than any URI in use
// (browsers and servers cap them at 2 to 80 KiB) and short enough that a
// line of gigabytes costs no memory.
const DefaultMaxLine = 1 << 20

// LongLineKept is how many bytes of a record longer than the line limit
// Bytes returns (and ParseError's Input holds): enough to say what it was.
const LongLineKept = 256

// ErrTruncated is the cause (errors.Is) of a *TruncatedError.
var ErrTruncated = errors.New("last line cut short by a read error")

// TruncatedError is what Err returns when a read error other than io.EOF
// cut the last line short: those bytes are not a record (a corrupt
// .gz, a dropped connection would otherwise turn "https://www.ke" into a
// URI).
type TruncatedError struct {
	Line   int   // the cut line's number
	Offset int64 // its offset in the input
	Len    int64 // how many of its bytes were read
	Err    error // the read error
}

func (e *TruncatedError) Error() string {
	return "uriscan: line " + strconv.Itoa(e.Line) + " (offset " + strconv.FormatInt(e.Offset, 10) +
		"): " + ErrTruncated.Error() + " after " + strconv.FormatInt(e.Len, 10) + " bytes: " + e.Err.Error()
}

// Unwrap returns ErrTruncated and the read error.
func (e *TruncatedError) Unwrap() []error { return []error{ErrTruncated, e.Err} }

// NewLineScannerBytes returns a scanner over the records in buf. URIs and
// records refer into buf, which must not change while they are in use
// (unless buf is longer than MaxLength: see ResetBytes).
func NewLineScannerBytes(buf []byte) *LineScanner {
	return newLineScannerBytes(buf, nil)
}

// newLineScannerBytes is NewLineScannerBytes with the engine e (nil:
// dispatch).
func newLineScannerBytes(buf []byte, e *engine) *LineScanner {
	s := &LineScanner{eng: e}
	s.ResetBytes(buf)
	return s
}

// maxInPlace is the longest buffer ResetBytes scans in place: MaxLength
// (offsets are 32-bit), or less where a test says (inPlaceMax).
func (s *LineScanner) maxInPlace() int {
	if s.inPlaceMax > 0 {
		return s.inPlaceMax
	}
	return MaxLength
}

// Reset makes s read records from r, keeping its buffer and line limit;
// line numbers start again at 1 and offsets at 0.
func (s *LineScanner) Reset(r io.Reader) {
	s.r, s.ioErr = r, nil
	if s.buf == nil {
		s.buf = make([]byte, DefaultBufferSize)
	}
	s.setData(s.buf[:0])
	s.have, s.line, s.base, s.empty = 0, 0, 0, 0
	s.long, s.longPending = 0, false
	s.lim = s.MaxLine()
	s.bomTodo = s.skipBOM
}

// UTF8BOM is the UTF-8 byte-order mark, which editors and Windows tools
// write at the start of text files. It can never begin a URI-reference:
// its bytes are outside RFC 3986's character set.
const UTF8BOM = "\xef\xbb\xbf"

// SkipBOM sets whether a UTF-8 byte-order mark (UTF8BOM) at the very start
// of the input is skipped, as uriscan's commands do, instead of being
// read as the first bytes of line 1 (which makes it invalid). It is off
// by default: a LineScanner reads exactly the bytes it is given. Offsets
// still count the mark (line 1 then starts at offset 3), so they index
// the input as given. Call it before Reset, ResetBytes or the first Scan;
// it applies to the start of each input, not after StartAt.
func (s *LineScanner) SkipBOM(skip bool) {
	s.skipBOM = skip
	s.bomTodo = skip && s.r != nil && s.base == 0 && s.have == 0
	if skip && s.r == nil && s.base == 0 && s.pos == 0 && strings.HasPrefix(bytesToString(s.data), UTF8BOM) {
		s.bomBuf = s.data
		s.setData(s.data[len(UTF8BOM):])
		s.base = int64(len(UTF8BOM))
	}
}

// SetMaxLine sets the longest record s takes, in bytes without the
// terminator; n <= 0 means DefaultMaxLine. A longer record is invalid
// (ErrTooLong) and, in stream mode, read past without being kept: the read
// buffer grows to at most n+2 bytes. The limit cannot exceed MaxLength-2.
func (s *LineScanner) SetMaxLine(n int) { s.maxLine = n; s.lim = s.MaxLine() }

// MaxLine returns the line limit in force.
func (s *LineScanner) MaxLine() int {
	n := s.maxLine
	if n <= 0 {
		n = DefaultMaxLine
	}
	return min(n, s.maxInPlace()-2)
}

// Buffer sets the initial read buffer of stream mode and the line limit,
// as bufio.Scanner.Buffer does: the buffer grows, as needed, up to
// max+2 bytes (see SetMaxLine). Call it before Reset or the first Scan.
func (s *LineScanner) Buffer(buf []byte, max int) {
	if cap(buf) >= 2*LongLineKept {
		s.buf = buf[:cap(buf)]
	}
	s.SetMaxLine(max)
}

// StartAt sets the line number of the record before the next one and the
// input offset of the next read, for a reader positioned in the middle of
// an input (resuming a scan): after StartAt(off, n), the next record is
// line n+1 and Offset counts from off. Call it after Reset.
func (s *LineScanner) StartAt(offset int64, line int) {
	if offset > 0 {
		s.bomTodo = false
		if s.bomBuf != nil && s.pos == 0 {
			// Not the start of the input: the mark ResetBytes took off
			// is the input's, put back.
			s.setData(s.bomBuf)
		}
	}
	s.bomBuf = nil
	s.base, s.line = offset, line
}

// ResetBytes makes s scan the records in buf; line numbers start again at 1.
// A buf longer than MaxLength (offsets are 32-bit) is read as a stream
// instead, so its records refer into the scanner's own buffer.
func (s *LineScanner) ResetBytes(buf []byte) {
	if len(buf) > s.maxInPlace() {
		s.Reset(bytes.NewReader(buf))
		return
	}
	s.r, s.ioErr = nil, io.EOF
	s.setData(buf)
	s.line, s.base = 0, 0
	s.long, s.longPending = 0, false
	s.lim = s.MaxLine()
	s.bomTodo = false
	s.bomBuf = nil
	if s.skipBOM && strings.HasPrefix(bytesToString(buf), UTF8BOM) {
		s.setData(buf[len(UTF8BOM):])
		s.base = int64(len(UTF8BOM))
		s.bomBuf = buf
	}
}

func (s *LineScanner) setData(d []byte) {
	s.data, s.pos = d, 0
	s.u.start, s.u.end = 0, 0
	s.irec, s.nrec, s.skip, s.windowEnd = 0, 0, 0, false
	s.w.m = s.masks[:]
	if s.eng != nil {
		s.w.eng = *s.eng
	} else {
		s.w.eng = dispatch
	}
	s.w.init(bytesToString(d), 0)
	s.u.src = s.w.src // records are spans of it: set once, not per record
	s.w.batch = true
}

// Scan advances to the next record and parses it. It returns false at the
// end of the input or on a read error (see Err).
func (s *LineScanner) Scan() bool {
	// The next record the batch assembly took, if any: small enough to
	// inline, so that a record costs its copy and three counters. batch
	// set valid and long for all of them and checked them against the
	// line limit.
	if i := uint(s.irec); i < uint(s.nrec) {
		r := &s.recs[i%fastBatchLen]
		s.irec++
		s.u.uriFields = *r
		s.pos = int(r.end) + 1
		s.line++
		return true
	}
	return s.next()
}

// ScanInvalid advances to the next record that is not a URI-reference
// (Valid false: invalid, or over the line limit), stepping over the valid
// ones before it, which Line still counts; it returns false at the end of
// the input or on a read error (see Err). It is Scan for a caller that
// does nothing with valid records (a validator that reports the invalid
// ones, a count of them): the records the batch assembly took are
// stepped over a batch at a time, not copied out one by one. After it,
// Bytes, Line, Offset, ParseError and ParseErrorTo are those of the
// invalid record.
func (s *LineScanner) ScanInvalid() bool {
	for {
		if n := s.nrec - s.irec; n > 0 {
			// The rest of the batch: all valid.
			s.pos = int(s.recs[(s.nrec-1)%fastBatchLen].end) + 1
			s.line += n
			s.irec = s.nrec
		}
		if s.batch() {
			continue
		}
		if !s.scan() {
			return false
		}
		if !s.valid {
			return true
		}
	}
}

// next is Scan past the records taken ahead: another batch, or scan.
func (s *LineScanner) next() bool {
	if !s.batch() {
		return s.scan()
	}
	return s.Scan()
}

// tooLong checks the current record, complete in data, against the line
// limit, and makes it a too-long record if it is over.
func (s *LineScanner) tooLong() {
	n := int64(s.u.end - s.u.start)
	s.long, s.valid = n, false
	s.longStart, s.longNext = s.base+int64(s.u.start), s.base+int64(min(s.pos, len(s.data)))
	s.u.end = s.u.start + int32(min(n, LongLineKept))
}

// batch runs the batch assembly from pos, unless the record there must go
// to scan, and reports whether it took any records.
func (s *LineScanner) batch() bool {
	if s.skip > 0 {
		s.skip--
		return false
	}
	if !s.w.eng.fastBatch || s.pos >= len(s.data) {
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
	if n > 0 && s.lim < winBlocks*blockSize {
		// A record of the batch may be over the line limit (no record
		// of a window is longer than the window): scan takes the
		// first that is, and makes it a too-long record.
		for i, r := range s.recs[:n] {
			if int(r.end-r.start) > s.lim {
				n, s.skip, s.windowEnd = i, 1, false
				if i == 0 {
					s.skip = 0
				}
				break
			}
		}
	}
	s.irec, s.nrec = 0, n
	if n == 0 {
		return false
	}
	pathstats.Add(pathstats.BatchAsm, n)
	s.valid, s.long = true, 0
	return true
}

// scan takes the record at pos with fast or the walk.
func (s *LineScanner) scan() bool {
	pos := s.pos
	if pos >= len(s.data) {
		if !s.fill() {
			s.valid = false
			return false
		}
		if s.longPending {
			// fill read past a record over the limit: data is its kept
			// head.
			s.longPending = false
			s.line++
			u := &s.u
			u.defined, u.hostType, u.portOK, u.port = 0, NoHost, false, 0
			u.start, u.end = 0, int32(len(s.data))
			s.valid, s.pos = false, len(s.data)
			return true
		}
		pos = s.pos
	}
	s.line++
	s.long = 0
	u := &s.u
	u.defined, u.hostType, u.portOK, u.port = 0, NoHost, false, 0
	end, ok := 0, false
	if s.w.eng.goFast {
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
	} else {
		s.slow(pos)
	}
	if int(u.end-u.start) > s.lim {
		s.tooLong()
	}
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
// when the input is exhausted or a read error cut a line short (Err says
// which). A line that outgrows the limit is read past (readPastLong) and
// fill reports it with longPending set.
func (s *LineScanner) fill() bool {
	if s.r == nil {
		return false
	}
	s.base += int64(len(s.data))
	have := copy(s.buf, s.buf[len(s.data):s.have]) // the rest, to the front
	// Whole lines in the rest are taken before reading (or reporting an
	// error) again. After data that ends at the last "\n" read the rest
	// is a partial line; after a line read past it may hold lines.
	if i := bytes.LastIndexByte(s.buf[:have], '\n'); i >= 0 {
		s.have = have
		s.setData(s.buf[:i+1])
		return true
	}
	from := 0 // buf[:from] holds no "\n"
	for {
		if s.ioErr != nil {
			s.have = have
			if have == 0 {
				s.setData(s.buf[:0])
				return false
			}
			if !errors.Is(s.ioErr, io.EOF) {
				return s.truncated(int64(have))
			}
			s.setData(s.buf[:have]) // the last record has no terminator
			return true
		}
		if have == len(s.buf) { // a line longer than the buffer
			if have >= s.lim+2 {
				// Longer than the limit, even with a "\r\n" next.
				return s.readPastLong(have)
			}
			nb := make([]byte, min(max(2*len(s.buf), 2*LongLineKept), s.lim+2))
			copy(nb, s.buf[:have])
			s.buf = nb
		}
		m, err := s.r.Read(s.buf[have:])
		s.noProgress(m, err)
		have += m
		if s.bomTodo {
			// The input's first bytes: a byte-order mark is dropped once
			// all three are read (offsets still count it).
			n := min(have, len(UTF8BOM))
			switch {
			case bytesToString(s.buf[:n]) != UTF8BOM[:n]:
				s.bomTodo = false
			case n == len(UTF8BOM):
				have = copy(s.buf, s.buf[n:have])
				s.base += int64(n)
				s.bomTodo, from = false, 0
			case s.ioErr == nil:
				continue // a prefix of the mark: read on
			default:
				s.bomTodo = false
			}
		}
		if i := bytes.LastIndexByte(s.buf[from:have], '\n'); i >= 0 {
			s.have = have
			s.setData(s.buf[:from+i+1])
			return true
		}
		from = have
	}
}

// maxEmptyReads is how many reads in a row may return no data and no
// error before the scan ends with io.ErrNoProgress, as bufio.Scanner does.
const maxEmptyReads = 100

// noProgress records a read's error, and io.ErrNoProgress after
// maxEmptyReads empty reads in a row.
func (s *LineScanner) noProgress(m int, err error) {
	switch {
	case err != nil:
		s.ioErr = err
	case m > 0:
		s.empty = 0
	default:
		s.empty++
		if s.empty >= maxEmptyReads {
			s.ioErr = io.ErrNoProgress
		}
	}
}

// truncated ends the scan at a line of n bytes that a read error cut
// short.
func (s *LineScanner) truncated(n int64) bool {
	s.ioErr = &TruncatedError{Line: s.line + 1, Offset: s.base, Len: n, Err: s.ioErr}
	s.have = 0
	s.setData(s.buf[:0])
	return false
}

// readPastLong reads past the rest of a line whose first have bytes fill
// buf, keeping its first LongLineKept bytes as data and what follows its
// "\n" after them, and makes it the pending record.
func (s *LineScanner) readPastLong(have int) bool {
	kept := LongLineKept
	start := s.base
	n := int64(have) // the line's bytes so far
	lastCR := s.buf[have-1] == '\r'
	for {
		if s.ioErr != nil {
			if !errors.Is(s.ioErr, io.EOF) {
				return s.truncated(n)
			}
			// The last line, with no "\n" (a "\r" at its end is still
			// a terminator, as in fill's lines).
			l := n
			if lastCR {
				l--
			}
			s.long, s.longStart, s.longNext = l, start, start+n
			s.have = kept
			break
		}
		m, err := s.r.Read(s.buf[kept:])
		s.noProgress(m, err)
		chunk := s.buf[kept : kept+m]
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			l := n + int64(i)
			if (i > 0 && chunk[i-1] == '\r') || (i == 0 && lastCR) {
				l--
			}
			s.long, s.longStart, s.longNext = l, start, start+n+int64(i)+1
			s.have = kept + copy(s.buf[kept:], chunk[i+1:])
			break
		}
		n += int64(m)
		if m > 0 {
			lastCR = chunk[m-1] == '\r'
		}
	}
	s.setData(s.buf[:kept])
	// fill adds len(data) to base: the bytes after the line start at
	// longNext.
	s.base = s.longNext - int64(kept)
	s.longPending = true
	return true
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
// Error holds a copy of the record); Valid does not. For a record longer
// than the line limit it wraps ErrTooLong, its Offset is the limit, its
// Input the first LongLineKept bytes and its Reason gives the length.
func (s *LineScanner) ParseError() *Error {
	if s.valid {
		return nil
	}
	if s.long > 0 {
		return &Error{Input: string(s.Bytes()), Offset: s.lim, Component: numComponents, Err: ErrTooLong, code: errLineTooLong, arg: int(s.long)}
	}
	return s.w.error(&s.u, string(s.u.String()), int(s.u.start))
}

// ParseErrorTo is ParseError without allocating: it sets *e to why the
// current record is not a URI-reference and reports whether it is not.
// e.Input then refers to the scanner's buffer: it is valid only until the
// next Scan (copy it with strings.Clone to keep it).
func (s *LineScanner) ParseErrorTo(e *Error) bool {
	if s.valid {
		return false
	}
	if s.long > 0 {
		*e = Error{Input: bytesToString(s.Bytes()), Offset: s.lim, Component: numComponents, Err: ErrTooLong, code: errLineTooLong, arg: int(s.long)}
		return true
	}
	s.w.errorTo(e, &s.u, s.u.String(), int(s.u.start))
	return true
}

// TooLong reports whether the current record is longer than the line
// limit, and its length (Bytes holds only its first LongLineKept bytes).
func (s *LineScanner) TooLong() (length int64, ok bool) { return s.long, s.long > 0 }

// Offset returns the input offset of the current record's first byte,
// counting from 0 at Reset (or from StartAt's offset).
func (s *LineScanner) Offset() int64 {
	if s.long > 0 {
		return s.longStart
	}
	return s.base + int64(s.u.start)
}

// NextOffset returns the input offset just past the current record and
// its terminator: where the next record starts, the offset to resume a
// scan at (StartAt) once this record is dealt with.
func (s *LineScanner) NextOffset() int64 {
	if s.long > 0 {
		return s.longNext
	}
	return s.base + int64(min(s.pos, len(s.data)))
}

// Err returns the read error that ended the input, or nil at its end; a
// *TruncatedError when the error cut a line short.
func (s *LineScanner) Err() error {
	if s.ioErr == nil || errors.Is(s.ioErr, io.EOF) {
		return nil
	}
	return s.ioErr
}
