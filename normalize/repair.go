package normalize

import (
	"bytes"

	"github.com/uriscan/uriscan/classify"
	"github.com/uriscan/uriscan/internal/ascii"
)

// Repairs says what Repair changed.
type Repairs struct {
	Trimmed     int // C0 controls and spaces cut from the ends, tabs and newlines removed
	Backslashes int // "\" turned into "/" before the query, in http, https, ws, wss, ftp and file URLs
	Encoded     int // bytes percent-encoded
	IDNA        int // hosts written in their A-label form (1 or 0)
}

// Changed reports whether Repair changed anything.
func (r Repairs) Changed() bool { return r != Repairs{} }

// Repair is for crawls, not for strict parsing (which never changes): it
// appends to dst a version of raw that a browser would have requested,
// which RFC 3986 accepts, and reports what it changed. Like the WHATWG URL
// parser it cuts C0 controls and spaces from both ends, drops tabs and
// newlines, and reads "\" as "/" in the path of special schemes; then it
// percent-encodes, as UTF-8 bytes, everything the strict grammar rejects:
// spaces, controls, bytes >= 0x80, " < > \ ^ ` { | }, a "%" not followed
// by two hex digits, "[" and "]" outside an IP-literal host, and a second
// "#". A reg-name host that is Unicode, raw or percent-encoded, becomes
// its A-label form by UTS #46's lookup profile, as a browser looks it up
// ("http://bücher.example/" gives "http://xn--bcher-kva.example/"); a host
// UTS #46 rejects is percent-encoded instead. Parse the result strictly:
// it can still fail (a bad scheme, say).
func Repair(dst, raw []byte) ([]byte, Repairs) {
	var r Repairs
	start, end := 0, len(raw)
	for start < end && raw[start] <= ' ' {
		start++
	}
	for end > start && raw[end-1] <= ' ' {
		end--
	}
	r.Trimmed = len(raw) - (end - start)
	s := raw[start:end]
	if bytes.IndexAny(s, "\t\n\r") < 0 {
		return repair(dst, s, r)
	}
	// The WHATWG parser removes every tab and newline before it reads
	// anything, so "http:/\n/h" has a host and a newline inside a
	// UTF-8 sequence does not split it. The cleaned copy is put after
	// dst's end, repaired from there and moved down over itself.
	mark := len(dst)
	for _, c := range s {
		if c == '\t' || c == '\n' || c == '\r' {
			r.Trimmed++
		} else {
			dst = append(dst, c)
		}
	}
	n := len(dst) - mark
	dst, r = repair(dst, dst[mark:], r)
	return dst[:mark+copy(dst[mark:], dst[mark+n:])], r
}

// repair is Repair on s, which is trimmed and has no tab or newline; r
// holds what the trimming changed. s may be the last bytes of dst: repair
// only appends to dst and never writes over s.
func repair(dst, s []byte, r Repairs) ([]byte, Repairs) {
	// Where the scheme, the host and the query start, roughly as the
	// strict scanner will see them.
	scheme := 0
	if i := bytes.IndexByte(s, ':'); i > 0 && bytes.IndexAny(s[:i], "/?#") < 0 {
		scheme = i
	}
	special := scheme > 0 && isSpecial(s[:scheme])
	hostStart, hostEnd := -1, -1
	if rest := s[scheme:]; scheme > 0 && len(rest) >= 3 && rest[1] == '/' && (rest[2] == '/' || special && rest[2] == '\\') ||
		scheme == 0 && len(s) >= 2 && s[0] == '/' && s[1] == '/' {
		hostStart = 2
		if scheme > 0 {
			hostStart = scheme + 3
		}
		hostEnd = hostStart
		for hostEnd < len(s) && !isAuthorityEnd(s[hostEnd], special) {
			hostEnd++
		}
		if at := bytes.LastIndexByte(s[hostStart:hostEnd], '@'); at >= 0 {
			hostStart += at + 1
		}
	}
	// The host without its port, and its A-label form if it has one; the
	// A-label is built at the end of dst and moved into place.
	var alabel []byte
	nameEnd := hostEnd
	if hostStart >= 0 && hostStart < hostEnd && s[hostStart] != '[' {
		if c := bytes.LastIndexByte(s[hostStart:hostEnd], ':'); c >= 0 && allDigits(s[hostStart+c+1:hostEnd]) {
			nameEnd = hostStart + c
		}
		mark := len(dst)
		if a, ok := appendIDNAHost(dst, s[hostStart:nameEnd]); ok {
			alabel = append(alabel, a[mark:]...)
			dst = a[:mark]
		}
	}
	inQuery, hashes := false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == hostStart && alabel != nil {
			r.IDNA++
			dst = append(dst, alabel...)
			i = nameEnd - 1
			continue
		}
		switch {
		case c == '\\' && special && !inQuery && hashes == 0:
			r.Backslashes++
			dst = append(dst, '/')
			continue
		case c == '?' && hashes == 0:
			inQuery = true
		case c == '#':
			hashes++
			if hashes > 1 {
				dst = appendEncoded(dst, c, &r)
				continue
			}
		case c == '%':
			if i+2 >= len(s) || classify.Table[s[i+1]]&classify.Table[s[i+2]]&classify.HexDig == 0 {
				dst = appendEncoded(dst, c, &r)
				continue
			}
		case c == '[' || c == ']':
			literal := hostStart >= 0 && hostStart < hostEnd && s[hostStart] == '[' && i >= hostStart && i < hostEnd &&
				(c == '[' && i == hostStart || c == ']' && i == hostStart+bytes.IndexByte(s[hostStart:hostEnd], ']'))
			if !literal {
				dst = appendEncoded(dst, c, &r)
				continue
			}
		case classify.Table[c]&classify.Invalid != 0:
			dst = appendEncoded(dst, c, &r)
			continue
		}
		dst = append(dst, c)
	}
	return dst, r
}

func appendEncoded(dst []byte, c byte, r *Repairs) []byte {
	r.Encoded++
	return append(dst, '%', ascii.UpperHex[c>>4], ascii.UpperHex[c&15])
}

func isAuthorityEnd(c byte, special bool) bool {
	return c == '/' || c == '?' || c == '#' || special && c == '\\'
}

// isSpecial reports whether scheme is one the WHATWG URL standard treats
// as special (where "\" means "/").
func isSpecial(scheme []byte) bool {
	switch string(bytes.ToLower(scheme)) {
	case "http", "https", "ws", "wss", "ftp", "file":
		return true
	}
	return false
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
