package logformat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"unicode/utf8"

	"github.com/uriscan/uriscan/internal/ascii"
)

// MaxJSONDepth is the deepest nesting of objects and arrays that
// JSONField accepts, the line's own object counting as 1. A line nested
// deeper is an error.
const MaxJSONDepth = 512

// ErrInvalidPath is the error JSONField gives for a path that is empty or
// has an empty segment ("a..b", ".a", "a.").
var ErrInvalidPath = errors.New("logformat: invalid JSON path: empty, or with an empty segment")

// JSONField finds the string at the dotted path ("message",
// "http.request.url") in line, which must hold exactly one JSON object
// (RFC 8259) and may be surrounded by whitespace (so a trailing "\n" or
// "\r\n" is fine). When there is one, it appends to fields a Field named
// path whose Value is the string decoded (\" \\ \/ \b \f \n \r \t and
// \uXXXX, surrogate pairs included, to UTF-8; a lone surrogate gives
// U+FFFD) and whose Offset is that of the string's first byte after its
// opening quote. Value aliases line when the string has no escape, else
// it is a copy in scratch. It returns the grown fields and scratch.
//
// Paths: each segment matches an object key exactly, after the key's
// escapes are decoded ("caf\u00e9" matches the segment "café"). A key may
// also match several segments at once with the dots in it, so that the
// path "http.request.url" finds {"http.request.url": ...} as well as
// {"http": {"request": {"url": ...}}}, the two spellings of Elastic
// Common Schema. There is no way to name a key with a dot in it alone,
// nor an empty key.
//
// Only a string counts: when the path leads to a number, true, false,
// null, an object or an array, nothing is appended. Arrays are not
// indexed and not searched: the path never continues inside one. When
// the path occurs more than once (duplicate keys, or both spellings
// above), the first occurrence in the line decides, even when it is not
// a string.
//
// The whole line is checked, also after the value found: malformed JSON
// (a syntax error, a control byte in a string, a bad escape, nesting
// deeper than MaxJSONDepth, anything but whitespace after the object)
// gives an *Error and appends nothing. Bytes from 0x80 are not checked to
// be UTF-8. An invalid path gives ErrInvalidPath. JSONField does not
// allocate beyond growing fields and scratch (and the *Error of a
// malformed line); it keeps a fixed stack of MaxJSONDepth entries and
// does not recurse.
func JSONField(fields []Field, scratch, line []byte, path string) ([]Field, []byte, error) {
	if !validPath(path) {
		return fields, scratch, ErrInvalidPath
	}
	vs, ve, vesc, found, err := findJSON(line, path)
	if err != nil || !found {
		return fields, scratch, err
	}
	raw := line[vs:ve]
	if !vesc {
		return append(fields, Field{Name: path, Value: raw, Offset: vs}), scratch, nil
	}
	scratch = grow(scratch, len(raw))
	start := len(scratch)
	scratch = appendJSONUnescaped(scratch, raw)
	return append(fields, Field{Name: path, Value: scratch[start:len(scratch):len(scratch)], Offset: vs}), scratch, nil
}

func validPath(p string) bool {
	if len(p) == 0 || len(p) > 1<<30 || p[0] == '.' || p[len(p)-1] == '.' {
		return false
	}
	for i := 1; i < len(p); i++ {
		if p[i] == '.' && p[i-1] == '.' {
			return false
		}
	}
	return true
}

// Entries of findJSON's stack, one per open container: an array, an
// object off the path, or (>= 0) an object on the path, the value being
// the offset in the path of the segments still to match inside it.
const (
	stackArray     = -1
	stackOffObject = -2
)

// findJSON scans the object in line and returns the bounds of the raw
// contents of the string at path, whether it holds an escape, and whether
// it was found.
func findJSON(line []byte, path string) (vs, ve int, vesc, found bool, err error) {
	var stack [MaxJSONDepth]int32
	n := len(line)
	i := skipWS(line, 0)
	if i >= n || line[i] != '{' {
		return 0, 0, false, false, errorAt(i, "expected '{' opening the JSON object")
	}
	stack[0] = 0
	depth := 1
	i++
	first := true    // just after '{' or '['
	decided := false // the first occurrence of the path has been seen
	for {
		i = skipWS(line, i)
		if i >= n {
			return 0, 0, false, false, errorAt(i, "unexpected end of line inside an object or array")
		}
		top := stack[depth-1]
		c := line[i]
		full := false                 // the value at i is at the path
		next := int32(stackOffObject) // stack entry for an object at i
		if top == stackArray {
			if c == ']' {
				goto closeContainer
			}
			if !first {
				if c != ',' {
					return 0, 0, false, false, errorAt(i, "expected ',' or ']' after an array element")
				}
				i = skipWS(line, i+1)
			}
		} else {
			if c == '}' && first {
				goto closeContainer
			}
			if !first {
				if c == '}' {
					goto closeContainer
				}
				if c != ',' {
					return 0, 0, false, false, errorAt(i, "expected ',' or '}' after an object member")
				}
				i = skipWS(line, i+1)
			}
			if i >= n || line[i] != '"' {
				return 0, 0, false, false, errorAt(i, "expected '\"' opening an object key")
			}
			ks := i + 1
			ke, kesc, eoff, reason := scanString(line, ks)
			if reason != "" {
				return 0, 0, false, false, errorAt(eoff, reason)
			}
			i = skipWS(line, ke+1)
			if i >= n || line[i] != ':' {
				return 0, 0, false, false, errorAt(i, "expected ':' after an object key")
			}
			i = skipWS(line, i+1)
			if top >= 0 && !decided {
				rest := path[top:]
				if l, ok := keyMatch(line[ks:ke], kesc, rest); ok {
					if l == len(rest) {
						full = true
					} else {
						next = top + int32(l) + 1
					}
				}
			}
		}
		first = false
		if i >= n {
			return 0, 0, false, false, errorAt(i, "expected a value")
		}
		switch c = line[i]; c {
		case '"':
			e, esc, eoff, reason := scanString(line, i+1)
			if reason != "" {
				return 0, 0, false, false, errorAt(eoff, reason)
			}
			if full {
				decided, found = true, true
				vs, ve, vesc = i+1, e, esc
			}
			i = e + 1
		case '{', '[':
			if depth == MaxJSONDepth {
				return 0, 0, false, false, errorAt(i, "JSON nested deeper than 512")
			}
			if full {
				decided = true
			}
			if c == '[' {
				next = stackArray
			}
			stack[depth] = next
			depth++
			i++
			first = true
		default:
			e, reason := scanScalar(line, i)
			if reason != "" {
				return 0, 0, false, false, errorAt(e, reason)
			}
			if full {
				decided = true
			}
			i = e
		}
		continue
	closeContainer:
		depth--
		i++
		first = false
		if depth == 0 {
			break
		}
	}
	if i = skipWS(line, i); i != n {
		return 0, 0, false, false, errorAt(i, "unexpected data after the JSON object")
	}
	return vs, ve, vesc, found, nil
}

func skipWS(line []byte, i int) int {
	for i < len(line) {
		switch line[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// strStop marks the bytes that end the fast run in a JSON string: '"',
// '\' and the control bytes.
var strStop = func() (t [256]bool) {
	for c := 0; c < 0x20; c++ {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

const (
	ones = 0x0101010101010101
	high = 0x8080808080808080
)

// nextStop returns the index of the first byte from i that strStop
// marks, or len(line): eight bytes at a time, then one at a time.
func nextStop(line []byte, i int) int {
	for ; i+8 <= len(line); i += 8 {
		x := binary.LittleEndian.Uint64(line[i:])
		// The high bit of each byte that is '"', '\\' or below 0x20. A
		// borrow can mark a byte above one truly marked, never below,
		// so the lowest mark is true.
		q, b := x^(ones*'"'), x^(ones*'\\')
		m := ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x) & high
		if m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for i < len(line) && !strStop[line[i]] {
		i++
	}
	return i
}

// scanString checks the JSON string whose contents start at s and
// returns the index of its closing quote and whether it holds an escape;
// reason is set, with the offset eoff, when it is malformed.
func scanString(line []byte, s int) (end int, esc bool, eoff int, reason string) {
	i := s
	for {
		i = nextStop(line, i)
		if i >= len(line) {
			return 0, false, s - 1, "unterminated string"
		}
		switch c := line[i]; {
		case c == '"':
			return i, esc, 0, ""
		case c < 0x20:
			return 0, false, i, "control byte in a string"
		}
		esc = true
		if i+1 >= len(line) {
			return 0, false, s - 1, "unterminated string"
		}
		switch line[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(line) || !ascii.IsHex(line[i+2]) || !ascii.IsHex(line[i+3]) || !ascii.IsHex(line[i+4]) || !ascii.IsHex(line[i+5]) {
				return 0, false, i, "invalid \\u escape: expected 4 hex digits"
			}
			i += 6
		default:
			return 0, false, i, "invalid escape in a string"
		}
	}
}

// scanScalar checks the number, true, false or null at i and returns its
// end; reason is set, with the offset end, when it is malformed.
func scanScalar(line []byte, i int) (end int, reason string) {
	lit := ""
	switch line[i] {
	case 't':
		lit = "true"
	case 'f':
		lit = "false"
	case 'n':
		lit = "null"
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return scanNumber(line, i)
	default:
		return i, "expected a value"
	}
	if len(line)-i < len(lit) || string(line[i:i+len(lit)]) != lit {
		return i, "invalid literal (expected true, false or null)"
	}
	return i + len(lit), ""
}

func scanNumber(line []byte, i int) (int, string) {
	n := len(line)
	if line[i] == '-' {
		i++
	}
	switch {
	case i < n && line[i] == '0':
		i++
	case i < n && '1' <= line[i] && line[i] <= '9':
		i = digits(line, i)
	default:
		return i, "invalid number: expected a digit"
	}
	if i < n && line[i] == '.' {
		j := digits(line, i+1)
		if j == i+1 {
			return j, "invalid number: expected a digit after '.'"
		}
		i = j
	}
	if i < n && (line[i] == 'e' || line[i] == 'E') {
		i++
		if i < n && (line[i] == '+' || line[i] == '-') {
			i++
		}
		j := digits(line, i)
		if j == i {
			return j, "invalid number: expected a digit in the exponent"
		}
		i = j
	}
	return i, ""
}

func digits(line []byte, i int) int {
	for i < len(line) && '0' <= line[i] && line[i] <= '9' {
		i++
	}
	return i
}

// keyMatch reports whether the key with raw contents raw (esc: holding
// an escape) decodes to a prefix of rest that ends at a segment boundary
// (the end of rest or a '.'), and the length of that prefix.
func keyMatch(raw []byte, esc bool, rest string) (int, bool) {
	if !esc {
		l := len(raw)
		if l > len(rest) || string(raw) != rest[:l] {
			return 0, false
		}
		return l, l == len(rest) || rest[l] == '.'
	}
	l := 0
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			if l >= len(rest) || rest[l] != raw[i] {
				return 0, false
			}
			l++
			i++
			continue
		}
		var buf [utf8.UTFMax]byte
		var k int
		k, i = unescapeJSON(&buf, raw, i)
		if k > len(rest)-l || string(buf[:k]) != rest[l:l+k] {
			return 0, false
		}
		l += k
	}
	return l, l == len(rest) || rest[l] == '.'
}

// appendJSONUnescaped appends the checked JSON string contents raw to
// dst, decoded.
func appendJSONUnescaped(dst, raw []byte) []byte {
	for i := 0; i < len(raw); {
		j := bytes.IndexByte(raw[i:], '\\')
		if j < 0 {
			return append(dst, raw[i:]...)
		}
		j += i
		dst = append(dst, raw[i:j]...)
		var buf [utf8.UTFMax]byte
		var k int
		k, i = unescapeJSON(&buf, raw, j)
		dst = append(dst, buf[:k]...)
	}
	return dst
}

// unescapeJSON decodes the checked escape at raw[i] into buf and returns
// its length and the index after the escape.
func unescapeJSON(buf *[utf8.UTFMax]byte, raw []byte, i int) (int, int) {
	c := raw[i+1]
	switch c {
	case 'b':
		c = '\b'
	case 'f':
		c = '\f'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'u':
		r := hex4(raw[i+2:])
		i += 6
		switch {
		case 0xD800 <= r && r < 0xDC00:
			if i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
				if r2 := hex4(raw[i+2:]); 0xDC00 <= r2 && r2 < 0xE000 {
					r = 0x10000 + (r-0xD800)<<10 + (r2 - 0xDC00)
					i += 6
					break
				}
			}
			r = utf8.RuneError
		case 0xDC00 <= r && r < 0xE000:
			r = utf8.RuneError
		}
		return utf8.EncodeRune(buf[:], r), i
	}
	buf[0] = c // '"', '\\', '/' stand for themselves
	return 1, i + 2
}

func hex4(h []byte) rune {
	return rune(ascii.Unhex(h[0]))<<12 | rune(ascii.Unhex(h[1]))<<8 | rune(ascii.Unhex(h[2]))<<4 | rune(ascii.Unhex(h[3]))
}
