// Package domain splits a host name at its public suffix: the part a
// registry hands out names under ("com", "co.uk", and with private suffixes
// "github.io"), the registrable domain one label longer ("example.co.uk",
// the eTLD+1), and the subdomain before it ("www"). The list is the Public
// Suffix List compiled into golang.org/x/net/publicsuffix.
//
// Importing it links golang.org/x/net/publicsuffix, which imports
// net/http/cookiejar (and so net/http): package format takes a SplitFunc
// instead, so that a program can leave the list out.
//
// Crawlers scope and rate-limit by registrable domain; log pipelines group
// by it. Split costs a lookup and an allocation or two (the list's lookup
// allocates an error on every call); a Cache remembers the split of the
// hosts it saw and allocates nothing for a host it has seen.
//
// What has no registrable domain: an IP literal or IPv4 address, a
// single-label host ("localhost"), a host that is itself a public suffix
// ("co.uk"), a host with an empty label or a percent-encoded byte (give
// IDNs in their A-label form, "xn--..."; normalize's Crawler level writes
// them so), and a host longer than 253 bytes. A suffix no rule knows
// counts as one label ("example.invalid" has the suffix "invalid"), as
// the list's default rule "*" says.
package domain

import (
	"strings"

	"golang.org/x/net/publicsuffix"
)

// Parts is a host name split at its public suffix. Each field is a slice
// of the host given to Split (so as written, case included), without the
// dots between them or a trailing one.
type Parts struct {
	Subdomain   string // "www" in "www.example.co.uk"; "" when there is none
	Registrable string // "example.co.uk"; "" when there is none
	Suffix      string // "co.uk"; "" when the host is not a domain name
}

// Rules says which entries of the list count.
type Rules uint8

const (
	// ICANN counts only the ICANN section: "user.github.io" is
	// registrable under "io". The default.
	ICANN Rules = iota
	// Private counts the private section too: "user.github.io" is
	// registrable under "github.io", as browsers scope cookies.
	Private
)

// maxName is the longest domain name (RFC 1035 §2.3.4: 255 octets on the
// wire, 253 written with dots).
const maxName = 253

// Split splits host at its public suffix under rules, and reports whether
// it has a registrable domain (see the package comment for what has none;
// a host that is itself a public suffix has Suffix set and ok false).
// Letters may be in either case; host is not copied.
func Split(host string, rules Rules) (p Parts, ok bool) {
	h := host
	if n := len(h); n > 0 && h[n-1] == '.' {
		h = h[:n-1] // a fully qualified name: the root's empty label
	}
	if len(h) == 0 || len(h) > maxName || !isName(h) {
		return Parts{}, false
	}
	// The list's labels are lowercase: look up a lowercase copy, and
	// take only lengths from what it returns.
	lower := h
	if hasUpper(h) {
		lower = strings.ToLower(h)
	}
	n := suffixLen(lower, rules)
	return cut(h, n)
}

// cut splits the name h (trailing dot removed) whose public suffix is its
// last n bytes.
func cut(h string, n int) (p Parts, ok bool) {
	p.Suffix = h[len(h)-n:]
	if n == len(h) {
		return p, false // the host is a public suffix
	}
	rest := h[:len(h)-n-1] // without the dot before the suffix
	dot := strings.LastIndexByte(rest, '.')
	p.Registrable = h[dot+1:]
	if dot >= 0 {
		p.Subdomain = h[:dot]
	}
	return p, true
}

// suffixLen is the length of the public suffix of the lowercase name h
// under rules.
func suffixLen(h string, rules Rules) int {
	s, icann := publicsuffix.PublicSuffix(h)
	if rules == Private || icann {
		return len(s)
	}
	// A private suffix, or an unknown one (the default rule "*"):
	// under ICANN rules, the longest ICANN suffix of it, or its last
	// label when there is none.
	for {
		dot := strings.IndexByte(s, '.')
		if dot < 0 {
			return len(s)
		}
		s = s[dot+1:]
		t, icann := publicsuffix.PublicSuffix(s)
		if icann {
			return len(t)
		}
	}
}

// isName reports whether h is a dotted name with at least two labels,
// none empty, that is not an IPv4 address (its last label is not all
// digits) or an IP literal, and holds no percent-encoded byte.
func isName(h string) bool {
	if h[0] == '.' || h[len(h)-1] == '.' {
		return false
	}
	dots, digits := 0, true
	for i := 0; i < len(h); i++ {
		switch c := h[i]; {
		case c == '.':
			if h[i-1] == '.' {
				return false
			}
			dots++
			digits = true
		case c == '%' || c == '[' || c == ':':
			return false
		case c < '0' || c > '9':
			digits = false
		}
	}
	return dots > 0 && !digits
}

func hasUpper(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return true
		}
	}
	return false
}

// Registrable returns host's registrable domain under ICANN rules, or ""
// when it has none: Split(host, ICANN)'s, for a function value
// (compat.SURTOptions.PublicSuffix).
func Registrable(host string) string {
	p, _ := Split(host, ICANN)
	return p.Registrable
}
