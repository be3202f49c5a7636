package compat

import "github.com/uriscan/uriscan/classify"

// The byte helpers the three canonicalizations share, the same as
// normalize's (each is a line or a switch; format and logformat keep
// their own too).

const upperHex = "0123456789ABCDEF"

var amp = []byte{'&'}

func toLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func unhex(c byte) byte {
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

func isHex(c byte) bool { return classify.Table[c]&classify.HexDig != 0 }
