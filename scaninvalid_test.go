package uriscan

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// invalidRecord is what a caller of ScanInvalid sees of a record.
type invalidRecord struct {
	line   int
	offset int64
	text   string
	err    string
}

func (r invalidRecord) String() string {
	return fmt.Sprintf("line %d offset %d %q: %s", r.line, r.offset, r.text, r.err)
}

// invalidByScan is the reference: Scan, keeping the records that are not
// Valid.
func invalidByScan(s *LineScanner) (recs []invalidRecord, lines int) {
	for s.Scan() {
		if !s.Valid() {
			recs = append(recs, invalidRecord{s.Line(), s.Offset(), string(s.Bytes()), s.ParseError().Error()})
		}
	}
	return recs, s.Line()
}

func invalidByScanInvalid(s *LineScanner) (recs []invalidRecord, lines int) {
	for s.ScanInvalid() {
		if s.Valid() {
			recs = append(recs, invalidRecord{-1, -1, string(s.Bytes()), "Valid after ScanInvalid"})
			continue
		}
		var e Error
		if !s.ParseErrorTo(&e) {
			recs = append(recs, invalidRecord{-2, -2, string(s.Bytes()), "ParseErrorTo false"})
			continue
		}
		recs = append(recs, invalidRecord{s.Line(), s.Offset(), string(s.Bytes()), e.Error()})
	}
	return recs, s.Line()
}

// scanInvalidInputs are the bundled sample and the shared lists, and
// generated inputs: valid lines with invalid ones, blank lines, CRLF,
// long lines, no final newline.
func scanInvalidInputs(t *testing.T) []shareddata.List {
	lists := shareddata.SampleAndLists(t, "testdata/sample.txt")
	r := rand.New(rand.NewPCG(38, 1))
	parts := []string{"http://a.example/p?q#f", "https://user@h:8080/x/y", "mailto:a@b", "", "/rel/path", "http://bad host/",
		"http://[::1]/", "http://[1::2::3]/", "%zz", "a\r", strings.Repeat("http://h/"+strings.Repeat("a", 90), 3), "http://h/\x7f",
		strings.Repeat("x", 5000), "?q", "#f", "//h:99999/"}
	for n := range 4 {
		var b strings.Builder
		for range 3000 * (n + 1) {
			b.WriteString(parts[r.IntN(len(parts))])
			b.WriteByte('\n')
		}
		s := b.String()
		if n%2 == 1 {
			s = s[:len(s)-1] // no final newline
		}
		lists = append(lists, shareddata.List{Name: fmt.Sprint("generated", n), Data: []byte(s)})
	}
	return lists
}

// TestScanInvalid: ScanInvalid gives exactly the records Scan gives that
// are not Valid (line, offset, bytes, error), and counts the same lines,
// on every kernel and scan path, from a buffer and from readers (whole,
// half and one byte at a time), with the default line limit and a small
// one.
func TestScanInvalid(t *testing.T) {
	inputs := scanInvalidInputs(t)
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, in := range inputs {
			for _, maxLine := range []int{0, 100} {
				newScanner := map[string]func() *LineScanner{
					"bytes":  func() *LineScanner { return newLineScannerBytes(in.Data, e) },
					"reader": func() *LineScanner { return newLineScanner(bytes.NewReader(in.Data), e) },
					"half":   func() *LineScanner { return newLineScanner(iotest.HalfReader(bytes.NewReader(in.Data)), e) },
				}
				if len(in.Data) > 300000 {
					delete(newScanner, "half")
				}
				for how, mk := range newScanner {
					a, b := mk(), mk()
					if maxLine > 0 {
						a.SetMaxLine(maxLine)
						b.SetMaxLine(maxLine)
					}
					want, wantLines := invalidByScan(a)
					got, gotLines := invalidByScanInvalid(b)
					if a.Err() != nil || b.Err() != nil {
						t.Fatalf("%s %s: errors %v, %v", in.Name, how, a.Err(), b.Err())
					}
					if gotLines != wantLines || len(got) != len(want) {
						t.Fatalf("%s %s max %d: %d invalid of %d lines, want %d of %d", in.Name, how, maxLine, len(got), gotLines, len(want), wantLines)
					}
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s %s max %d: invalid record %d:\n got %v\nwant %v", in.Name, how, maxLine, i, got[i], want[i])
						}
					}
				}
			}
		}
	})
}

// FuzzScanInvalid: on any input, with the default line limit and a small
// one, ScanInvalid and Scan agree (see TestScanInvalid).
func FuzzScanInvalid(f *testing.F) {
	f.Add([]byte("http://a/\nhttp://b c/\n\nx\r\n%zz"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, maxLine := range []int{0, 40} {
			a, b := NewLineScannerBytes(data), NewLineScannerBytes(data)
			if maxLine > 0 {
				a.SetMaxLine(maxLine)
				b.SetMaxLine(maxLine)
			}
			want, wl := invalidByScan(a)
			got, gl := invalidByScanInvalid(b)
			if gl != wl || fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("max line %d: ScanInvalid: %d lines %v\nScan: %d lines %v", maxLine, gl, got, wl, want)
			}
		}
	})
}

// BenchmarkScanInvalid: the invalid records of each list (a validator's
// loop), against Scan with a Valid check, per kernel.
func BenchmarkScanInvalid(b *testing.B) {
	for _, name := range shareddata.URLLists {
		b.Run("corpus="+name, func(b *testing.B) {
			data := shareddata.URLList(b, name)
			nlines := bytes.Count(data, []byte("\n")) + 1
			for _, k := range availableKernels() {
				for _, how := range []string{"ScanInvalid", "Scan"} {
					b.Run("impl="+k.String()+"/loop="+how, func(b *testing.B) {
						s := newLineScannerBytes(data, kernelEngine(k))
						b.SetBytes(int64(len(data)))
						b.ReportAllocs()
						n := 0
						for b.Loop() {
							s.ResetBytes(data)
							if how == "Scan" {
								for s.Scan() {
									if !s.Valid() {
										n++
									}
								}
							} else {
								for s.ScanInvalid() {
									n++
								}
							}
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(nlines), "ns/URL")
					})
				}
			}
		})
	}
}

// TestScanInvalidMixed: Scan and ScanInvalid may take turns on one
// scanner (a caller that looks at some valid records), and StartAt's
// line and offset carry through ScanInvalid's steps: every record either
// call stops at is the one a Scan-only pass has at that line.
func TestScanInvalidMixed(t *testing.T) {
	inputs := scanInvalidInputs(t)
	forEachScanPath(t, func(t *testing.T, e *engine) {
		for _, in := range inputs {
			ref := newLineScannerBytes(in.Data, e)
			ref.StartAt(1000, 7)
			type rec struct {
				off   int64
				text  string
				valid bool
			}
			byLine := map[int]rec{}
			for ref.Scan() {
				byLine[ref.Line()] = rec{ref.Offset(), string(ref.Bytes()), ref.Valid()}
			}
			s := newLineScannerBytes(in.Data, e)
			s.StartAt(1000, 7)
			for i := 0; ; i++ {
				var ok bool
				if i%3 == 0 {
					ok = s.Scan()
				} else {
					ok = s.ScanInvalid()
					if ok && s.Valid() {
						t.Fatalf("%s: ScanInvalid stopped at a valid record, line %d", in.Name, s.Line())
					}
				}
				if !ok {
					break
				}
				want, found := byLine[s.Line()]
				if !found || want != (rec{s.Offset(), string(s.Bytes()), s.Valid()}) {
					t.Fatalf("%s: call %d, line %d: got offset %d %q valid %v, want %+v", in.Name, i, s.Line(), s.Offset(), s.Bytes(), s.Valid(), want)
				}
			}
			if s.Line() != ref.Line() {
				t.Fatalf("%s: %d lines, want %d", in.Name, s.Line(), ref.Line())
			}
		}
	})
}
