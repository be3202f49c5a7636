package cli

import (
	"bytes"

	"github.com/uriscan/uriscan"
)

// Passwords in userinfo (RFC 3986 §7.5) are redacted, "user:***@", in
// every output made of URIs, in every report that echoes a line and in
// every error that echoes an argument, unless --show-passwords. Valid
// line or not, the password is what a reader takes for one
// (uriscan.FindPassword: the userinfo runs to the last "@" before the
// first "/", "?" or "#" after "//", whatever bytes it holds). What is
// compared and hashed (dedup's identity, normalize's "hash") is the URI
// as shown, password redacted.

// redacts reports whether passwords are redacted (r nil: yes).
func (r *reports) redacts() bool { return r == nil || !r.showPasswords }

// redactFrom redacts, if r redacts, the password in the URI text b[start:]
// in place, and returns b.
func (r *reports) redactFrom(b []byte, start int) []byte {
	if !r.redacts() {
		return b
	}
	return redactTail(b, start)
}

// redactTail replaces the password of the URI text b[start:], if any, by
// uriscan.Redacted. Only a line with a password pays for a copy.
func redactTail(b []byte, start int) []byte {
	s, e, ok := uriscan.FindPassword(b[start:])
	if !ok {
		return b
	}
	tail := append([]byte(nil), b[start+e:]...)
	b = append(b[:start+s], uriscan.Redacted...)
	return append(b, tail...)
}

// appendShown appends text, its password redacted if r redacts.
func (r *reports) appendShown(b, text []byte) []byte {
	if !r.redacts() {
		return append(b, text...)
	}
	return uriscan.AppendRedacted(b, text)
}

// shownBytes returns text, or with redact and a password in text, a copy
// with the password redacted.
func shownBytes(text []byte, redact bool) []byte {
	if redact && uriscan.HasPassword(text) {
		return uriscan.AppendRedacted(nil, text)
	}
	return text
}

// shownHead returns what an echo shows of the bytes held of a line (all
// of it, or with cut only its first bytes: a line over --max-line): at
// most its first max bytes (max < 0: all), with redact its password
// redacted first, so that a password that runs past the first max bytes
// shows none of them. In a cut line, what a reader would take for a
// password if the next byte, never read, were the "@" that ends the
// userinfo is redacted too ("http://u:pw...").
func shownHead(text []byte, max int, cut, redact bool) []byte {
	if redact && cut && bytes.IndexByte(text, ':') >= 0 {
		t := append(append(make([]byte, 0, len(text)+1), text...), '@')
		if s, e, ok := uriscan.FindPassword(t); ok && e == len(text) {
			text = append(t[:s], uriscan.Redacted...)
		}
	}
	text = shownBytes(text, redact)
	if max >= 0 && len(text) > max {
		text = text[:max]
	}
	return text
}

// shownArg returns a command-line argument as an error message echoes it:
// with redact, its password redacted (an invalid --base is echoed).
func shownArg(arg string, redact bool) string {
	if redact && uriscan.HasPassword([]byte(arg)) {
		return string(uriscan.AppendRedacted(nil, []byte(arg)))
	}
	return arg
}

// appendURI appends u's text, its password redacted with redact.
func appendURI(b []byte, u *uriscan.URI, redact bool) []byte {
	ps, pe := redactSpan(u, redact)
	return appendRedactedSpan(b, u.String(), ps, pe)
}

// redactDerived redacts, with redact, the password of b[start:], a URI
// made from u (its normal form, a resolution against it): only when u
// has one, so that a "//" and "@" in a path never read as userinfo.
func redactDerived(b []byte, start int, redact bool, from ...*uriscan.URI) []byte {
	if !redact {
		return b
	}
	for _, u := range from {
		if _, _, ok := u.PasswordSpan(); ok {
			return redactTail(b, start)
		}
	}
	return b
}

// appendWarningsJSON appends ,"warnings":[NAMES] (the RFC 3986 §7
// warnings w, uriscan.Warnings), and ,"ipv4":"A.B.C.D" when the host is a
// rare IPv4 form, to a JSON object.
func appendWarningsJSON(b []byte, u *uriscan.URI, w uriscan.Warnings) []byte {
	b = append(b, `,"warnings":[`...)
	b = appendWarningNames(b, w, `"`)
	b = append(b, ']')
	if a, ok := u.RareIPv4(); ok && w&uriscan.RareIPv4 != 0 {
		b = append(b, `,"ipv4":"`...)
		b = a.AppendTo(b)
		b = append(b, '"')
	}
	return b
}

// appendWarningNames appends the names of w's warnings, comma-separated,
// each between quote.
func appendWarningNames(b []byte, w uriscan.Warnings, quote string) []byte {
	first := true
	for i := range uriscan.NumWarnings {
		if bit := uriscan.Warnings(1) << i; w&bit != 0 {
			if !first {
				b = append(b, ',')
			}
			first = false
			b = append(b, quote...)
			b = append(b, bit.Name()...)
			b = append(b, quote...)
		}
	}
	return b
}

// appendWarningsText appends "NAME, NAME (A.B.C.D)" for validate --warn.
func appendWarningsText(b []byte, u *uriscan.URI, w uriscan.Warnings) []byte {
	first := true
	for i := range uriscan.NumWarnings {
		if bit := uriscan.Warnings(1) << i; w&bit != 0 {
			if !first {
				b = append(b, ", "...)
			}
			first = false
			b = append(b, bit.Name()...)
			if bit == uriscan.RareIPv4 {
				if a, ok := u.RareIPv4(); ok {
					b = append(b, " ("...)
					b = a.AppendTo(b)
					b = append(b, ')')
				}
			}
		}
	}
	return b
}
