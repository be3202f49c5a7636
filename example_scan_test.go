package uriscan_test

import (
	"fmt"
	"strings"

	"github.com/uriscan/uriscan"
)

// A LineScanner scans newline-separated URI-references from a stream (or
// a buffer, NewLineScannerBytes), parsing each record without allocating.
// Line is the line number; Offset where the line starts.
func ExampleLineScanner() {
	in := uriscan.UTF8BOM + "http://a.example/x\n\nnot a uri\nhttp://[::1]:8080/?q#f\n"
	s := uriscan.NewLineScanner(strings.NewReader(in))
	s.SkipBOM(true) // text from editors may start with one; it is not part of line 1
	for s.Scan() {
		if !s.Valid() {
			fmt.Printf("line %d at %d: %v\n", s.Line(), s.Offset(), s.ParseError())
			continue
		}
		u := s.URI()
		fmt.Printf("line %d at %d: scheme %q host %q\n", s.Line(), s.Offset(), u.Scheme(), u.Host())
	}
	if err := s.Err(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// line 1 at 3: scheme "http" host "a.example"
	// line 2 at 22: scheme "" host ""
	// line 3 at 23: uriscan: "not a uri": invalid character ' ' in path at offset 3
	// line 4 at 33: scheme "http" host "[::1]"
}

// An Extractor finds the URIs in free text: logs, mail, Markdown.
func ExampleExtractor() {
	text := []byte(`GET /x "https://ref.example/p?q=1" (see <http://docs.example/a_(b)>). mailto:x@y.example`)
	x := uriscan.Extractor{Schemes: []string{"http", "https", "mailto"}}
	for _, m := range x.Append(nil, text) {
		fmt.Printf("%d-%d %s\n", m.Start, m.End, text[m.Start:m.End])
	}
	// Output:
	// 8-33 https://ref.example/p?q=1
	// 41-66 http://docs.example/a_(b)
	// 70-88 mailto:x@y.example
}

// An ExtractScanner finds them in a stream, a read buffer at a time, with
// offsets and line numbers in the stream.
func ExampleExtractScanner() {
	log := "1.2.3.4 - - [x] \"GET /a HTTP/1.1\" 200 1 \"https://r.example/\" \"bot (+http://bot.example/)\"\n"
	s := uriscan.NewExtractScanner(&uriscan.Extractor{}, strings.NewReader(log))
	for s.Scan() {
		for _, m := range s.Matches() {
			fmt.Printf("line %d: %s\n", m.Line, s.Bytes(m))
		}
	}
	// Output:
	// line 1: https://r.example/
	// line 1: http://bot.example/
}
