package cli

import (
	"errors"
	"strconv"
	"unicode/utf8"

	"github.com/uriscan/uriscan"
)

// split --format tsv writes the same record as its JSON, one row per input
// line, in PostgreSQL's COPY text format (tab-separated; read by most TSV
// tools, and COPY ... FROM loads it into text columns as long as no
// invalid line holds a NUL or bytes that are not UTF-8, which a text
// column cannot store): an undefined component is
// \N, a defined empty one the empty field, and a field's backslash, tab,
// newline and carriage return are written \\, \t, \n and \r, its other
// control bytes and the bytes of an invalid UTF-8 sequence \xHH. A valid
// URI holds none of these (RFC 3986 allows no control byte, space or
// backslash), so its components are written exactly as they are; only the
// input of an invalid line can need escapes.

// tsvNull is an undefined field.
const tsvNull = `\N`

// splitTSVColumns are split's TSV columns, after "file" when the run
// reads more than one input; --flags adds splitTSVFlagColumns.
var (
	splitTSVColumns     = []string{"line", "input", "valid", "scheme", "userinfo", "host", "host_type", "port", "path", "query", "fragment", "error_offset", "error_reason"}
	splitTSVFlagColumns = []string{"warnings", "ipv4"}
)

// appendSplitTSVHeader appends the header row (--header).
func appendSplitTSVHeader(b []byte, file, flags, domains bool) []byte {
	if file {
		b = append(b, "file\t"...)
	}
	for i, c := range splitTSVColumns {
		if i > 0 {
			b = append(b, '\t')
		}
		b = append(b, c...)
	}
	if flags {
		for _, c := range splitTSVFlagColumns {
			b = append(b, '\t')
			b = append(b, c...)
		}
	}
	if domains {
		b = append(b, "\tetld\trdn\tsubdomain"...)
	}
	return append(b, '\n')
}

// appendTSVField appends s escaped as a COPY text field.
func appendTSVField[T string | []byte](b []byte, s T) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\t':
			b = append(b, `\t`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '\r':
			b = append(b, `\r`...)
		case c < 0x20 || c == 0x7f:
			b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
			if r == utf8.RuneError && n <= 1 {
				b = append(b, '\\', 'x', hexDigits[c>>4], hexDigits[c&15])
				i++
				continue
			}
			b = append(b, s[i:i+n]...)
			i += n
			continue
		default:
			b = append(b, c)
		}
		i++
	}
	return b
}

// appendTSVRecordStart appends the file column, when there is one, and the
// line number.
func appendTSVRecordStart(b []byte, file string, line int) []byte {
	if file != "" {
		b = appendTSVField(b, file)
		b = append(b, '\t')
	}
	return strconv.AppendInt(b, int64(line), 10)
}

// appendTSVComponent appends '\t' and component c of a valid URI (the
// password span [ps, pe) redacted, see appendComponent), or \N if it is
// undefined.
func appendTSVComponent(b []byte, u *uriscan.URI, c uriscan.Component, ps, pe int) []byte {
	b = append(b, '\t')
	if !u.Has(c) {
		return append(b, tsvNull...)
	}
	return appendComponent(b, u, c, ps, pe) // a valid URI needs no escape (above)
}

// appendSplitTSVValid appends the row of a valid line (no '\n'), its
// password redacted with redact.
func appendSplitTSVValid(b []byte, file string, line int, u *uriscan.URI, redact bool) []byte {
	b = appendTSVRecordStart(b, file, line)
	ps, pe := redactSpan(u, redact)
	b = append(b, '\t')
	b = appendRedactedSpan(b, u.String(), ps, pe)
	b = append(b, "\ttrue"...)
	b = appendTSVComponent(b, u, uriscan.Scheme, 0, 0)
	b = appendTSVComponent(b, u, uriscan.Userinfo, ps, pe)
	b = appendTSVComponent(b, u, uriscan.Host, ps, pe)
	b = append(b, '\t')
	if u.HasAuthority() {
		b = append(b, u.HostType().String()...)
	} else {
		b = append(b, tsvNull...)
	}
	b = appendTSVComponent(b, u, uriscan.Port, 0, 0)
	b = append(b, '\t')
	b = append(b, u.Path()...)
	b = appendTSVComponent(b, u, uriscan.Query, 0, 0)
	b = appendTSVComponent(b, u, uriscan.Fragment, 0, 0)
	return append(b, "\t\\N\t\\N"...) // error_offset, error_reason
}

// appendSplitTSVFlags appends the --flags columns of a valid line: its
// warnings' names, comma-separated (empty if none), and the IPv4 address a
// rare IPv4 form is read as, or \N.
func appendSplitTSVFlags(b []byte, u *uriscan.URI, w uriscan.Warnings) []byte {
	b = append(b, '\t')
	b = appendWarningNames(b, w, "")
	b = append(b, '\t')
	if a, ok := u.RareIPv4(); ok && w&uriscan.RareIPv4 != 0 {
		return a.AppendTo(b)
	}
	return append(b, tsvNull...)
}

// appendSplitTSVInvalid appends the row of an invalid line (no '\n'): its
// bytes (only the first of a line over the limit, whose length the reason
// gives), its password redacted with redact, and the error's offset and
// reason; with flags, the --flags columns are \N.
func appendSplitTSVInvalid(b []byte, file string, line int, text []byte, perr *uriscan.Error, redact, flags bool) []byte {
	b = appendTSVRecordStart(b, file, line)
	b = append(b, '\t')
	b = appendTSVField(b, shownHead(text, -1, errors.Is(perr, uriscan.ErrTooLong), redact))
	b = append(b, "\tfalse"...)
	for range 8 { // scheme ... fragment
		b = append(b, "\t\\N"...)
	}
	b = append(b, '\t')
	b = strconv.AppendInt(b, int64(perr.Offset), 10)
	b = append(b, '\t')
	var rb [256]byte
	b = appendTSVField(b, perr.AppendReason(rb[:0]))
	if flags {
		b = append(b, "\t\\N\t\\N"...)
	}
	return b
}
