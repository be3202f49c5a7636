package fuzz

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
)

// FuzzExtract checks the extractor's promises on any text: offsets in
// range, matches in order and not overlapping, each one a URI that parses
// strictly with an allowed scheme, its line and its column (Col) those
// of its offset, and a stream split into any reads giving the same
// matches (offsets, lines and columns) as one buffer.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("see http://a/b. and (https://en.wikipedia.org/wiki/Go_(lang)) <URL:http://x/>"), []byte{3, 1, 250}, false)
	f.Add([]byte(`1.2.3.4 - - [x] "GET http://a/b?c HTTP/1.1" 200 1 "https://r/x" "UA (+http://bot/)"`+"\n"), []byte{7}, true)
	f.Add([]byte("[http://a/b](http://a/b) http://[::1 http://%zz mailto:x@y"), []byte{0, 2}, true)
	f.Fuzz(func(t *testing.T, text, cuts []byte, any bool) {
		x := uriscan.Extractor{AnyScheme: any, Rejects: true}
		ms := x.Append(nil, text)
		var prev int64
		var want []string
		for _, m := range ms {
			if m.Start < prev || m.End <= m.Start || m.End > int64(len(text)) {
				t.Fatalf("match %+v after %d in %d bytes", m, prev, len(text))
			}
			prev = m.End
			line := int64(1 + strings.Count(string(text[:m.Start]), "\n"))
			if m.Line != line {
				t.Fatalf("match %+v: line %d, want %d", m, m.Line, line)
			}
			if col := m.Start - int64(strings.LastIndexByte(string(text[:m.Start]), '\n')+1); m.Col != col {
				t.Fatalf("match %+v: col %d, want %d", m, m.Col, col)
			}
			u := text[m.Start:m.End]
			if !m.Rejected {
				p, err := uriscan.Parse(u)
				if err != nil || !p.IsAbsolute() {
					t.Fatalf("match %q: %v", u, err)
				}
			}
			want = append(want, fmt.Sprintf("%d-%d:%d:%d:%v", m.Start, m.End, m.Line, m.Col, m.Rejected))
		}
		s := uriscan.NewExtractScanner(&x, &cutReader{data: text, cuts: cuts})
		var got []string
		for s.Scan() {
			for _, m := range s.Matches() {
				if string(s.Bytes(m)) != string(text[m.Start:m.End]) {
					t.Fatalf("stream match %+v: bytes %q", m, s.Bytes(m))
				}
				got = append(got, fmt.Sprintf("%d-%d:%d:%d:%v", m.Start, m.End, m.Line, m.Col, m.Rejected))
			}
		}
		if s.Err() != nil || strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("cuts %v: stream %v (err %v)\nbuffer %v", cuts, got, s.Err(), want)
		}
	})
}
