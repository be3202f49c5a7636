// Package ascii holds the byte helpers of percent-encoding (RFC 3986
// §2.1: pct-encoded = "%" HEXDIG HEXDIG) and case folding that the
// normalizer, its compatibility forms and the --get formatter share.
package ascii

import "github.com/uriscan/uriscan/classify"

// UpperHex are the digits of an uppercase percent-encoding (RFC 3986
// §6.2.2.1: "%3A", not "%3a").
const UpperHex = "0123456789ABCDEF"

// Lower returns c lowercased if it is an ASCII letter, else c.
func Lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// IsHex reports whether c is a HEXDIG.
func IsHex(c byte) bool { return classify.Table[c]&classify.HexDig != 0 }

// Unhex returns the value of the HEXDIG c, 0 for another byte.
func Unhex(c byte) byte {
	switch {
	case '0' <= c && c <= '9':
		return c - '0'
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10
	}
	return 0
}
