package cli

import "strconv"

// appendQuote appends s as strconv.AppendQuote does, quickly for what
// echoes mostly are (printable ASCII, with '"' and '\' escaped): byte by
// byte, where strconv decodes and classifies each rune. Anything else
// (a control byte, DEL, a byte over 0x7f) goes to strconv.AppendQuote, so
// the result is always its result.
func appendQuote(b []byte, s string) []byte {
	n := len(b)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20 || c >= 0x7f:
			return strconv.AppendQuote(b[:n], s)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
