package cli

import (
	"encoding/base64"
	"strconv"
	"unicode/utf8"
	"unsafe"

	"github.com/uriscan/uriscan"
)

// appendSplitValid appends the JSON object "uriscan split" writes for a
// valid line (without the newline). It does not allocate when b has room.
// A valid URI-reference holds no byte that JSON escapes (no '"', '\',
// control or non-ASCII byte: RFC 3986 Appendix A allows none), so its
// text and components are copied as they are.
//
// With redact, a password in the userinfo is written as uriscan.Redacted
// in "input" and "userinfo" (in "host" for an RFC 2396 reg-name that holds
// one).
func appendSplitValid(b []byte, file string, line int, u *uriscan.URI, redact bool) []byte {
	b = appendRecordStart(b, file)
	b = strconv.AppendInt(b, int64(line), 10)
	ps, pe := redactSpan(u, redact)
	b = append(b, `,"input":"`...)
	b = appendRedactedSpan(b, u.String(), ps, pe)
	b = append(b, `","valid":true,"scheme":`...)
	b = appendRawComponent(b, u, uriscan.Scheme, 0, 0)
	b = append(b, `,"userinfo":`...)
	b = appendRawComponent(b, u, uriscan.Userinfo, ps, pe)
	b = append(b, `,"host":`...)
	b = appendRawComponent(b, u, uriscan.Host, ps, pe)
	b = append(b, `,"host_type":`...)
	if u.HasAuthority() {
		b = append(b, '"')
		b = append(b, u.HostType().String()...)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"port":`...)
	b = appendRawComponent(b, u, uriscan.Port, 0, 0)
	b = append(b, `,"path":"`...)
	b = append(b, u.Path()...)
	b = append(b, `","query":`...)
	b = appendRawComponent(b, u, uriscan.Query, 0, 0)
	b = append(b, `,"fragment":`...)
	b = appendRawComponent(b, u, uriscan.Fragment, 0, 0)
	return append(b, '}')
}

// appendRawComponent appends component c of a valid URI as a JSON string
// without escaping (see appendSplitValid), or null if it is undefined; the
// password span [ps, pe) is written redacted (see appendComponent).
func appendRawComponent(b []byte, u *uriscan.URI, c uriscan.Component, ps, pe int) []byte {
	if !u.Has(c) {
		return append(b, "null"...)
	}
	b = append(b, '"')
	b = appendComponent(b, u, c, ps, pe)
	return append(b, '"')
}

// redactSpan is where u's password is in its text when redact says to
// hide it (the userinfo's; an RFC 2396 reg-name's, see
// (*uriscan.URI).PasswordSpan), else 0, 0: computed once per record.
func redactSpan(u *uriscan.URI, redact bool) (ps, pe int) {
	if redact {
		if s, e, ok := u.PasswordSpan(); ok {
			return s, e
		}
	}
	return 0, 0
}

// appendComponent appends the text of component c of u, the part of it in
// the password span [ps, pe) (none when ps == pe) as uriscan.Redacted.
func appendComponent(b []byte, u *uriscan.URI, c uriscan.Component, ps, pe int) []byte {
	cs, ce, _ := u.Span(c)
	return appendRedactedSpan(b, u.String()[cs:ce], ps-cs, pe-cs)
}

// appendRedactedSpan appends text with text[ps:pe] as uriscan.Redacted,
// when that is a non-empty span inside it.
func appendRedactedSpan(b []byte, text string, ps, pe int) []byte {
	if ps < pe && ps >= 0 && pe <= len(text) {
		b = append(b, text[:ps]...)
		b = append(b, uriscan.Redacted...)
		return append(b, text[pe:]...)
	}
	return append(b, text...)
}

// appendSplitInvalid appends the JSON object "uriscan split" writes for an
// invalid line: its bytes as "input" if they are UTF-8, else as
// "input_base64", and the error's offset and reason.
//
// A line over the line limit holds only its first bytes, which are
// written as "input"; "input_length" then gives the line's length.
// With redact, a password is redacted in the input (see
// uriscan.AppendRedacted); "input_length" is the length as read.
func appendSplitInvalid(b []byte, file string, line int, text []byte, length int64, perr *uriscan.Error, redact bool) []byte {
	b = appendRecordStart(b, file)
	b = strconv.AppendInt(b, int64(line), 10)
	shown := shownHead(text, -1, length > int64(len(text)), redact)
	if utf8.Valid(shown) {
		b = append(b, `,"input":`...)
		b = appendJSONString(b, view(shown))
	} else {
		b = append(b, `,"input_base64":"`...)
		b = base64.StdEncoding.AppendEncode(b, shown)
		b = append(b, '"')
	}
	if length != int64(len(text)) {
		b = append(b, `,"input_length":`...)
		b = strconv.AppendInt(b, length, 10)
	}
	b = append(b, `,"valid":false,"error":{"offset":`...)
	b = strconv.AppendInt(b, int64(perr.Offset), 10)
	b = append(b, `,"reason":`...)
	var rb [256]byte
	b = appendJSONString(b, view(perr.AppendReason(rb[:0])))
	return append(b, "}}"...)
}

// view returns b as a string without copying, for a callee that does not
// keep it (appendJSONString).
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// appendRecordStart opens a JSON record: {"file":FILE,"line": when the run
// reads more than one input (file is then not ""), else {"line":.
func appendRecordStart(b []byte, file string) []byte {
	if file == "" {
		return append(b, `{"line":`...)
	}
	b = append(b, `{"file":`...)
	b = appendJSONString(b, file)
	return append(b, `,"line":`...)
}

// file is the "file" of a JSON record or TSV row of input name: name
// when the run reads more than one input, else "" (none).
func (r *reports) file(name string) string {
	if r.withFile {
		return name
	}
	return ""
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string (RFC 8259 §7): '"' and '\'
// are escaped with a backslash, control characters as \u00XX, and any
// invalid UTF-8 becomes U+FFFD so the output is always valid JSON.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is pending, needing no escape
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			if c == '"' || c == '\\' {
				b = append(b, '\\', c)
			} else {
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
