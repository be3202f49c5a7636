// Package logformat takes the fields that may hold a URI out of one line
// of a web server access log, as byte slices into the caller's line (or,
// when the field had to be decoded, into a caller-provided scratch
// buffer), with no allocation per line once the caller's slices have
// grown to size.
//
// # Formats handled
//
// ParseCombined reads the Common Log Format and the Combined Log Format:
//
//	%h %l %u %t "%r" %>s %b
//	%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"
//
// which is Apache's "common" and "combined" LogFormat and nginx's default
// "combined" log_format. It gives the request target (the part of the
// request line between the method and the protocol), the referer and
// the user agent. Quoted fields are
// decoded from both servers' escaping: nginx writes '"', '\' and bytes
// below 0x20 or from 0x7F as \xHH; Apache writes \" \\ \b \n \r \t \v and
// \xhh. Fields after the user agent (nginx formats that append
// "$http_x_forwarded_for", a request time...) are ignored.
//
// JSONField reads JSON Lines: it finds the string at a dotted path
// ("message", "http.request.url") in a line that holds one JSON object,
// and decodes its escapes to UTF-8.
//
// Columns reads any delimited format by column number, as cut -d SEP -f
// LIST does and without a regular expression: a TSV export, a custom
// log_format with tabs, a pipe-separated log. Nothing is decoded.
//
// # Not handled
//
// Other Apache and nginx formats: a line that does not begin like the
// Common Log Format (vhost_combined's leading "%v:%p", a time field other
// than a bracketed one, a tab-separated or reordered format) is an error;
// so is an unquoted field right after %b (%h %l %u %t "%r" %>s %b %D). Fields
// are separated by exactly one space, and %h, %l and %u must not contain
// spaces. The contents of the time, status and size fields are not
// checked beyond their shape. For JSON: arrays are not indexed (a path
// never descends into an array), only string values count, and bytes from
// 0x80 are passed through without UTF-8 validation. Neither function
// resolves or validates the URIs it returns; that is the caller's work.
//
// # Memory
//
// Both functions append to the fields slice and to scratch and return
// them, like append. A Value aliases the line unless its field held an
// escape, in which case it is the decoded copy in the returned scratch;
// the decoded bytes are never more than the raw ones, so one call grows
// scratch at most once and all the Values of one call lie in the scratch
// it returns. To reuse the memory, pass fields[:0] and scratch[:0] for the
// next line; the Values of the previous line are then overwritten.
// Nothing else allocates, except the *Error of a malformed line. Malformed
// input gives that *Error, never a panic, in time linear in the length of
// the line and in bounded memory.
package logformat

import "strconv"

// Field is one field of a log line that may hold a URI.
type Field struct {
	// Name is NameRequest, NameRequestLine, NameReferer or NameUserAgent
	// for ParseCombined, the path given for JSONField, and "$N" for
	// column N of Columns.
	Name string
	// Value is the field's decoded bytes: a subslice of the line when the
	// field held no escape, else of the scratch buffer.
	Value []byte
	// Offset is the byte offset within the line of the field's raw
	// (undecoded) value: of its first byte, after any opening quote.
	Offset int
}

// Names of the fields ParseCombined gives.
const (
	// NameRequest is the request target: "/a?b" or "http://h/a" from
	// the request line "GET /a?b HTTP/1.1".
	NameRequest = "request"
	// NameRequestLine is a whole request line that does not have the
	// shape "METHOD SP target SP HTTP/x.y" (nor "METHOD SP target", as
	// HTTP/0.9 requests are logged), decoded: the bytes of a TLS
	// handshake sent to a plain-HTTP port, say. It may still hold a URI.
	NameRequestLine = "request_line"
	// NameReferer is the Referer header.
	NameReferer = "referer"
	// NameUserAgent is the User-Agent header.
	NameUserAgent = "user_agent"
)

// Error is a line that does not have the format expected.
type Error struct {
	Offset int    // byte offset in the line where the line goes wrong (len(line) when it ended too soon)
	Reason string // what was expected or found, e.g. "expected '[' opening the time field"
}

// Error returns e.g. "offset 17: expected '[' opening the time field".
func (e *Error) Error() string {
	if e == nil {
		return "<nil> *logformat.Error"
	}
	return "offset " + strconv.Itoa(e.Offset) + ": " + e.Reason
}

func errorAt(off int, reason string) error {
	return &Error{Offset: off, Reason: reason}
}

// grow makes room in scratch for n more bytes, so that decoding the rest
// of a line into it does not move it again.
func grow(scratch []byte, n int) []byte {
	if cap(scratch)-len(scratch) >= n {
		return scratch
	}
	s := make([]byte, len(scratch), len(scratch)+n+len(scratch)/2+64)
	copy(s, scratch)
	return s
}
