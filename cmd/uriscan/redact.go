package main

import (
	"flag"

	"github.com/uriscan/uriscan"
)

// Passwords in userinfo (RFC 3986 §7.5) are redacted, "user:***@", in
// every output made of URIs and in every report that echoes a line,
// unless --show-passwords. What is compared and hashed (dedup's
// identity, normalize's "hash") is the URI as written: only what is shown
// changes.

// addShowPasswordsFlag defines --show-passwords on fs.
func addShowPasswordsFlag(fs *flag.FlagSet) {
	fs.Bool("show-passwords", false, "write passwords in userinfo as they are; by default every output and report shows \"user:"+uriscan.Redacted+"@\" (RFC 3986 §7.5)")
}

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
