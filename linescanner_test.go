package uriscan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/uriscan/uriscan/internal/pagetest"
	"github.com/uriscan/uriscan/internal/shareddata"
)

// scanAll runs a LineScanner and renders each record as ParseString would
// see it, plus the error offset and reason.
func scanAll(t *testing.T, s *LineScanner) []string {
	t.Helper()
	var out []string
	for s.Scan() {
		if s.Line() != len(out)+1 {
			t.Fatalf("Line() = %d, want %d", s.Line(), len(out)+1)
		}
		rec := string(s.Bytes())
		if s.URI().String() != rec {
			t.Fatalf("line %d: URI().String() = %q, Bytes() = %q", s.Line(), s.URI().String(), rec)
		}
		if s.Valid() {
			if s.ParseError() != nil {
				t.Fatalf("line %d: Valid but ParseError = %v", s.Line(), s.ParseError())
			}
			out = append(out, rec+" => "+render(*s.URI(), nil)+extras(s.URI()))
		} else {
			out = append(out, rec+" => "+s.ParseError().Error())
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("Err() = %v", err)
	}
	return out
}

// parseWalkOnly is ParseString with the scalar reference (walkEngine):
// the generic kernel and the walk alone, what every kernel and fast path
// is compared with (ParseString itself tries the fast paths first).
func parseWalkOnly(s string) (URI, error) {
	return parse(s, false, walkEngine())
}

// wantAll is what scanAll must give: split on "\n", trim one "\r", and
// parse each line alone.
func wantAll(input string) []string {
	var out []string
	if input == "" {
		return nil
	}
	lines := strings.Split(input, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for _, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		u, err := parseWalkOnly(l)
		if err != nil {
			out = append(out, l+" => "+err.Error())
		} else {
			out = append(out, l+" => "+render(u, nil)+extras(&u))
		}
	}
	return out
}

// extras renders what render leaves out: the authority and every span.
func extras(u *URI) string {
	var b strings.Builder
	b.WriteString(" authority=" + u.Authority())
	for c := Scheme; c < numComponents; c++ {
		if s, e, ok := u.Span(c); ok {
			fmt.Fprintf(&b, " %v@%d-%d", c, s, e)
		}
	}
	if p, ok := u.PortNumber(); ok {
		fmt.Fprintf(&b, " port#%d", p)
	}
	return b.String()
}

func batchInputs() []string {
	var cases []string
	var all strings.Builder
	for _, c := range parseCases {
		if !strings.ContainsAny(c.in, "\n\r") {
			all.WriteString(c.in)
			all.WriteByte('\n')
		}
	}
	cases = append(cases,
		"", "\n", "\n\n", "a", "a\n", "a\r\n", "a\r\nb", "a\rb\n", "\r\n", "\r", "x\r\r\n",
		"http://h?\nhttp://a b\n\nfile:///x\r\n#f#g", "%\n%4\n%41\n", "http://[::1\n]\n",
		"a:\n//x\n", "//\n/\n", strings.Repeat("http://example.com/a?b#c\n", 100),
		all.String(), strings.ReplaceAll(all.String(), "\n", "\r\n"),
	)
	return cases
}

func TestLineScannerMatchesParse(t *testing.T) {
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, in := range batchInputs() {
			want := wantAll(in)
			for mode, s := range map[string]*LineScanner{
				"bytes":   newLineScannerBytes([]byte(in), e),
				"reader":  newLineScanner(strings.NewReader(in), e),
				"onebyte": newLineScanner(iotest.OneByteReader(strings.NewReader(in)), e),
				"half":    newLineScanner(iotest.HalfReader(strings.NewReader(in)), e),
				"dataerr": newLineScanner(iotest.DataErrReader(strings.NewReader(in)), e),
			} {
				got := scanAll(t, s)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("%s %.60q:\ngot  %q\nwant %q", mode, in, got, want)
				}
			}
		}
	})
}

func TestLineScannerRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"http://", "h", "/", "?", "#", "%41", "%4", "[::1]", ":80", "@", " ", "\n", "\r\n", "\r", "a:", "[", "\x00", "\xff"}
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for i := 0; i < 300; i++ {
			var b strings.Builder
			for k := rng.IntN(400); k > 0; k-- {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			in := b.String()
			want := strings.Join(wantAll(in), "\n")
			if got := strings.Join(scanAll(t, newLineScannerBytes([]byte(in), e)), "\n"); got != want {
				t.Fatalf("bytes %q:\ngot  %s\nwant %s", in, got, want)
			}
			if got := strings.Join(scanAll(t, newLineScanner(iotest.HalfReader(strings.NewReader(in)), e)), "\n"); got != want {
				t.Fatalf("reader %q:\ngot  %s\nwant %s", in, got, want)
			}
		}
	})
}

// TestLineScannerLongLines crosses the read buffer with lines longer than it.
func TestLineScannerLongLines(t *testing.T) {
	long := "http://h/" + strings.Repeat("a", DefaultBufferSize+100) + "?q"
	in := "a\n" + long + "\n" + long + " x\r\n" + "b"
	want := wantAll(in)
	got := scanAll(t, NewLineScanner(strings.NewReader(in)))
	if len(got) != 4 || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
}

// TestLineScannerReadError: a read error at a line boundary ends the scan
// with that error; one in the middle of a line makes the partial line a
// *TruncatedError, never a record.
func TestLineScannerReadError(t *testing.T) {
	boom := errors.New("boom")
	for _, tc := range []struct {
		in   string
		recs string
		cut  *TruncatedError
	}{
		{"a\nb\n", "a,b", nil},
		{"a\nb\nhttps://www.ke", "a,b", &TruncatedError{Line: 3, Offset: 4, Len: 14}},
		{"", "", nil},
		{"x", "", &TruncatedError{Line: 1, Offset: 0, Len: 1}},
	} {
		for name, r := range map[string]io.Reader{
			"whole":   io.MultiReader(strings.NewReader(tc.in), iotest.ErrReader(boom)),
			"onebyte": io.MultiReader(iotest.OneByteReader(strings.NewReader(tc.in)), iotest.ErrReader(boom)),
		} {
			s := NewLineScanner(r)
			var recs []string
			for s.Scan() {
				recs = append(recs, string(s.Bytes()))
			}
			if got := strings.Join(recs, ","); got != tc.recs {
				t.Errorf("%q %s: records %q, want %q", tc.in, name, got, tc.recs)
			}
			err := s.Err()
			if !errors.Is(err, boom) {
				t.Errorf("%q %s: Err() = %v, want boom", tc.in, name, err)
			}
			var te *TruncatedError
			if got := errors.As(err, &te); got != (tc.cut != nil) {
				t.Errorf("%q %s: Err() = %v, truncated %v, want %v", tc.in, name, err, got, tc.cut != nil)
			} else if got && (te.Line != tc.cut.Line || te.Offset != tc.cut.Offset || te.Len != tc.cut.Len || !errors.Is(err, ErrTruncated)) {
				t.Errorf("%q %s: %+v, want %+v", tc.in, name, *te, *tc.cut)
			}
		}
	}
}

// scanRecords renders every record of s with its line, offsets, bytes and
// verdict, and the error that ended the scan.
func scanRecords(s *LineScanner) []string {
	var out []string
	for s.Scan() {
		r := fmt.Sprintf("%d@%d-%d %q", s.Line(), s.Offset(), s.NextOffset(), s.Bytes())
		if n, ok := s.TooLong(); ok {
			r += fmt.Sprintf(" toolong(%d)", n)
		}
		if e := s.ParseError(); e != nil {
			r += " " + e.Error()
		} else if !s.Valid() {
			r += " invalid without an error"
		}
		out = append(out, r)
	}
	if err := s.Err(); err != nil {
		out = append(out, "err "+err.Error())
	}
	return out
}

// wantRecords is scanRecords' model: split on "\n", trim one "\r",
// records over lim are too long and keep LongLineKept bytes, the rest
// parse alone; truncated (a read error after the input) drops an
// unterminated last line.
func wantRecords(in string, lim int, truncErr error) []string {
	var out []string
	off := 0
	line := 0
	for off < len(in) {
		line++
		end := strings.IndexByte(in[off:], '\n')
		next := off + end + 1
		if end < 0 {
			if truncErr != nil {
				out = append(out, "err "+(&TruncatedError{Line: line, Offset: int64(off), Len: int64(len(in) - off), Err: truncErr}).Error())
				return out
			}
			end, next = len(in)-off, len(in)
		}
		rec := strings.TrimSuffix(in[off:off+end], "\r")
		r := ""
		if len(rec) > lim {
			head := rec[:min(len(rec), LongLineKept)]
			e := &Error{Input: head, Offset: lim, Component: numComponents, Err: ErrTooLong, code: errLineTooLong, arg: len(rec)}
			r = fmt.Sprintf("%d@%d-%d %q toolong(%d) %s", line, off, next, head, len(rec), e.Error())
		} else {
			r = fmt.Sprintf("%d@%d-%d %q", line, off, next, rec)
			if _, err := parseWalkOnly(rec); err != nil {
				r += " " + err.Error()
			}
		}
		out = append(out, r)
		off = next
	}
	if truncErr != nil {
		out = append(out, "err "+truncErr.Error())
	}
	return out
}

// TestLineScannerMaxLine: records around and far over the line limit, in
// every read pattern, give the model's records: a too-long one is
// reported with its length and the scan goes on.
func TestLineScannerMaxLine(t *testing.T) {
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, lim := range []int{1, 7, LongLineKept, 300, 1000, DefaultBufferSize - 2, DefaultBufferSize + 5} {
			var lines []string
			for _, n := range []int{0, 1, lim - 1, lim, lim + 1, lim + 2, 2 * lim, 3*DefaultBufferSize + 7} {
				if n < 0 {
					continue
				}
				body := "http://h/" + strings.Repeat("p", max(n-9, 0))
				body = body[:n]
				lines = append(lines, body+"\n", body+"\r\n", "%"+body[min(1, n):]+"\n")
			}
			in := strings.Join(lines, "") + "http://after/\n" + strings.Repeat("z", lim+1)
			want := strings.Join(wantRecords(in, lim, nil), "\n")
			small := func() *LineScanner {
				s := &LineScanner{eng: e}
				s.Buffer(make([]byte, 2*LongLineKept), lim)
				return s
			}
			for name, s := range map[string]func() *LineScanner{
				"bytes":   func() *LineScanner { s := small(); s.ResetBytes([]byte(in)); return s },
				"reader":  func() *LineScanner { s := small(); s.Reset(strings.NewReader(in)); return s },
				"onebyte": func() *LineScanner { s := small(); s.Reset(iotest.OneByteReader(strings.NewReader(in))); return s },
				"half":    func() *LineScanner { s := small(); s.Reset(iotest.HalfReader(strings.NewReader(in))); return s },
				"default": func() *LineScanner { s := newLineScanner(strings.NewReader(in), e); s.SetMaxLine(lim); return s },
			} {
				if got := strings.Join(scanRecords(s()), "\n"); got != want {
					t.Fatalf("limit %d, %s:\n%s", lim, name, firstDiff(got, want))
				}
			}
			boom := errors.New("boom")
			s := small()
			s.Reset(io.MultiReader(strings.NewReader(in), iotest.ErrReader(boom)))
			if got, want := strings.Join(scanRecords(s), "\n"), strings.Join(wantRecords(in, lim, boom), "\n"); got != want {
				t.Fatalf("limit %d, truncated:\n%s", lim, firstDiff(got, want))
			}
		}
	})
}

// firstDiff shows where two renderings part.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := range max(len(g), len(w)) {
		var a, b string
		if i < len(g) {
			a = g[i]
		}
		if i < len(w) {
			b = w[i]
		}
		if a != b {
			return fmt.Sprintf("record %d:\ngot  %.300s\nwant %.300s", i, a, b)
		}
	}
	return "equal"
}

// endless yields n bytes of b, without holding them.
type endless struct {
	n int64
	b byte
}

func (r *endless) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.n)]
	for i := range p {
		p[i] = r.b
	}
	r.n -= int64(len(p))
	return len(p), nil
}

// TestLineScannerLongLineMemory: a line of 64 MiB goes by with the buffer
// at its limit (1 MiB + 2 by default), reported with its length, and the
// next line is read.
func TestLineScannerLongLineMemory(t *testing.T) {
	const n = 64 << 20
	for _, b := range []byte{'a', '%', 0xff} {
		s := NewLineScanner(io.MultiReader(strings.NewReader("http://before/\nhttp://x/"), &endless{n, b}, strings.NewReader("\nhttp://after/\n")))
		var got []string
		for s.Scan() {
			r := string(s.Bytes())
			if l, ok := s.TooLong(); ok {
				r = fmt.Sprintf("%.12s...(%d) %v", r, l, errors.Is(s.ParseError(), ErrTooLong))
			}
			got = append(got, r)
		}
		want := fmt.Sprintf("http://before/|http://x/%s...(%d) true|http://after/", []byte{b, b, b}, n+9)
		if strings.Join(got, "|") != want || s.Err() != nil {
			t.Fatalf("byte %q: got %q, err %v", b, strings.Join(got, "|"), s.Err())
		}
		if len(s.buf) > DefaultMaxLine+2 {
			t.Fatalf("byte %q: the buffer grew to %d bytes, over the limit %d+2", b, len(s.buf), DefaultMaxLine)
		}
	}
}

func TestLineScannerErrorOffsets(t *testing.T) {
	s := NewLineScannerBytes([]byte("ok\nhttp://a b\r\n\n[x\n"))
	var got []string
	for s.Scan() {
		if e := s.ParseError(); e != nil {
			got = append(got, e.Input+"@"+e.Component.String()+":"+e.Reason()+":"+string(rune('0'+e.Offset)))
		}
	}
	want := []string{"http://a b@host:invalid character ' ' in host:8", "[x@path:invalid character '[' in path (brackets are allowed only around an IP-literal host):0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got  %q\nwant %q", got, want)
	}
}

func TestLineScannerZeroAllocs(t *testing.T) {
	in := []byte(strings.Repeat("http://u@example.com:80/a/b?c#d\nnot valid\n[::1]\n", 50))
	s := NewLineScannerBytes(in)
	r := bytes.NewReader(in)
	rs := NewLineScanner(r)
	if n := testing.AllocsPerRun(20, func() {
		s.ResetBytes(in)
		for s.Scan() {
			_ = s.Valid()
		}
		r.Reset(in)
		rs.Reset(r)
		for rs.Scan() {
			_ = rs.Valid()
		}
	}); n != 0 {
		t.Errorf("%v allocations per scan of %d records, want 0", n, 150)
	}
}

// TestLineScannerFastLong covers the batch fast path's long records (no
// "\n" in their first 64 bytes): every length from 40 to 300 bytes, with
// a byte that must send the record to the walk (or end a component)
// placed at positions on both sides of every 64-byte boundary, records
// starting at every offset of a block and crossing window edges.
func TestLineScannerFastLong(t *testing.T) {
	var b strings.Builder
	heads := []string{"http://example.com/", "file:///", "https://a.b/c/", "x:/", "mailto:",
		"http://" + strings.Repeat("h", 70) + "/", "http://" + strings.Repeat("h", 50) + "/"}
	specials := []byte{'%', '?', '#', '[', ' ', '\r', ':', '@', '/', 0x80}
	n := 0
	for length := 40; length <= 300; length++ {
		head := heads[length%len(heads)]
		if len(head) >= length {
			head = heads[0]
		}
		rec := []byte(head + strings.Repeat("p", length-len(head)))
		b.Write(rec)
		b.WriteByte('\n')
		for pos := len(head); pos < length; pos++ {
			if d := pos % 64; d > 2 && d < 62 && pos%9 != 0 {
				continue
			}
			c := specials[n%len(specials)]
			n++
			r := append([]byte(nil), rec...)
			r[pos] = c
			b.Write(r)
			b.WriteByte('\n')
		}
	}
	// Long records with a query and a fragment, and a third special byte.
	for length := 64; length <= 200; length += 3 {
		rec := []byte("http://example.com/" + strings.Repeat("p", length-19))
		rec[length/2], rec[3*length/4] = '?', '#'
		for pos := 19; pos < length; pos += 5 {
			r := append([]byte(nil), rec...)
			if r[pos] == 'p' {
				r[pos] = specials[n%len(specials)]
				n++
			}
			b.Write(r)
			b.WriteByte('\n')
		}
	}
	in := b.String() + "http://h/" + strings.Repeat("z", 100) // no final "\n"
	forEachScanPath(t, func(t *testing.T, e *engine) {
		want := wantAll(in)
		got := scanAll(t, newLineScannerBytes([]byte(in), e))
		if len(got) != len(want) {
			t.Fatalf("%d records, want %d", len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("record %d:\ngot  %s\nwant %s", i+1, got[i], want[i])
			}
		}
		if got := strings.Join(scanAll(t, newLineScanner(iotest.HalfReader(strings.NewReader(in)), e)), "\n"); got != strings.Join(want, "\n") {
			t.Fatal("reader: records differ from ParseString's")
		}
	})
}

// TestLineScannerSharedLists scans each shared URL list whole (every
// kernel, with and without the batch assembly) and compares every record
// with ParseString of the line.
func TestLineScannerSharedLists(t *testing.T) {
	if testing.Short() {
		t.Skip("long: the shared lists with every scan path")
	}
	for _, name := range shareddata.URLLists {
		data := shareddata.URLList(t, name)
		want := wantAll(string(data))
		forEachScanPath(t, func(t *testing.T, e *engine) {
			got := scanAll(t, newLineScannerBytes(data, e))
			if len(got) != len(want) {
				t.Fatalf("%s: %d records, want %d", name, len(got), len(want))
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s record %d:\ngot  %s\nwant %s", name, i+1, got[i], want[i])
				}
			}
		})
	}
}

// TestLineScannerLastWindow ends the input, after windows full of short
// records, with a last record without "\n" of every length around the
// block edges, so that the last window is shorter than the one before it
// and the masks past the input must read as empty.
func TestLineScannerLastWindow(t *testing.T) {
	head := strings.Repeat("http://a.b/c\n", 50) // 650 bytes: two windows, newlines everywhere
	var inputs []string
	for pad := 0; pad < 70; pad += 9 {
		for k := 0; k <= 140; k++ {
			inputs = append(inputs, head+strings.Repeat("x", pad)+"\nhttp://h/"+strings.Repeat("p", k))
		}
	}
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, in := range inputs {
			want := strings.Join(wantAll(in), "\n")
			if got := strings.Join(scanAll(t, newLineScannerBytes([]byte(in), e)), "\n"); got != want {
				t.Fatalf("input of %d bytes:\ngot  %s\nwant %s", len(in), got[max(0, len(got)-300):], want[max(0, len(want)-300):])
			}
		}
	})
}

// TestLineScannerLongFastScheme covers schemes that end near a long
// record's first 64 bytes, so that its "//" straddles them.
func TestLineScannerLongFastScheme(t *testing.T) {
	var b strings.Builder
	for f := 56; f <= 66; f++ {
		b.WriteString("a" + strings.Repeat("b", f-1) + "://host/path\n")
		b.WriteString("a" + strings.Repeat("b", f-1) + "://" + strings.Repeat("h", 70) + "/p\n")
	}
	in := b.String()
	forEachScanPath(t, func(t *testing.T, e *engine) {
		if got, want := strings.Join(scanAll(t, newLineScannerBytes([]byte(in), e)), "\n"), strings.Join(wantAll(in), "\n"); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// TestLineScannerNearShapes feeds records one byte away from the shape
// the batch assembly takes, each of which it must leave to the walk.
func TestLineScannerNearShapes(t *testing.T) {
	recs := []string{
		"http_://h/", "http!://h/", "httpz://h/", "https://h/", "htt://h/", "file://h/", "filex://h/",
		"http:/h/p", "http:h/p", "http://h/p#a#b", "http://h#a%zz", "http://h#a[b", "http://h?a#b#c",
		"http://h/p?q?r", "http://h/p?%41#%4", "http://1.2.3.4/", "http://1.2.3.400/", "http://a.b.c.d9/",
		"http://h:80/", "http://u@h/", "http://[::1]/", "http://h%41/", "http://", "http:", "https:",
		"http://h", "http://h?", "http://h#", "http://h?#",
	}
	var b strings.Builder
	for pad := 0; pad < 64; pad += 5 {
		b.WriteString(strings.Repeat("x", pad) + "\n")
		for _, r := range recs {
			b.WriteString(r + "\n")
			b.WriteString(r + strings.Repeat("q", 70) + "\n") // and long
		}
	}
	in := b.String()
	forEachScanPath(t, func(t *testing.T, e *engine) {
		if got, want := strings.Join(scanAll(t, newLineScannerBytes([]byte(in), e)), "\n"), strings.Join(wantAll(in), "\n"); got != want {
			t.Fatalf("got  %s\nwant %s", got, want)
		}
	})
}

// TestLineScannerNoOverread ends the input flush against a PROT_NONE page
// with unterminated records whose next bytes the scanner must not read,
// starting at every offset of a block.
func TestLineScannerNoOverread(t *testing.T) {
	mem := pagetest.BeforeGuard(t)
	tails := []string{"http:", "https:", "http:/", "http://", "http://h", "http://h/p?q#", "file://" + strings.Repeat("p", 70),
		// a "%" whose HEXDIGs the fast paths check: the input ends first
		"http://h/%", "http://h/%4", "file:///" + strings.Repeat("p", 70) + "%", "file:///" + strings.Repeat("p", 70) + "%4",
		"file:///" + strings.Repeat("p", 55) + "%4", "file:///" + strings.Repeat("p", 54) + "%4"} // "%" at the first word's end
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, tail := range tails {
			for pad := 0; pad < 4*64; pad++ {
				// Whole records, then a filler record, so that the tail
				// is a record of its own starting at every offset of a
				// block, within windows of both lengths.
				head := strings.Repeat("http://a.b/c\n", []int{0, 5, 20, 39}[pad/64]) + strings.Repeat("x", pad%64) + "\n"
				in := mem[len(mem)-len(head)-len(tail):]
				copy(in, head+tail)
				want := strings.Join(wantAll(head+tail), "\n")
				if got := strings.Join(scanAll(t, newLineScannerBytes(in, e)), "\n"); got != want {
					t.Fatalf("tail %q pad %d:\ngot  %s\nwant %s", tail, pad, got, want)
				}
			}
		}
	})
}

// TestLineScannerHugeBuffer checks that a buffer longer than MaxLength is
// scanned as a stream (MaxLength lowered to keep the test small), and that
// the line limit is held under it.
func TestLineScannerHugeBuffer(t *testing.T) {
	in := strings.Repeat("http://a.b/c?d#e\nmailto:x@y\n", 200)
	s := &LineScanner{inPlaceMax: 1000}
	s.ResetBytes([]byte(in))
	if s.r == nil {
		t.Fatal("a buffer over the limit is scanned in place")
	}
	if got, want := strings.Join(scanAll(t, s), "\n"), strings.Join(wantAll(in), "\n"); got != want {
		t.Fatal("a buffer over the limit scans differently")
	}
	const inPlace = 3 * DefaultBufferSize / 2
	s = &LineScanner{inPlaceMax: inPlace}
	s.Reset(strings.NewReader("a\n" + strings.Repeat("b", 2*DefaultBufferSize) + "\nc\n"))
	if s.MaxLine() != inPlace-2 {
		t.Fatalf("MaxLine() = %d, want %d", s.MaxLine(), inPlace-2)
	}
	var got []string
	for s.Scan() {
		l, _ := s.TooLong()
		got = append(got, fmt.Sprintf("%.3s:%d", s.Bytes(), l))
	}
	if strings.Join(got, " ") != fmt.Sprintf("a:0 bbb:%d c:0", 2*DefaultBufferSize) || s.Err() != nil {
		t.Fatalf("got %q, Err() = %v", got, s.Err())
	}
}

// fastShapes are records in every shape the batch assembly
// (fastBatchBMI2) and the Go fast path ((*walker).fast) document:
//
//	("http" / "https" / "file") "://" reg-name path [ "?" query ] [ "#" fragment ]
//
// short and of 64 bytes and more, each of which both must take.
func fastShapes() []string {
	long := strings.Repeat("abcdefghij", 8) // 80 bytes
	return []string{
		"http://a/",
		"http://example.com",
		"https://example.com/",
		"https://www.example.com/a/b/c.html",
		"file:///etc/passwd",
		"file://host/share/x.txt",
		"http://example.com/p?q=1",
		"http://example.com/p#frag",
		"http://example.com/p?q=1&r=2#frag",
		"https://h?q",
		"https://h#f",
		"http://example.com/?#",
		"http://example.com?#",
		"http://example.com/a:b@c/d!$&'()*+,;=-._~",
		"http://host-with-dash.example/p?a=b/c:d@e#x/y:z@w",
		"http://1.2.3/",                       // digits, too short for an IPv4address
		"http://www.example.com1a/",           // ends in a letter
		"https://www.example.com/" + long,     // long path
		"https://www.example.com/p?" + long,   // long query
		"https://www.example.com/p#" + long,   // long fragment
		"http://example.com/" + long + "?q#f", // events after the first word
		"http://example.com/p?" + long + "#" + long,
		"https://www.example.com/" + strings.Repeat(long, 4) + "?" + long + "#" + long, // 6 blocks
		"file:///" + long,
		"file:///Users/x/node_modules/%40types/node?a=%2F#%7E", // pct-encoded in path, query and fragment
		"https://h/" + long + "%41" + long + "?q=%4a#%4F",      // and in the words after the first
	}
}

// TestFastPathDirect calls the batch assembly and the Go fast path
// directly on each record of fastShapes and checks that each takes it
// (with the components ParseString gives). It needs no build tag, so a
// plain go test fails when either stops taking records; paths_test.go
// (uriscan_pathstats) counts what they take inside a LineScanner.
func TestFastPathDirect(t *testing.T) {
	forEachKernel(t, func(t *testing.T, e *engine) {
		for _, rec := range fastShapes() {
			want, err := parseWalkOnly(rec)
			if err != nil {
				t.Fatalf("%q: %v", rec, err)
			}
			wantText := render(want, nil) + extras(&want)
			s := newLineScannerBytes([]byte(rec+"\n"), e)
			s.w.refillAt(0) // classify the window, as Scan does first
			u := &s.u
			if end, ok := s.w.fast(u, 0); !ok || end != len(rec) {
				t.Errorf("%q: the Go fast path declined it (end %d, ok %v)", rec, end, ok)
			} else if got := render(*u, nil) + extras(u); got != wantText {
				t.Errorf("%q: Go fast path\ngot  %s\nwant %s", rec, got, wantText)
			}
			if !e.fastBatch {
				continue
			}
			s = newLineScannerBytes([]byte(rec+"\n"), e)
			s.w.refillAt(0)
			n, stop := s.w.fastBatch(0, &s.recs)
			if n != 1 {
				t.Errorf("%q: the batch assembly took %d records (stop %d), want 1", rec, n, stop)
				continue
			}
			s.u.uriFields = s.recs[0]
			if got := render(s.u, nil) + extras(&s.u); got != wantText {
				t.Errorf("%q: batch assembly\ngot  %s\nwant %s", rec, got, wantText)
			}
		}
	})
}

// onceReader hands out its data in one read, then fails the test if it is
// read again before the scan has taken every whole line it gave.
type onceReader struct {
	t    *testing.T
	data []byte
	done *bool
}

func (r *onceReader) Read(p []byte) (int, error) {
	if r.data == nil {
		if !*r.done {
			r.t.Fatal("read again with whole lines in the buffer")
		}
		return 0, io.EOF
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	if len(r.data) == 0 {
		r.data = nil
	}
	return n, nil
}

// TestLineScannerAfterLongLine: the lines after a line read past, in the
// same read, are taken before the next read (which may block: tail -f).
func TestLineScannerAfterLongLine(t *testing.T) {
	done := false
	in := strings.Repeat("x", 2000) + "\nhttp://a/\nhttp://b/\n"
	s := &LineScanner{}
	s.Buffer(make([]byte, 1024), 100)
	s.Reset(&onceReader{t: t, data: []byte(in), done: &done})
	var got []string
	for len(got) < 3 && s.Scan() {
		got = append(got, fmt.Sprintf("%.3s", s.Bytes()))
	}
	done = true
	if s.Scan() || strings.Join(got, " ") != "xxx htt htt" || s.Err() != nil {
		t.Fatalf("got %q, Err %v", got, s.Err())
	}
}

// TestParseErrorTo: ParseErrorTo gives what ParseError gives, for every
// kind of invalid record (over the line limit too), and allocates nothing.
func TestParseErrorTo(t *testing.T) {
	var in strings.Builder
	for _, c := range parseCases {
		if !strings.ContainsAny(c.in, "\r\n") {
			in.WriteString(c.in + "\n")
		}
	}
	in.WriteString(strings.Repeat("a", 300) + "\n")
	s := NewLineScannerBytes([]byte(in.String()))
	s.SetMaxLine(200)
	invalid := 0
	var e Error
	for s.Scan() {
		want := s.ParseError()
		if got := s.ParseErrorTo(&e); got != (want != nil) {
			t.Fatalf("line %d: ParseErrorTo = %v, ParseError = %v", s.Line(), got, want)
		}
		if want == nil {
			continue
		}
		invalid++
		if e != *want || e.Reason() != want.Reason() {
			t.Errorf("line %d: ParseErrorTo %+v, ParseError %+v", s.Line(), e, *want)
		}
		buf := make([]byte, 0, 512)
		if n := testing.AllocsPerRun(10, func() { s.ParseErrorTo(&e); buf = e.AppendReason(buf[:0]) }); n != 0 {
			t.Errorf("line %d: %v allocations", s.Line(), n)
		}
	}
	if invalid < 50 {
		t.Fatalf("only %d invalid records", invalid)
	}
}

// TestLineScannerSkipBOM: with SkipBOM a UTF-8 byte-order mark at the
// very start is not part of line 1, in bytes and stream mode, whatever
// the reads' sizes; offsets still count it; a mark anywhere else, a part
// of one, or one after StartAt is read as bytes; without SkipBOM the
// input is read as given.
func TestLineScannerSkipBOM(t *testing.T) {
	type rec struct {
		text  string
		off   int64
		valid bool
	}
	scan := func(in string, skip bool, stream bool) []rec {
		var s *LineScanner
		if stream {
			s = NewLineScanner(iotest.OneByteReader(strings.NewReader(in)))
		} else {
			s = NewLineScannerBytes([]byte(in))
		}
		s.SkipBOM(skip)
		var out []rec
		for s.Scan() {
			out = append(out, rec{string(s.Bytes()), s.Offset(), s.Valid()})
		}
		if err := s.Err(); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		return out
	}
	for _, c := range []struct {
		in   string
		skip bool
		want []rec
	}{
		{UTF8BOM + "http://a/\nb\n", true, []rec{{"http://a/", 3, true}, {"b", 13, true}}},
		{UTF8BOM + "http://a/\nb\n", false, []rec{{UTF8BOM + "http://a/", 0, false}, {"b", 13, true}}},
		{UTF8BOM, true, nil},
		{UTF8BOM + "\n", true, []rec{{"", 3, true}}},
		{"\xef\xbb", true, []rec{{"\xef\xbb", 0, false}}},
		{"\xef\xbbx\n", true, []rec{{"\xef\xbbx", 0, false}}},
		{"a\n" + UTF8BOM + "b\n", true, []rec{{"a", 0, true}, {UTF8BOM + "b", 2, false}}},
		{UTF8BOM + UTF8BOM + "a\n", true, []rec{{UTF8BOM + "a", 3, false}}},
	} {
		for _, stream := range []bool{false, true} {
			if got := scan(c.in, c.skip, stream); !slices.Equal(got, c.want) {
				t.Errorf("%q, SkipBOM(%v), stream %v: %+v, want %+v", c.in, c.skip, stream, got, c.want)
			}
		}
	}
	// After StartAt (a resumed scan), nothing is skipped.
	s := NewLineScanner(strings.NewReader(UTF8BOM + "a\n"))
	s.SkipBOM(true)
	s.StartAt(100, 7)
	if !s.Scan() || string(s.Bytes()) != UTF8BOM+"a" || s.Offset() != 100 || s.Line() != 8 {
		t.Errorf("after StartAt: %q at %d, line %d", s.Bytes(), s.Offset(), s.Line())
	}
	// Reset keeps the setting for the next input.
	s.Reset(strings.NewReader(UTF8BOM + "http://x/\n"))
	if !s.Scan() || !s.Valid() || s.Offset() != 3 {
		t.Errorf("after Reset: %q valid %v at %d", s.Bytes(), s.Valid(), s.Offset())
	}
}

// TestLineScannerSkipBOMKasztp: kasztp.txt starts with a byte-order mark;
// with SkipBOM its line 1 is the valid URI it is (as uriscan validate
// says), without it line 1 is invalid.
func TestLineScannerSkipBOMKasztp(t *testing.T) {
	data := shareddata.URLList(t, "kasztp")
	if !bytes.HasPrefix(data, []byte(UTF8BOM)) {
		t.Fatal("kasztp.txt no longer starts with a byte-order mark")
	}
	for _, skip := range []bool{false, true} {
		s := NewLineScannerBytes(data)
		s.SkipBOM(skip)
		if !s.Scan() || s.Valid() != skip {
			t.Errorf("SkipBOM(%v): line 1 %q valid = %v", skip, s.Bytes(), s.Valid())
		}
	}
}

// TestLineScannerSkipBOMStartAt: in bytes mode, a buffer that starts in
// the middle of an input (StartAt with an offset) keeps a mark at its
// start: it is the input's bytes, and the offsets stay right.
func TestLineScannerSkipBOMStartAt(t *testing.T) {
	s := NewLineScannerBytes([]byte(UTF8BOM + "a\nb\n"))
	s.SkipBOM(true)
	s.StartAt(20, 4)
	if !s.Scan() || string(s.Bytes()) != UTF8BOM+"a" || s.Offset() != 20 || s.Line() != 5 {
		t.Errorf("first record %q at %d line %d, want the mark and a at 20, line 5", s.Bytes(), s.Offset(), s.Line())
	}
	if !s.Scan() || string(s.Bytes()) != "b" || s.Offset() != 25 {
		t.Errorf("second record %q at %d, want b at 25", s.Bytes(), s.Offset())
	}
}
