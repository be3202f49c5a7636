package logformat

import (
	"bytes"

	"github.com/uriscan/uriscan/internal/ascii"
)

// ParseCombined parses one line of the Common or Combined Log Format
// (Apache's %h %l %u %t "%r" %>s %b ["%{Referer}i" "%{User-agent}i"],
// nginx's default "combined") and appends to fields, in this order:
//
//   - the request target, named NameRequest: the bytes between the first
//     and the last space of the request line "%r" when it has the shape
//     METHOD SP target SP HTTP/x.y (METHOD an RFC 9110 token), so that a
//     target holding spaces, as some servers accept and log, is whole; or
//     the second word of a two-word request line "METHOD SP target" (HTTP/0.9);
//   - for any other request line, the whole decoded %r, named
//     NameRequestLine, except that "-" and "" (no request) give nothing;
//   - the referer, named NameReferer, unless it is "-" or empty;
//   - the user agent, named NameUserAgent, unless it is "-" or empty.
//
// It returns the grown fields and scratch. The shape of %r is judged on
// the raw bytes, so an escaped space (\x20) does not split words.
//
// Quoted fields are decoded: \xHH (either case of hex digit) gives the
// byte HH; \" and \\ give '"' and '\'; \b \f \n \r \t \v give their
// control byte, as Apache writes them. Any other backslash, and a \x not
// followed by two hex digits, is kept as it stands. A field is decoded
// into scratch only when it holds a backslash; otherwise its Value
// aliases line. A Field's Offset is that of its raw value in line.
//
// A line may end in "\n" or "\r\n", and trailing spaces and tabs are
// ignored. A Common Log Format line (ending after %b) gives only the
// request; a line may also end after the referer. Anything after the
// user agent, once a space separates it, is ignored. A line of any other
// shape, including an unterminated quoted field, gives an *Error and
// leaves fields and scratch as they were.
func ParseCombined(fields []Field, scratch, line []byte) ([]Field, []byte, error) {
	n := len(line)
	for n > 0 && (line[n-1] == '\n' || line[n-1] == '\r' || line[n-1] == ' ' || line[n-1] == '\t') {
		n--
	}
	line = line[:n]
	if n == 0 {
		return fields, scratch, errorAt(0, "empty line")
	}

	// %h %l %u: words without spaces, each followed by one space.
	i := 0
	for k := range wordMissing {
		j := bytes.IndexByte(line[i:], ' ')
		if j < 0 {
			if i == n {
				return fields, scratch, errorAt(i, wordMissing[k])
			}
			return fields, scratch, errorAt(n, wordSep[k])
		}
		if j == 0 {
			return fields, scratch, errorAt(i, wordMissing[k])
		}
		i += j + 1
	}

	// %t: "[" ... "]".
	if i >= n || line[i] != '[' {
		return fields, scratch, errorAt(i, "expected '[' opening the time field")
	}
	j := bytes.IndexByte(line[i+1:], ']')
	if j < 0 {
		return fields, scratch, errorAt(i, "unterminated time field: no ']'")
	}
	i += j + 2
	if i >= n || line[i] != ' ' {
		return fields, scratch, errorAt(i, "expected ' ' after the time field")
	}
	i++

	// "%r"
	if i >= n || line[i] != '"' {
		return fields, scratch, errorAt(i, "expected '\"' opening the request field")
	}
	rs := i + 1
	re, resc := quoted(line, rs)
	if re < 0 {
		return fields, scratch, errorAt(i, "unterminated request field: no closing '\"'")
	}
	i = re + 1
	if i >= n || line[i] != ' ' {
		return fields, scratch, errorAt(i, "expected ' ' after the request field")
	}
	i++

	// %>s %b
	j = dashOrDigits(line, i)
	if j == i {
		return fields, scratch, errorAt(i, "expected the status code (digits or '-')")
	}
	i = j
	if i >= n || line[i] != ' ' {
		return fields, scratch, errorAt(i, "expected ' ' after the status code")
	}
	i++
	j = dashOrDigits(line, i)
	if j == i {
		return fields, scratch, errorAt(i, "expected the response size (digits or '-')")
	}
	i = j

	// ["%{Referer}i" ["%{User-agent}i" [SP anything]]]
	fs, fe, fesc := -1, -1, false // referer
	us, ue, uesc := -1, -1, false // user agent
	var err error
	if i < n {
		if fs, fe, fesc, err = quotedAfter(line, i, "the response size", "referer"); err != nil {
			return fields, scratch, err
		}
		if i = fe + 1; i < n {
			if us, ue, uesc, err = quotedAfter(line, i, "the referer field", "user agent"); err != nil {
				return fields, scratch, err
			}
			if i = ue + 1; i < n && line[i] != ' ' {
				return fields, scratch, errorAt(i, "expected ' ' or the end of the line after the user agent field")
			}
		}
	}

	// The line is well formed: emit.
	d := decoder{scratch: scratch, line: line}
	if ts, te, ok := requestTarget(line[rs:re]); ok {
		fields = append(fields, d.field(NameRequest, rs+ts, rs+te, resc))
	} else if r := line[rs:re]; len(r) > 0 && !(len(r) == 1 && r[0] == '-') {
		fields = append(fields, d.field(NameRequestLine, rs, re, resc))
	}
	if fs >= 0 && present(line[fs:fe]) {
		fields = append(fields, d.field(NameReferer, fs, fe, fesc))
	}
	if us >= 0 && present(line[us:ue]) {
		fields = append(fields, d.field(NameUserAgent, us, ue, uesc))
	}
	return fields, d.scratch, nil
}

// quotedAfter reads ' ' and a quoted field at line[i:], after the field
// named after; it returns the span of the field's raw value (after the
// opening quote, before the closing one) and whether it holds a backslash.
func quotedAfter(line []byte, i int, after, name string) (s, e int, esc bool, err error) {
	if line[i] != ' ' {
		return 0, 0, false, errorAt(i, "expected ' ' or the end of the line after "+after)
	}
	i++
	if i >= len(line) || line[i] != '"' {
		return 0, 0, false, errorAt(i, "expected '\"' opening the "+name+" field")
	}
	s = i + 1
	if e, esc = quoted(line, s); e < 0 {
		return 0, 0, false, errorAt(i, "unterminated "+name+" field: no closing '\"'")
	}
	return s, e, esc, nil
}

var (
	wordMissing = [3]string{
		"expected the remote host (%h)",
		"expected the remote logname (%l)",
		"expected the remote user (%u)",
	}
	wordSep = [3]string{
		"expected ' ' after the remote host",
		"expected ' ' after the remote logname",
		"expected ' ' after the remote user",
	}
)

// present reports whether a referer or user agent was logged: not "-" or "".
func present(raw []byte) bool {
	return len(raw) > 0 && !(len(raw) == 1 && raw[0] == '-')
}

// quoted finds the closing '"' of the quoted field whose value starts at
// s, a backslash escaping the byte after it. It returns the index of the
// closing quote (-1 when there is none) and whether a backslash was seen.
func quoted(line []byte, s int) (int, bool) {
	q := bytes.IndexByte(line[s:], '"')
	if q < 0 {
		return -1, false
	}
	b := bytes.IndexByte(line[s:s+q], '\\')
	if b < 0 {
		return s + q, false
	}
	for i := s + b; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '"':
			return i, true
		}
	}
	return -1, true
}

// dashOrDigits returns the end of the "-" or run of digits at i (i when none).
func dashOrDigits(line []byte, i int) int {
	if i < len(line) && line[i] == '-' {
		return i + 1
	}
	j := i
	for j < len(line) && '0' <= line[j] && line[j] <= '9' {
		j++
	}
	return j
}

// requestTarget finds the target in the raw request line r: between the
// first and the last space when r is METHOD SP target SP HTTP/x.y, else
// after the space of METHOD SP target. ok is false for other shapes.
func requestTarget(r []byte) (start, end int, ok bool) {
	sp := bytes.IndexByte(r, ' ')
	if sp <= 0 {
		return 0, 0, false
	}
	for _, c := range r[:sp] {
		if !isTchar(c) {
			return 0, 0, false
		}
	}
	last := bytes.LastIndexByte(r, ' ')
	switch {
	case last > sp+1 && isProtocol(r[last+1:]):
		return sp + 1, last, true
	case last == sp && sp+1 < len(r) && !isProtocol(r[sp+1:]):
		return sp + 1, len(r), true
	}
	return 0, 0, false
}

// isProtocol reports whether p is HTTP/ digits [. digits].
func isProtocol(p []byte) bool {
	if len(p) < 6 || string(p[:5]) != "HTTP/" {
		return false
	}
	p = p[5:]
	i := 0
	for i < len(p) && '0' <= p[i] && p[i] <= '9' {
		i++
	}
	if i == 0 {
		return false
	}
	if i == len(p) {
		return true
	}
	if p[i] != '.' || i+1 == len(p) {
		return false
	}
	for _, c := range p[i+1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isTchar reports whether c may appear in an RFC 9110 token (a method).
func isTchar(c byte) bool {
	return tchar[c>>6]&(1<<(c&63)) != 0
}

var tchar = func() (t [4]uint64) {
	for c := 0; c < 256; c++ {
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c < 128 && c > 0 && bytesContain("!#$%&'*+-.^_`|~", byte(c)) {
			t[c>>6] |= 1 << (c & 63)
		}
	}
	return t
}()

func bytesContain(s string, c byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return true
		}
	}
	return false
}

// decoder emits Fields, decoding those with escapes into scratch.
type decoder struct {
	scratch []byte
	line    []byte
	grown   bool
}

// field returns the Field for line[s:e]; esc says whether the quoted
// field around it held a backslash (so line[s:e] may).
func (d *decoder) field(name string, s, e int, esc bool) Field {
	raw := d.line[s:e]
	if !esc || bytes.IndexByte(raw, '\\') < 0 {
		return Field{Name: name, Value: raw, Offset: s}
	}
	if !d.grown {
		// Decoded bytes are never more than raw ones: room for the rest
		// of the line is room for every field still to come.
		d.scratch = grow(d.scratch, len(d.line)-s)
		d.grown = true
	}
	start := len(d.scratch)
	d.scratch = appendLogUnescaped(d.scratch, raw)
	return Field{Name: name, Value: d.scratch[start:len(d.scratch):len(d.scratch)], Offset: s}
}

// appendLogUnescaped appends raw to dst with the Apache and nginx
// escapes decoded.
func appendLogUnescaped(dst, raw []byte) []byte {
	for len(raw) > 0 {
		b := bytes.IndexByte(raw, '\\')
		if b < 0 {
			return append(dst, raw...)
		}
		dst = append(dst, raw[:b]...)
		raw = raw[b:]
		if len(raw) < 2 {
			return append(dst, raw...)
		}
		n := 2
		switch c := raw[1]; c {
		case '"', '\\':
			dst = append(dst, c)
		case 'x':
			if len(raw) >= 4 && ascii.IsHex(raw[2]) && ascii.IsHex(raw[3]) {
				dst = append(dst, ascii.Unhex(raw[2])<<4|ascii.Unhex(raw[3]))
				n = 4
			} else {
				dst = append(dst, '\\')
				n = 1
			}
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'v':
			dst = append(dst, '\v')
		default:
			dst = append(dst, '\\')
			n = 1
		}
		raw = raw[n:]
	}
	return dst
}
