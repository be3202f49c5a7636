// The authority's checks: userinfo, host (IP-literal, IPv4address,
// reg-name) and port, called by the walk once it has found their ends.

package uriscan

import (
	"math"
	"strings"

	"github.com/uriscan/uriscan/classify"
)

// closeAuthority splits and checks the authority src[a:end] from the
// positions the walk recorded: the first two '@', the first ':' before
// and after the first '@', and the first brackets.
//
//	host = IP-literal / IPv4address / reg-name
//	port = *DIGIT
func (w *walker) closeAuthority(u *URI, a, end, firstAt, secondAt, colon, colonAfterAt int, br []int) {
	src := w.src
	hostStart := a
	if firstAt >= 0 {
		u.set(Userinfo, a, firstAt)
		hostStart, colon = firstAt+1, colonAfterAt
		if secondAt >= 0 {
			w.fail(secondAt, errChar, 0, numComponents)
		}
	}
	lb, rb := -1, -1
	if hostStart < end && src[hostStart] == '[' {
		// IP-literal = "[" ( IPv6address / IPvFuture  ) "]"
		lb = hostStart
		if i := strings.IndexByte(src[hostStart:end], ']'); i >= 0 {
			rb = hostStart + i
			u.set(Host, hostStart, rb+1)
			w.checkIPLiteral(u, hostStart+1, rb)
			if rb+1 < end {
				if src[rb+1] == ':' {
					w.checkPort(u, rb+2, end)
				} else {
					w.fail(rb+1, errIPLiteralAfter, 0, Host)
				}
			}
		} else {
			u.set(Host, hostStart, end)
			w.checkIPLiteral(u, hostStart+1, end) // content checked as if closed
			w.fail(end, errIPLiteralOpen, 0, Host)
		}
	} else {
		hostEnd := end
		if colon >= 0 {
			hostEnd = colon
			w.checkPort(u, colon+1, end)
		}
		u.set(Host, hostStart, hostEnd)
		u.hostType = regNameKind(src[hostStart:hostEnd])
	}
	for _, q := range br {
		if q != lb && q != rb {
			w.fail(q, errChar, 0, numComponents)
			break
		}
	}
}

// checkPort checks port = *DIGIT on src[a:b] and records its value.
func (w *walker) checkPort(u *URI, a, b int) {
	u.set(Port, a, b)
	bad, v, ok := portDigits(w.src[a:b])
	if bad >= 0 {
		w.fail(a+bad, errChar, 0, Port)
		return
	}
	u.port, u.portOK = v, ok
}

// portDigits checks port = *DIGIT on s, for the walk and the Go fast path:
// it returns the index of the first byte that is not a DIGIT (-1 when
// all are), and s's value with ok when s is not empty and the value fits
// 16 bits.
func portDigits(s string) (bad int, v uint16, ok bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return i, 0, false
		}
		if n <= math.MaxUint16 {
			n = n*10 + int(c-'0')
		}
	}
	if len(s) > 0 && n <= math.MaxUint16 {
		return -1, uint16(n), true
	}
	return -1, 0, false
}

// checkIPLiteral checks the text src[a:b] after "[" and before "]" (or
// the end of the authority when "]" is missing).
//
//	IP-literal = "[" ( IPv6address / IPvFuture  ) "]"
//	IPvFuture  = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
func (w *walker) checkIPLiteral(u *URI, a, b int) {
	s := w.src[a:b]
	if len(s) > 0 && s[0]|0x20 == 'v' { // ABNF strings are case-insensitive: "V" too
		u.hostType = IPvFuture
		if i := ipvFutureError(s); i >= 0 {
			w.fail(a+i, errIPvFuture, 0, Host)
		}
		return
	}
	u.hostType = IPv6
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ':' && c != '.' && classify.Table[c]&classify.HexDig == 0 {
			w.fail(a+i, errChar, 0, Host)
			return
		}
	}
	if code, arg := checkIPv6(s); code != errNone {
		w.fail(a, code, arg, Host)
	}
}

// ipvFutureError returns the index in s (which starts with 'v') where
// IPvFuture stops matching, len(s) if s is too short, or -1 if s matches.
func ipvFutureError(s string) int {
	i := 1
	for i < len(s) && classify.Table[s[i]]&classify.HexDig != 0 {
		i++
	}
	if i == 1 || i == len(s) || s[i] != '.' {
		return i
	}
	i++
	if i == len(s) {
		return i
	}
	for ; i < len(s); i++ {
		if s[i] != ':' && classify.Table[s[i]]&(classify.Unreserved|classify.SubDelim) == 0 {
			return i
		}
	}
	return -1
}

// checkIPv6 checks s, made only of HEXDIG, ':' and '.', against the nine
// alternatives of IPv6address (§3.2.2). They amount to: h16 = 1*4HEXDIG
// groups separated by ':', an optional ls32 IPv4address as the last two
// groups, at most one "::", and exactly 8 groups without "::" or at most
// 7 with it.
func checkIPv6(s string) (errCode, int) {
	if len(s) == 0 {
		return errIPv6Empty, 0
	}
	groups, double := 0, false
	i := 0
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return errIPv6Colon, 0
		}
		double, i = true, 2
	}
	for i < len(s) {
		j := i
		for j < len(s) && classify.Table[s[j]]&classify.HexDig != 0 {
			j++
		}
		if j < len(s) && s[j] == '.' {
			// ls32 = ( h16 ":" h16 ) / IPv4address, only at the end.
			if !isIPv4(s[i:]) {
				return errIPv6IPv4, 0
			}
			groups += 2
			break
		}
		switch n := j - i; {
		case n == 0:
			return errIPv6Colon, 0
		case n > 4:
			return errIPv6GroupLen, 0
		}
		groups++
		if j == len(s) {
			break
		}
		// s[j] == ':'
		if j+1 < len(s) && s[j+1] == ':' {
			if double {
				return errIPv6DoubleColon, 0
			}
			double, i = true, j+2
			continue
		}
		i = j + 1
		if i == len(s) {
			return errIPv6Colon, 0
		}
	}
	switch {
	case !double && groups < 8:
		return errIPv6Few, groups
	case !double && groups > 8, double && groups > 7:
		return errIPv6Groups, groups
	}
	return errNone, 0
}

// regNameKind returns the type of a host that is not an IP-literal:
// first-match-wins (§3.2.2) makes it IPv4 when it matches IPv4address,
// else reg-name. mayBeIPv4 keeps the call to isIPv4 off the path of
// ordinary host names.
func regNameKind(h string) HostType {
	if !mayBeIPv4(h) {
		return RegName
	}
	return dottedKind(h)
}

// dottedKind is regNameKind for a host mayBeIPv4 let through, kept out
// of line so that fast's copy of regNameKind stays small.
//
//go:noinline
func dottedKind(h string) HostType {
	if isIPv4(h) {
		return IPv4
	}
	return RegName
}

// mayBeIPv4 is the filter every path applies before isIPv4 (the batch
// assembly refuses the host instead): an IPv4address has 7 bytes or more
// and ends in a digit, so a host shorter or ending above '9' is a reg-name.
func mayBeIPv4(h string) bool {
	return len(h) >= 7 && h[len(h)-1] <= '9'
}

// isIPv4 reports whether s matches
// IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet, where
// dec-octet is 0-255 without leading zeros.
func isIPv4(s string) bool {
	if len(s) < 7 || len(s) > 15 || s[0]-'0' > 9 || s[len(s)-1]-'0' > 9 {
		return false
	}
	for k := 0; k < 4; k++ {
		n := 0
		for n < len(s) && n < 3 && '0' <= s[n] && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 1 && s[0] == '0' || n == 3 && s[:3] > "255" {
			return false
		}
		s = s[n:]
		if k < 3 {
			if len(s) == 0 || s[0] != '.' {
				return false
			}
			s = s[1:]
		}
	}
	return len(s) == 0
}
