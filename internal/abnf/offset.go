package abnf

import "strings"

// errOffset computes the error offset of s by the normative rules of the
// "Errors" section of the uriscan package documentation, or -1 when those
// rules find no violation. It is deliberately separate from the ABNF
// matcher: the tests check that it finds a violation exactly when the
// matcher rejects s.
//
// Step 1 splits s into components (Appendix B with the colon rule); step 2
// takes the smallest offset at which any listed violation holds.
//
// Two points the prose leaves open are read as follows:
//   - "v" in IPvFuture is an ABNF quoted string and so case-insensitive
//     (RFC 5234 §2.3): an IP-literal starting with "v" or "V" is IPvFuture.
//   - An IP-literal without "]" still has its content (up to the end of the
//     authority) checked by the IPvFuture / IPv6 rules, so "//[x" fails at
//     the "x" (offset 3) rather than at the end of the authority (4).
func errOffset(s string) int {
	best := -1
	violation := func(off int) {
		if best < 0 || off < best {
			best = off
		}
	}

	// Whole-input rules: never-valid bytes, bad "%", a second "#".
	firstHash := strings.IndexByte(s, '#')
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isURIByte(c) {
			violation(i)
		}
		if c == '%' && !(i+2 < len(s) && isHex(s[i+1]) && isHex(s[i+2])) {
			violation(i)
		}
		if c == '#' && i != firstHash {
			violation(i)
		}
	}

	// Step 1: the scheme, by the colon rule.
	rest := 0
	colon := strings.IndexByte(s, ':')
	delim := strings.IndexAny(s, "/?#")
	if colon >= 0 && (delim < 0 || colon < delim) {
		if colon == 0 || !isAlpha(s[0]) {
			violation(0)
		}
		for i := 1; i < colon; i++ {
			if !(isAlpha(s[i]) || isDigit(s[i]) || s[i] == '+' || s[i] == '-' || s[i] == '.') {
				violation(i)
			}
		}
		rest = colon + 1
	}

	// The authority, if "//" follows.
	openBracket, closeBracket := -1, -1 // the brackets of an IP-literal host
	if strings.HasPrefix(s[rest:], "//") {
		a := rest + 2
		end := len(s)
		if n := strings.IndexAny(s[a:], "/?#"); n >= 0 {
			end = a + n
		}
		host := a
		if at := strings.IndexByte(s[a:end], '@'); at >= 0 {
			host = a + at + 1
			if at2 := strings.IndexByte(s[host:end], '@'); at2 >= 0 {
				violation(host + at2)
			}
		}
		portStart := -1
		if host < end && s[host] == '[' {
			openBracket = host
			if n := strings.IndexByte(s[host:end], ']'); n < 0 {
				violation(end) // IP-literal without "]"
				checkIPLiteral(s, host+1, end, violation)
			} else {
				closeBracket = host + n
				checkIPLiteral(s, host+1, closeBracket, violation)
				if after := closeBracket + 1; after < end {
					if s[after] != ':' {
						violation(after)
					} else {
						portStart = after + 1
					}
				}
			}
		} else if n := strings.IndexByte(s[host:end], ':'); n >= 0 {
			portStart = host + n + 1
		}
		if portStart >= 0 {
			for i := portStart; i < end; i++ {
				if !isDigit(s[i]) {
					violation(i)
				}
			}
		}
	}

	// "[" and "]" anywhere but around an IP-literal host.
	for i := 0; i < len(s); i++ {
		if (s[i] == '[' || s[i] == ']') && i != openBracket && i != closeBracket {
			violation(i)
		}
	}
	return best
}

// checkIPLiteral applies the IPvFuture / IPv6 rules to the IP-literal
// content s[b:e] (after "[", up to "]" or the end of the authority).
func checkIPLiteral(s string, b, e int, violation func(int)) {
	if b < e && (s[b] == 'v' || s[b] == 'V') {
		// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ):
		// report where it stops matching, or e (the "]") if too short.
		i := b + 1
		for i < e && isHex(s[i]) {
			i++
		}
		if i == b+1 || i == e || s[i] != '.' {
			violation(i)
			return
		}
		i++
		j := i
		for i < e && (isUnreserved(s[i]) || isSubDelim(s[i]) || s[i] == ':') {
			i++
		}
		if i == j || i < e {
			violation(i)
		}
		return
	}
	allOK := true
	for i := b; i < e; i++ {
		if !(isHex(s[i]) || s[i] == ':' || s[i] == '.') {
			violation(i)
			allOK = false
		}
	}
	if allOK && !matchesRule(s[b:e], func(p *parser) rule { return p.ipv6address }) {
		violation(b)
	}
}

func isAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
func isUnreserved(c byte) bool {
	return isAlpha(c) || isDigit(c) || c == '-' || c == '.' || c == '_' || c == '~'
}
func isSubDelim(c byte) bool { return strings.IndexByte("!$&'()*+,;=", c) >= 0 }
func isGenDelim(c byte) bool { return strings.IndexByte(":/?#[]@", c) >= 0 }

// isURIByte reports whether c can appear somewhere in a URI-reference:
// unreserved, reserved, or the "%" of a pct-encoded triplet.
func isURIByte(c byte) bool {
	return isUnreserved(c) || isSubDelim(c) || isGenDelim(c) || c == '%'
}
