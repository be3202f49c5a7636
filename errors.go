package uriscan

import (
	"errors"
	"strconv"
	"strings"
)

// Causes of a parse error, for errors.Is. Every *Error wraps exactly one.
var (
	// ErrInvalidChar: a byte that the component it falls in does not allow
	// (a space anywhere, "[" in a path, "a" in a port, "_" in a scheme…).
	ErrInvalidChar = errors.New("invalid character")
	// ErrPercentEncoding: a "%" not followed by two hex digits (§2.1 pct-encoded).
	ErrPercentEncoding = errors.New("invalid percent-encoding")
	// ErrScheme: the text before the first ":" cannot be a scheme (§3.1):
	// it is empty or does not begin with a letter.
	ErrScheme = errors.New("invalid scheme")
	// ErrIPv6: an IP-literal that is not a valid IPv6address (§3.2.2).
	ErrIPv6 = errors.New("invalid IPv6 address")
	// ErrIPvFuture: an IP-literal starting with "v" that is not a valid IPvFuture.
	ErrIPvFuture = errors.New("invalid IPvFuture")
	// ErrIPLiteral: a "[" without its "]", or text after the "]" other than ":" port.
	ErrIPLiteral = errors.New("malformed IP-literal")
	// ErrTooLong: the input is longer than MaxLength, or a LineScanner
	// record is longer than its line limit.
	ErrTooLong = errors.New("input too long")
)

// Error is a URI-reference that does not match RFC 3986 Appendix A. Offset
// is the 0-based byte offset of the first byte at which the input goes
// wrong; Component is where that byte falls.
type Error struct {
	Input     string    // the input, as given
	Offset    int       // byte offset of the first offending byte (len(Input) if the input ended too soon)
	Component Component // component holding Offset
	Err       error     // the cause: one of the Err* variables
	code      errCode
	arg       int
}

// Error returns e.g. `uriscan: "http://a b": invalid character ' ' in host at offset 8`.
func (e *Error) Error() string {
	if e == nil {
		return "uriscan: <nil> *Error"
	}
	return "uriscan: " + quoteInput(e.Input) + ": " + e.Reason() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns the cause, so errors.Is(err, uriscan.ErrIPv6) works.
func (e *Error) Unwrap() error {
	if e == nil {
		return nil
	}
	return e.Err
}

// Reason says in words what is wrong, without the input or offset:
// "invalid character ' ' in path", "IPv6 address has 9 groups".
func (e *Error) Reason() string {
	if e == nil {
		return "no error"
	}
	return reason(e.Input, e.Offset, e.Component, e.code, e.arg)
}

// AppendReason appends Reason to b, without allocating beyond growing b.
func (e *Error) AppendReason(b []byte) []byte {
	if e == nil {
		return append(b, "no error"...)
	}
	return appendReason(b, e.Input, e.Offset, e.Component, e.code, e.arg)
}

type errCode uint8

const (
	errNone errCode = iota
	errChar
	errPct
	errSchemeEmpty
	errSchemeStart
	errIPLiteralOpen  // no "]"
	errIPLiteralAfter // junk after "]"
	errIPv6Groups     // arg = groups
	errIPv6Few        // arg = groups, no "::"
	errIPv6DoubleColon
	errIPv6GroupLen
	errIPv6Colon // lone leading/trailing ':' or ":::"
	errIPv6IPv4  // bad embedded IPv4
	errIPv6Empty
	errIPvFuture
	errTooLong
	errLineTooLong // arg = the line's length; Offset = the limit
)

var causes = [...]error{
	errChar: ErrInvalidChar, errPct: ErrPercentEncoding, errSchemeEmpty: ErrScheme,
	errSchemeStart: ErrScheme, errIPLiteralOpen: ErrIPLiteral, errIPLiteralAfter: ErrIPLiteral,
	errIPv6Groups: ErrIPv6, errIPv6Few: ErrIPv6, errIPv6DoubleColon: ErrIPv6,
	errIPv6GroupLen: ErrIPv6, errIPv6Colon: ErrIPv6, errIPv6IPv4: ErrIPv6, errIPv6Empty: ErrIPv6,
	errIPvFuture: ErrIPvFuture, errTooLong: ErrTooLong, errLineTooLong: ErrTooLong,
}

func reason(in string, off int, c Component, code errCode, arg int) string {
	var b [128]byte
	return string(appendReason(b[:0], in, off, c, code, arg))
}

// appendReason appends the reason of an error to b; it does not allocate
// beyond growing b.
func appendReason(b []byte, in string, off int, c Component, code errCode, arg int) []byte {
	switch code {
	case errChar:
		if off >= len(in) {
			return append(append(b, "unexpected end of input in "...), c.String()...)
		}
		b = append(b, "invalid character "...)
		b = appendQuoteByte(b, in[off])
		b = append(append(b, " in "...), c.String()...)
		switch in[off] {
		case '[', ']':
			b = append(b, " (brackets are allowed only around an IP-literal host)"...)
		case '#':
			b = append(b, " (a fragment ends at the end of the reference)"...)
		case '@':
			b = append(b, " (userinfo ends at the first '@')"...)
		}
		return b
	case errPct:
		end := min(off+3, len(in))
		b = strconv.AppendQuote(append(b, "percent-encoding "...), in[off:end])
		return append(b, " is not '%' followed by two hex digits"...)
	case errSchemeEmpty:
		return append(b, "missing scheme before ':'"...)
	case errSchemeStart:
		b = appendQuoteByte(append(b, "scheme must begin with a letter, not "...), in[off])
		if in[off] == '[' {
			return append(b, " (an IP-literal host needs \"//\" before it)"...)
		}
		return append(b, " (use \"./\" before a relative path containing ':')"...)
	case errIPLiteralOpen:
		return append(b, "IP-literal has no closing ']'"...)
	case errIPLiteralAfter:
		b = appendQuoteByte(append(b, "unexpected "...), in[off])
		return append(b, " after IP-literal (want ':' port or end of authority)"...)
	case errIPv6Groups:
		b = strconv.AppendInt(append(b, "IPv6 address has "...), int64(arg), 10)
		return append(b, " groups"...)
	case errIPv6Few:
		b = strconv.AppendInt(append(b, "IPv6 address has "...), int64(arg), 10)
		return append(b, " groups and no '::'"...)
	case errIPv6DoubleColon:
		return append(b, "IPv6 address has more than one '::'"...)
	case errIPv6GroupLen:
		return append(b, "IPv6 group has more than 4 hex digits"...)
	case errIPv6Colon:
		return append(b, "IPv6 address has a single ':' at its start or end, or ':::'"...)
	case errIPv6IPv4:
		return append(b, "IPv6 address has an invalid embedded IPv4 address (ls32)"...)
	case errIPv6Empty:
		return append(b, "IP-literal is empty"...)
	case errTooLong:
		return append(b, "input longer than MaxLength"...)
	case errLineTooLong:
		b = strconv.AppendInt(append(b, "line of "...), int64(arg), 10)
		b = strconv.AppendInt(append(b, " bytes is longer than the limit of "...), int64(off), 10)
		return append(b, " bytes"...)
	case errIPvFuture:
		return append(b, "IPvFuture must be 'v' 1*HEXDIG '.' 1*( unreserved / sub-delims / ':' )"...)
	}
	return append(b, "invalid URI reference"...)
}

func quoteByte(b byte) string {
	var buf [16]byte
	return string(appendQuoteByte(buf[:0], b))
}

// appendQuoteByte appends 'c' for a printable byte, byte 0xHH otherwise.
func appendQuoteByte(b []byte, c byte) []byte {
	if c >= 0x20 && c < 0x7f {
		if c == '\'' {
			return append(b, `'\''`...)
		}
		return append(b, '\'', c, '\'')
	}
	const hex = "0123456789abcdef"
	return append(b, 'b', 'y', 't', 'e', ' ', '0', 'x', hex[c>>4], hex[c&15])
}

func quoteInput(s string) string {
	const max = 200
	if len(s) > max {
		var b strings.Builder
		b.WriteString(strconv.Quote(s[:max]))
		b.WriteString("...")
		return b.String()
	}
	return strconv.Quote(s)
}
