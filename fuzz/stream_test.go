package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
)

// records renders every record of s (line, offsets, bytes, verdict, too
// long) and the error that ended the scan.
func records(s *uriscan.LineScanner) []string {
	var out []string
	for s.Scan() {
		r := fmt.Sprintf("%d@%d-%d %q", s.Line(), s.Offset(), s.NextOffset(), s.Bytes())
		if n, ok := s.TooLong(); ok {
			r += fmt.Sprintf(" toolong(%d)", n)
		}
		if e := s.ParseError(); e != nil {
			r += " " + e.Error()
		}
		out = append(out, r)
	}
	if err := s.Err(); err != nil {
		out = append(out, "err "+err.Error())
	}
	return out
}

// cutReader hands out data in reads of the lengths cuts gives (cycling;
// 0 is a read of nothing, and only zeros read 1 byte each), then err
// (io.EOF if nil), with the last data or after it.
type cutReader struct {
	data, cuts []byte
	i          int
	err        error
	empty      int // reads in a row that returned nothing
}

func (r *cutReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		if r.err == nil {
			return 0, io.EOF
		}
		return 0, r.err
	}
	n := len(r.data)
	if len(r.cuts) > 0 {
		n = int(r.cuts[r.i%len(r.cuts)])
		r.i++
		if n == 0 && r.i%len(r.cuts) == 0 && bytes.Count(r.cuts, []byte{0}) == len(r.cuts) {
			n = 1
		}
		if n == 0 && r.empty == 98 {
			// A reader that returns nothing 100 times in a row is one
			// that makes no progress (bufio's rule, and the scanners'):
			// the harness is not that reader.
			n = 1
		}
	}
	if n == 0 {
		r.empty++
	} else {
		r.empty = 0
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	if len(r.data) == 0 && r.err != nil && r.i%2 == 0 {
		// Half the time the error comes with the last data, as
		// io.Reader allows.
		return n, r.err
	}
	return n, nil
}

// limited returns a LineScanner with a small read buffer (so that long
// lines cross it and are read past) and the line limit lim.
func limited(lim int) *uriscan.LineScanner {
	s := &uriscan.LineScanner{}
	s.Buffer(make([]byte, 2*uriscan.LongLineKept), lim)
	return s
}

var errCut = errors.New("read error")

// FuzzStream checks that any split of an input into reads, at any line
// limit, gives the records that scanning it as one buffer gives, over-long
// lines included; and that a read error after the input turns an
// unterminated last line into a *TruncatedError instead of a record.
func FuzzStream(f *testing.F) {
	f.Add([]byte("http://a/\nb c\r\n"+strings.Repeat("x", 700)+"\nhttp://after/"), []byte{1, 5, 200}, uint16(300), false)
	f.Add([]byte("https://www.ke"), []byte{3}, uint16(0), true)
	f.Add([]byte(strings.Repeat("%", 1200)+"\r\n\n\nhttp://h/p?q#f\n"), []byte{0, 255, 17}, uint16(5), true)
	// A long line and whole lines after it in one read, with the error.
	f.Add([]byte(strings.Repeat("x", 2000)+"\nhttp://a/\nhttp://b/\n"), []byte{255, 255, 255, 255, 255, 255, 255, 255, 60}, uint16(100), true)
	f.Fuzz(func(t *testing.T, data, cuts []byte, lim uint16, fail bool) {
		limit := int(lim) % 2048 // 0: DefaultMaxLine
		ref := limited(limit)
		ref.ResetBytes(data)
		want := records(ref)
		var rerr error
		if fail {
			rerr = errCut
			if len(data) > 0 && data[len(data)-1] != '\n' {
				// The last record is cut: it becomes the error.
				ref.ResetBytes(data)
				var last, line int
				for ref.Scan() {
					last, line = int(ref.Offset()), ref.Line()
				}
				want[len(want)-1] = "err " + (&uriscan.TruncatedError{Line: line, Offset: int64(last), Len: int64(len(data) - last), Err: errCut}).Error()
			} else {
				want = append(want, "err "+errCut.Error())
			}
		}
		s := limited(limit)
		s.Reset(&cutReader{data: data, cuts: cuts, err: rerr})
		if got := records(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("limit %d, cuts %v, fail %v:\nstream %q\nbuffer %q", limit, cuts, fail, got, want)
		}
	})
}

// FuzzLineLimit checks records against the line limit's definition: split
// on "\n" (one "\r" before it is the terminator's), a line over the limit
// is too long, with its length, offsets and first LongLineKept bytes,
// whatever it holds; one within it is what Parse says of it alone.
func FuzzLineLimit(f *testing.F) {
	f.Add([]byte("http://a/\nhttp://bb/\r\n%%%\n\nx"), uint8(9))
	f.Add([]byte(strings.Repeat("a", 600)+"\r\n"+strings.Repeat("b", 3)), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, lim uint8) {
		for _, mode := range []string{"bytes", "stream"} {
			s := limited(int(lim))
			limit := s.MaxLine() // 0 is DefaultMaxLine
			if mode == "bytes" {
				s.ResetBytes(data)
			} else {
				s.Reset(&cutReader{data: data, cuts: []byte{7, 1, 200}})
			}
			off, line := 0, 0
			for s.Scan() {
				line++
				end := bytes.IndexByte(data[off:], '\n')
				next := off + end + 1
				if end < 0 {
					end, next = len(data)-off, len(data)
				}
				rec := bytes.TrimSuffix(data[off:off+end], []byte("\r"))
				n, long := s.TooLong()
				switch {
				case s.Line() != line || s.Offset() != int64(off) || s.NextOffset() != int64(next):
					t.Fatalf("%s: record %d at %d-%d, want %d at %d-%d", mode, s.Line(), s.Offset(), s.NextOffset(), line, off, next)
				case long != (len(rec) > limit):
					t.Fatalf("%s: line %d of %d bytes, limit %d: too long %v", mode, line, len(rec), limit, long)
				case long && (n != int64(len(rec)) || !bytes.Equal(s.Bytes(), rec[:min(len(rec), uriscan.LongLineKept)]) ||
					s.Valid() || !errors.Is(s.ParseError(), uriscan.ErrTooLong) || s.ParseError().Offset != limit):
					t.Fatalf("%s: line %d: length %d, bytes %q, valid %v, error %v", mode, line, n, s.Bytes(), s.Valid(), s.ParseError())
				case !long:
					_, err := uriscan.Parse(rec)
					if !bytes.Equal(s.Bytes(), rec) || s.Valid() != (err == nil) {
						t.Fatalf("%s: line %d: %q valid %v, Parse says %v", mode, line, s.Bytes(), s.Valid(), err)
					}
				}
				off = next
			}
			if off != len(data) || s.Err() != nil {
				t.Fatalf("%s: stopped at %d of %d: %v", mode, off, len(data), s.Err())
			}
		}
	})
}
