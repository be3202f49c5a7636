package compat

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/uriscan/uriscan/internal/ascii"
	"github.com/uriscan/uriscan/internal/ports"
	"golang.org/x/net/idna"
)

// SURTOptions are the options of the Internet Archive's surt() (Python
// package surt, github.com/internetarchive/surt) that change its output.
// The zero value is surt()'s defaults; each field, when true, is the
// non-default value of the option named in its comment.
//
// Options surt() has that are not here: public_suffix (needs the public
// suffix list through tldextract), canonicalizer (a custom canonicalizer;
// this package implements only the default one), host_lowercase (the
// default canonicalizer lowercases the host before that option is seen, so
// turning it off changes nothing), auth_strip_user and auth_strip_pass
// (surt's URL parser never fills in the userinfo, so it is always dropped)
// and hash_strip (the fragment is always dropped).
type SURTOptions struct {
	// IncludeScheme writes the scheme, as in "http://(com,example)/"
	// (with_scheme=True).
	IncludeScheme bool
	// TrailingComma writes a ',' before the ')' that ends the host, as in
	// "com,example,)/" (trailing_comma=True).
	TrailingComma bool
	// KeepWWW keeps a leading "www.", "www2." (www and digits) label
	// (host_massage=False).
	KeepWWW bool
	// KeepIPAddrOrder writes an IPv4 address host as it is, "192.168.1.254)/"
	// instead of "254,1,168,192)/" (reverse_ipaddr=False).
	KeepIPAddrOrder bool
	// PlainURL writes the canonicalized URL instead of a SURT: the host is
	// neither reversed nor wrapped in parentheses, as in "example.com/a"
	// or, with IncludeScheme, "http://example.com/a" (surt=False).
	PlainURL bool
	// KeepDefaultPort keeps ":80" on http and ":443" on https
	// (port_strip_default=False).
	KeepDefaultPort bool
	// StripEmptyPath removes a path that is just "/"
	// (path_strip_empty=True).
	StripEmptyPath bool
	// KeepPathCase does not lowercase the path (path_lowercase=False).
	KeepPathCase bool
	// KeepPathSessionID keeps ASP.NET session ids in the path, as in
	// "/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx"
	// (path_strip_session_id=False).
	KeepPathSessionID bool
	// KeepTrailingSlash keeps the '/' that ends a path longer than "/"
	// (path_strip_trailing_slash_unless_empty=False).
	KeepTrailingSlash bool
	// KeepQueryCase does not lowercase the query (query_lowercase=False).
	KeepQueryCase bool
	// KeepQuerySessionID keeps jsessionid, phpsessid, sid, aspsessionid
	// and cfid/cftoken parameters (query_strip_session_id=False).
	KeepQuerySessionID bool
	// KeepEmptyQuery keeps a '?' with nothing after it
	// (query_strip_empty=False).
	KeepEmptyQuery bool
	// KeepQueryOrder does not sort the query's parameters
	// (query_alpha_reorder=False).
	KeepQueryOrder bool
	// PublicSuffix, when set, gives the host's registrable domain, which
	// is written instead of the host, as in "com,example)/" for
	// www.example.com (surt's public_suffix=True, whose "public suffix" is
	// tldextract's registered domain, ICANN rules: domain.Registrable).
	// It is a function so that a program that does not use it does not
	// link the Public Suffix List. A host it gives "" for (an IP address,
	// a single label) is left out, as surt leaves it out.
	PublicSuffix func(host string) string
}

// Errors returned by AppendSURT: the inputs on which surt() raises.
var (
	// ErrSURTBlank: the input is not empty but is only white space
	// (surt() raises AttributeError).
	ErrSURTBlank = errors.New("compat: surt: URL is only white space")
	// ErrSURTPort: the port is not ASCII digits or is above 65535
	// (surt() raises ValueError).
	ErrSURTPort = errors.New("compat: surt: port is not a number in 0-65535")
)

// AppendSURT appends the SURT (Sort-friendly URI Reordering Transform) of
// raw to dst, as the Internet Archive's Python surt library computes it
// with surt(raw, **opts) and its default canonicalizer, the key Heritrix,
// the Wayback Machine and Common Crawl's CDX indexes sort by:
// "http://www.Example.com/a?b" gives "com,example)/a?b".
//
// The steps are surt's (handyurl.parse, GoogleURLCanonicalizer,
// IAURLCanonicalizer, handyurl.geturl_bytes), with its quirks:
//
//   - An empty raw gives "-", and a raw that starts with "filedesc" is
//     returned as it is.
//   - Parsing: leading and trailing ASCII white space is removed, then
//     every tab, CR and LF; a URL that does not start with "scheme:" gets
//     "http://" in front ("www.a.com:80/" has scheme "www.a.com"); a run
//     of "http://" and "https://" prefixes is reduced to its last one; the
//     URL is split with RFC 2396's regular expression; userinfo is dropped;
//     an http(s) URL with no host takes its first path segment as host
//     ("http:////www.a.com" is "http://www.a.com/").
//   - Google's canonicalization, the shared Safe Browsing steps of
//     AppendSafeBrowsing as surt implements them: the fragment is removed;
//     host, path and query are unescaped repeatedly and re-escaped (bytes
//     <= 0x20, >= 0x7F, '#' and '%', uppercase hex); a non-ASCII host is
//     converted to A-labels as Python's "idna" codec (IDNA 2003) does,
//     approximated here with UTS #46 transitional mapping, and kept as it
//     is when that fails (so a label with a code point that UTS #46
//     rejects but IDNA 2003 lets through, such as an unassigned one or a
//     leading combining mark, keeps its escaped bytes where surt would
//     punycode it); each ".." in the host becomes "." in one pass and
//     leading and trailing dots are removed; a host of only digits is an
//     IPv4 address modulo 2^32, and one that looks like a decimal or octal
//     dotted address is read as inet_aton does (surt asks the system
//     resolver; an address inet_aton rejects is taken as a name that does
//     not resolve); hexadecimal forms stay names; the path's "." and ".."
//     segments and repeated slashes are resolved as surt's normalizePath
//     does (a ".." above the root is kept). Unlike Safe Browsing the port
//     is kept.
//   - IA's canonicalization: the host is lowercased and loses a leading
//     "www", "www2"... label; the default port is removed; the path is
//     lowercased, loses ASP.NET session ids and its trailing slash; the
//     query loses session ids, is lowercased and its "&"-separated
//     parameters are sorted (by name, then value); an empty query is
//     removed. Lowercasing also lowercases the hex digits of escapes.
//   - The host's labels are reversed and joined by ',', then ')' is
//     written: "com,example)". A URL with no host (dns:, mailto:) is
//     written "scheme:path".
//
// The output is ASCII with no byte <= 0x20 or >= 0x7F (except for the
// "filedesc" case). It is a sort key, not a URL; with PlainURL and
// IncludeScheme it is the canonical URL, which is not always a fixed point
// (see FuzzSURT for the classes). On error (ErrSURTBlank, ErrSURTPort) dst is returned unchanged. It
// never panics.
func AppendSURT(dst, raw []byte, opts SURTOptions) ([]byte, error) {
	if len(raw) == 0 {
		return append(dst, '-'), nil
	}
	if bytes.HasPrefix(raw, []byte("filedesc")) {
		return append(dst, raw...), nil
	}
	var parseBuf, workBuf [canonStack]byte
	u, _, err := surtParse(raw, parseBuf[:0])
	if err != nil {
		return dst, err
	}
	work := workBuf[:0]
	if len(raw) > canonStack {
		// A long URL: the room its forms take (each escaped form up to
		// three times its decoded one), once, not a grown copy of all
		// of them after each.
		work = make([]byte, 0, 7*len(u.query)+5*len(u.host)+4*len(u.path)+64)
	}
	u, work = u.google(work)
	u, _ = u.ia(&opts, work)
	if opts.PublicSuffix != nil {
		u.host = u.publicSuffix(opts.PublicSuffix)
	}
	return u.appendTo(dst, !opts.PlainURL, opts.IncludeScheme, opts.TrailingComma, !opts.KeepIPAddrOrder), nil
}

// surtURL is surt's handyurl: nil (or empty) fields are None, except the
// query, where hasQuery tells None from "".
type surtURL struct {
	scheme, host, path, query, hash []byte
	port                            int // -1 is None
	hasQuery                        bool
	lastDelim                       bool // last_delimiter is "?"
}

// surtSpace reports whether c is ASCII white space as Python's
// bytes.strip() sees it.
func surtSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// surtParse is handyurl.parse. The URL is copied into buf (returned) and
// the fields point into it. (The surtURL methods take and return values, so
// that escape analysis keeps the stack buffers on the stack.)
func surtParse(raw, buf []byte) (u surtURL, _ []byte, err error) {
	for len(raw) > 0 && surtSpace(raw[0]) {
		raw = raw[1:]
	}
	for len(raw) > 0 && surtSpace(raw[len(raw)-1]) {
		raw = raw[:len(raw)-1]
	}
	if len(raw) == 0 {
		return u, buf, ErrSURTBlank
	}
	const def = "http://"
	buf = append(slices.Grow(buf[:0], len(def)+len(raw)+1), def...) // sized once
	for _, c := range raw {
		if c != '\t' && c != '\r' && c != '\n' {
			buf = append(buf, c)
		}
	}
	url := buf[len(def):]
	if canonSchemeLen(url) == 0 {
		url = buf
	}
	// _RE_MULTIPLE_PROTOCOLS: ^(https?://)+ becomes its last repetition.
	for {
		n := surtHTTPPrefix(url)
		if n == 0 || surtHTTPPrefix(url[n:]) == 0 {
			break
		}
		url = url[n:]
	}

	u = surtURL{port: -1, lastDelim: len(url) > 0 && url[len(url)-1] == '?'}
	n := canonSchemeLen(url)
	u.scheme = url[:n:n]
	rest := url[n+1:]
	var netloc []byte
	hasNetloc := len(rest) >= 2 && rest[0] == '/' && rest[1] == '/'
	if hasNetloc {
		rest = rest[2:]
		i := 0
		for i < len(rest) && rest[i] != '/' && rest[i] != '?' && rest[i] != '#' {
			i++
		}
		netloc, rest = rest[:i], rest[i:]
	}
	i := 0
	for i < len(rest) && rest[i] != '?' && rest[i] != '#' {
		i++
	}
	path := rest[:i:i]
	rest = rest[i:]
	if len(rest) > 0 && rest[0] == '?' {
		i = 1
		for i < len(rest) && rest[i] != '#' {
			i++
		}
		if i > 1 {
			u.query, u.hasQuery = rest[1:i:i], true
		}
		rest = rest[i:]
	}
	if len(rest) > 1 {
		u.hash = rest[1:]
	}
	if u.hasQuery {
		u.lastDelim = false
	}

	// Netloc: rstrip(':'), then urllib's _hostinfo, port and hostname.
	for len(netloc) > 0 && netloc[len(netloc)-1] == ':' {
		netloc = netloc[:len(netloc)-1]
	}
	if i := bytes.LastIndexByte(netloc, '@'); i >= 0 {
		netloc = netloc[i+1:]
	}
	var host, port []byte
	if i := bytes.IndexByte(netloc, '['); i >= 0 {
		host = netloc[i+1:]
		if j := bytes.IndexByte(host, ']'); j >= 0 {
			host, port = host[:j], host[j+1:]
			if k := bytes.IndexByte(port, ':'); k >= 0 {
				port = port[k+1:]
			} else {
				port = nil
			}
		}
	} else if i := bytes.IndexByte(netloc, ':'); i >= 0 {
		host, port = netloc[:i], netloc[i+1:]
	} else {
		host = netloc
	}
	if len(port) > 0 {
		v := 0
		for _, c := range port {
			if c < '0' || c > '9' {
				return u, buf, ErrSURTPort
			}
			if v = v*10 + int(c-'0'); v > 65535 {
				return u, buf, ErrSURTPort
			}
		}
		if v != 0 {
			u.port = v
		}
	}
	if len(host) > 0 {
		for i, c := range host {
			if c == '%' {
				break
			}
			host[i] = ascii.Lower(c)
		}
		u.host = host[:len(host):len(host)]
	}
	if len(path) > 0 {
		u.path = path
	}
	if bytes.HasPrefix(u.scheme, []byte("http")) && u.host == nil && u.path != nil {
		p := u.path
		for len(p) > 0 && p[0] == '/' {
			p = p[1:]
		}
		if i := bytes.IndexByte(p, '/'); i >= 0 {
			u.host, u.path = p[:i:i], p[i:]
		} else {
			u.host = p
			buf = append(buf, '/')
			u.path = buf[len(buf)-1:]
		}
	}
	return u, buf, nil
}

// surtHTTPPrefix returns the length of the "http://" or "https://" that
// starts b, or 0.
func surtHTTPPrefix(b []byte) int {
	switch {
	case bytes.HasPrefix(b, []byte("http://")):
		return 7
	case bytes.HasPrefix(b, []byte("https://")):
		return 8
	}
	return 0
}

// surtTail returns the bytes appended to work since start, capped so that
// later appends to work never write into them.
func surtTail(work []byte, start int) []byte {
	return work[start:len(work):len(work)]
}

// google is surt's GoogleURLCanonicalizer.canonicalize; its results are
// appended to work, which it returns.
func (u surtURL) google(work []byte) (surtURL, []byte) {
	u.hash = nil
	if len(u.query) > 0 {
		a := len(work)
		work = canonAppendUnescaped(work, u.query)
		b := len(work)
		work = canonAppendEscaped(work, work[a:b])
		u.query = surtTail(work, b)
	}
	if len(u.host) > 0 {
		a := len(work)
		work = canonAppendUnescaped(work, u.host)
		host := surtTail(work, a)
		if canonHasNonASCII(host) {
			b := len(work)
			var ok bool
			if work, ok = surtIDNA(work, host); ok {
				host = surtTail(work, b)
			}
		}
		host = canonDots(host, true)
		b := len(work)
		if v, ok := surtIPv4(host); ok {
			work = canonAppendIPv4(work, v)
		} else {
			for i, c := range host {
				host[i] = ascii.Lower(c)
			}
			work = canonAppendEscaped(work, host)
		}
		u.host = surtTail(work, b)
	}
	if u.path != nil || len(u.host) > 0 {
		a := len(work)
		work = canonAppendUnescaped(work, u.path)
		if len(u.host) > 0 {
			// normalizePath, in place; the extra byte is room for the
			// "/" it returns for an empty path.
			work = append(work, 0)
			p := canonPath(work[a:len(work)-1], true)
			work = work[:a+len(p)]
		}
		path := surtTail(work, a)
		b := len(work)
		work = canonAppendEscaped(work, path)
		u.path = surtTail(work, b)
	}
	return u, work
}

// surtIDNA appends host (which holds a byte >= 0x80) converted as Python's
// host.decode('utf-8', 'ignore').encode('idna') does, and reports whether
// that succeeded (when it does not, dst is returned as it was).
func surtIDNA(dst, host []byte) ([]byte, bool) {
	start := len(dst)
	// decode('utf-8', 'ignore'): drop what is not UTF-8.
	ascii := true
	for i := 0; i < len(host); {
		r, n := utf8.DecodeRune(host[i:])
		if r == utf8.RuneError && n <= 1 {
			i++
			continue
		}
		if n > 1 {
			ascii = false
		}
		dst = append(dst, host[i:i+n]...)
		i += n
	}
	s := dst[start:]
	if ascii {
		// The codec's ASCII fast path: every label but the last is 1 to
		// 63 bytes, the last at most 63.
		for len(s) > 0 {
			i := bytes.IndexByte(s, '.')
			if i < 0 {
				if len(s) >= 64 {
					return dst[:start], false
				}
				break
			}
			if i == 0 || i >= 64 {
				return dst[:start], false
			}
			s = s[i+1:]
		}
		return dst, true
	}
	// Labels split on the four IDNA 2003 dots, a final empty one kept as
	// a trailing dot; each through ToASCII.
	u := string(s)
	dst = dst[:start]
	for len(u) > 0 {
		i, n := len(u), 0
		for j, r := range u {
			if r == '.' || r == '\u3002' || r == '\uff0e' || r == '\uff61' {
				i, n = j, utf8.RuneLen(r)
				break
			}
		}
		a := u[:i]
		for j := 0; j < len(a); j++ {
			if a[j] >= 0x80 {
				var err error
				if a, err = surtIDNAProfile.ToASCII(a); err != nil {
					return dst[:start], false
				}
				break
			}
		}
		if len(a) == 0 || len(a) >= 64 {
			return dst[:start], false
		}
		dst = append(dst, a...)
		if n == 0 {
			break
		}
		dst = append(dst, '.')
		u = u[i+n:]
	}
	return dst, true
}

// surtIDNAProfile approximates IDNA 2003 ToASCII with UseSTD3ASCIIRules
// false, what Python's "idna" codec implements: UTS #46 transitional
// mapping (ß is "ss"), no STD3 or hyphen rules.
var surtIDNAProfile = idna.New(idna.MapForLookup(), idna.Transitional(true),
	idna.StrictDomainName(false), idna.CheckHyphens(false), idna.BidiRule())

// surtIPv4 is surt's attemptIPFormats: a host of only digits is an address
// modulo 2^32; one that matches DECIMAL_IP or OCTAL_IP is read as inet_aton
// (the system resolver) does.
func surtIPv4(h []byte) (uint32, bool) {
	if len(h) == 0 {
		return 0, false
	}
	digits := true
	var v uint32
	for _, c := range h {
		if c < '0' || c > '9' {
			digits = false
			break
		}
		v = v*10 + uint32(c-'0')
	}
	if digits {
		return v, true
	}
	// DECIMAL_IP ^([1-9][0-9]*)(\.[0-9]+)?(\.[0-9]+)?(\.[0-9]+)?$ and
	// OCTAL_IP ^(0[0-7]*)(\.[0-7]+)?(\.[0-7]+)?(\.[0-7]+)?$.
	max := byte('9')
	if h[0] == '0' {
		max = '7'
	}
	parts, n := 1, 0
	for _, c := range h {
		switch {
		case c == '.':
			if n == 0 || parts == 4 {
				return 0, false
			}
			parts, n = parts+1, 0
		case '0' <= c && c <= max:
			n++
		default:
			return 0, false
		}
	}
	if n == 0 {
		return 0, false
	}
	return canonParseIPv4(h, false)
}

// ia is surt's IAURLCanonicalizer.canonicalize with the options of o;
// work is scratch.
func (u surtURL) ia(o *SURTOptions, work []byte) (surtURL, []byte) {
	for i, c := range u.host {
		u.host[i] = ascii.Lower(c)
	}
	if !o.KeepWWW && len(u.host) > 0 && string(u.scheme) != "dns" {
		u.host = surtMassageHost(u.host)
	}
	if !o.KeepDefaultPort && len(u.scheme) > 0 && u.port == surtDefaultPort(u.scheme) {
		u.port = -1
	}
	if o.StripEmptyPath && string(u.path) == "/" {
		u.path = nil
	} else {
		if !o.KeepPathCase {
			for i, c := range u.path {
				u.path[i] = ascii.Lower(c)
			}
		}
		if !o.KeepPathSessionID && len(u.path) > 0 {
			u.path = surtStripPathSessionID(u.path)
		}
		if o.StripEmptyPath && string(u.path) == "/" {
			u.path = nil
		}
		if !o.KeepTrailingSlash && len(u.path) > 1 && u.path[len(u.path)-1] == '/' {
			u.path = u.path[:len(u.path)-1]
		}
	}
	if len(u.query) > 0 {
		q := u.query
		if !o.KeepQuerySessionID {
			q = surtStripQuerySessionID(q)
		}
		if !o.KeepQueryCase {
			for i, c := range q {
				q[i] = ascii.Lower(c)
			}
		}
		if !o.KeepQueryOrder {
			a := len(work)
			work = surtAppendSortedQuery(work, q)
			q = surtTail(work, a)
		}
		u.query = q
		if len(q) == 0 && !o.KeepEmptyQuery {
			u.query, u.hasQuery = nil, false
		}
	} else if !o.KeepEmptyQuery {
		u.lastDelim = false
	}
	return u, work
}

// surtMassageHost removes a leading www\d*\. label.
func surtMassageHost(h []byte) []byte {
	if !bytes.HasPrefix(h, []byte("www")) {
		return h
	}
	i := 3
	for i < len(h) && '0' <= h[i] && h[i] <= '9' {
		i++
	}
	if i < len(h) && h[i] == '.' {
		return h[i+1:]
	}
	return h
}

// surtPortSchemes are the schemes whose default port SURT drops, a subset
// of uriscan's one table (internal/ports, normalize.DefaultPort), with
// their ports read from it: the surt library's getDefaultPort knows only
// http (80) and https (443) and returns 0 for every other scheme, so SURT
// keeps ":21" on ftp or ":69" on tftp where Scheme normalization drops
// them. Adding a scheme
// here would change SURT keys away from the library's.
var surtPortSchemes = [...]struct {
	name string
	port int
}{{"http", tablePort("http")}, {"https", tablePort("https")}}

// tablePort is the table's default port of scheme (ports.Default) as a
// number.
func tablePort(scheme string) int {
	d, _ := ports.Default(scheme)
	p, err := strconv.Atoi(d)
	if err != nil {
		panic("compat: no default port for " + scheme)
	}
	return p
}

// surtDefaultPort is getDefaultPort: the default port of a scheme of
// surtPortSchemes (compared case-insensitively, as it lowercases), else 0.
func surtDefaultPort(scheme []byte) int {
	for _, s := range surtPortSchemes {
		if len(scheme) == len(s.name) && equalFoldLower(scheme, s.name) {
			return s.port
		}
	}
	return 0
}

// equalFoldLower reports whether b lowercased (ASCII) is lower.
func equalFoldLower(b []byte, lower string) bool {
	for i := range b {
		if ascii.Lower(b[i]) != lower[i] {
			return false
		}
	}
	return true
}

func surtAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func surtAlnum(c byte) bool { return surtAlpha(c) || '0' <= c && c <= '9' }

// surtRun reports whether b[i:i+n] exists and every byte satisfies ok.
func surtRun(b []byte, i, n int, ok func(byte) bool) bool {
	if i+n > len(b) {
		return false
	}
	for _, c := range b[i : i+n] {
		if !ok(c) {
			return false
		}
	}
	return true
}

// surtFold reports whether b[i:] starts with lit (lowercase ASCII),
// ignoring case.
func surtFold(b []byte, i int, lit string) bool {
	if i+len(lit) > len(b) {
		return false
	}
	for j := 0; j < len(lit); j++ {
		if ascii.Lower(b[i+j]) != lit[j] {
			return false
		}
	}
	return true
}

// surtStripPathSessionID is URLRegexTransformer.stripPathSessionID: each
// of its two case-insensitive patterns,
//
//	^(.*/)(\((?:[a-z]\([0-9a-z]{24}\))+\)/)([^\?]+\.aspx.*)$
//	^(.*/)(\([0-9a-z]{24}\)/)([^\?]+\.aspx.*)$
//
// in turn, replaces the path with group 1 + group 3 when it matches (group
// 1 is greedy: the last "/(" that fits is taken). It works in place.
func surtStripPathSessionID(p []byte) []byte {
	for _, multi := range []bool{true, false} {
		for s := len(p) - 1; s >= 1; s-- {
			if p[s-1] != '/' || p[s] != '(' {
				continue
			}
			i := s + 1
			if multi {
				k := 0
				for i+27 <= len(p) && surtAlpha(p[i]) && p[i+1] == '(' && surtRun(p, i+2, 24, surtAlnum) && p[i+26] == ')' {
					i += 27
					k++
				}
				if k == 0 {
					continue
				}
			} else {
				if !surtRun(p, i, 24, surtAlnum) {
					continue
				}
				i += 24
			}
			if i+2 > len(p) || p[i] != ')' || p[i+1] != '/' {
				continue
			}
			g3 := i + 2
			if !surtASPXTail(p, g3) {
				continue
			}
			n := copy(p[s:], p[g3:])
			p = p[:s+n]
			break
		}
	}
	return p
}

// surtASPXTail reports whether p[g:] matches [^\?]+\.aspx.* (ignoring
// case): ".aspx" starts after at least one byte and before the first '?'.
func surtASPXTail(p []byte, g int) bool {
	if g >= len(p) || p[g] == '?' {
		return false
	}
	for j := g + 1; j < len(p) && p[j] != '?'; j++ {
		if p[j] == '.' && surtFold(p, j, ".aspx") {
			return true
		}
	}
	return false
}

// surtStripQuerySessionID is URLRegexTransformer.stripQuerySessionID: each
// of its five case-insensitive patterns
//
//	^(.*)(?:jsessionid=[0-9a-zA-Z]{32})(?:&(.*))?$
//	^(.*)(?:phpsessid=[0-9a-zA-Z]{32})(?:&(.*))?$
//	^(.*)(?:sid=[0-9a-zA-Z]{32})(?:&(.*))?$
//	^(.*)(?:ASPSESSIONID[a-zA-Z]{8}=[a-zA-Z]{24})(?:&(.*))?$
//	^(.*)(?:cfid=[^&]+&cftoken=[^&]+)(?:&(.*))?$
//
// in turn replaces the query with group 1 + group 2 when it matches (group
// 1 is greedy: the last occurrence that fits is removed). In place.
func surtStripQuerySessionID(q []byte) []byte {
	for pat, lit := range [...]string{"jsessionid=", "phpsessid=", "sid=", "aspsessionid", "&cftoken="} {
		if !surtContainsFold(q, lit) {
			continue
		}
		next := len(q) // the first '&' at or after p
		for p := len(q); p >= 0; p-- {
			if p < len(q) && q[p] == '&' {
				next = p
			}
			e := surtQuerySessionAt(q, p, pat, next)
			if e < 0 || e < len(q) && q[e] != '&' {
				continue
			}
			var g2 []byte
			if e < len(q) {
				g2 = q[e+1:]
			}
			n := copy(q[p:], g2)
			q = q[:p+n]
			break
		}
	}
	return q
}

// surtContainsFold reports whether q holds lit (lowercase ASCII), ignoring
// case.
func surtContainsFold(q []byte, lit string) bool {
	for i := 0; i+len(lit) <= len(q); i++ {
		if ascii.Lower(q[i]) == lit[0] && surtFold(q, i, lit) {
			return true
		}
	}
	return false
}

// surtQuerySessionAt returns where pattern pat's session id starting at
// q[p] ends, or -1; next is the index of the first '&' at or after p.
func surtQuerySessionAt(q []byte, p, pat, next int) int {
	switch pat {
	case 0, 1, 2:
		lit := [...]string{"jsessionid=", "phpsessid=", "sid="}[pat]
		if !surtFold(q, p, lit) || !surtRun(q, p+len(lit), 32, surtAlnum) {
			return -1
		}
		return p + len(lit) + 32
	case 3:
		const lit = "aspsessionid"
		i := p + len(lit)
		if !surtFold(q, p, lit) || !surtRun(q, i, 8, surtAlpha) || i+8 >= len(q) || q[i+8] != '=' || !surtRun(q, i+9, 24, surtAlpha) {
			return -1
		}
		return i + 9 + 24
	default:
		// cfid=[^&]+&cftoken=[^&]+: each [^&]+ can only end at the next
		// '&' (or the end) for the rest to match.
		a := next
		if !surtFold(q, p, "cfid=") || a <= p+5 || !surtFold(q, a, "&cftoken=") {
			return -1
		}
		i := a + len("&cftoken=")
		if i >= len(q) || q[i] == '&' {
			return -1
		}
		for i < len(q) && q[i] != '&' {
			i++
		}
		return i
	}
}

// surtSpan is one "&"-separated query parameter.
type surtSpan struct{ start, end int32 }

// surtAppendSortedQuery appends IAURLCanonicalizer.alphaReorderQuery of q
// to dst: the parameters sorted as Python sorts the tuples
// arg.split(b'=', 1), then joined again.
func surtAppendSortedQuery(dst, q []byte) []byte {
	if len(q) <= 1 {
		return append(dst, q...)
	}
	var stack [32]surtSpan
	spans := stack[:0]
	if n := bytes.Count(q, amp) + 1; n > len(stack) {
		spans = make([]surtSpan, 0, n) // sized once (a long query)
	}
	start := 0
	for i := 0; i <= len(q); i++ {
		if i == len(q) || q[i] == '&' {
			spans = append(spans, surtSpan{int32(start), int32(i)})
			start = i + 1
		}
	}
	slices.SortFunc(spans, func(a, b surtSpan) int {
		return surtCompareArgs(q[a.start:a.end], q[b.start:b.end])
	})
	for i, s := range spans {
		if i > 0 {
			dst = append(dst, '&')
		}
		dst = append(dst, q[s.start:s.end]...)
	}
	return dst
}

// surtCompareArgs compares the tuples a.split(b'=', 1) and b.split(b'=', 1).
func surtCompareArgs(a, b []byte) int {
	ka, va, ha := bytes.Cut(a, []byte("="))
	kb, vb, hb := bytes.Cut(b, []byte("="))
	if c := bytes.Compare(ka, kb); c != 0 {
		return c
	}
	switch {
	case ha != hb && !ha:
		return -1
	case ha != hb:
		return 1
	}
	return bytes.Compare(va, vb)
}

// appendTo is handyurl.geturl_bytes with surt, with_scheme,
// trailing_comma and reverse_ipaddr.
// publicSuffix is handyurl.getPublicSuffix with registrable for
// tldextract: the host's registered domain, a slice of host, or empty when
// it has none.
func (u *surtURL) publicSuffix(registrable func(string) string) []byte {
	// A copy: registrable's result may alias its argument, which would
	// move the stack buffers the host lives in to the heap on every call.
	r := registrable(string(u.host))
	end := len(u.host)
	if end > 0 && u.host[end-1] == '.' {
		end--
	}
	if len(r) > end || !bytes.EqualFold(u.host[end-len(r):end], []byte(r)) {
		return nil // not a suffix of the host: none
	}
	return u.host[end-len(r) : end]
}

func (u *surtURL) appendTo(dst []byte, surt, withScheme, trailingComma, reverseIP bool) []byte {
	host := len(u.host) > 0
	if withScheme {
		dst = append(dst, u.scheme...)
		dst = append(dst, ':')
		if host {
			if string(u.scheme) != "dns" {
				dst = append(dst, "//"...)
			}
			if surt {
				dst = append(dst, '(')
			}
		}
	} else if !host {
		dst = append(dst, u.scheme...)
		dst = append(dst, ':')
	}
	if host {
		if !surt || !reverseIP && surtIsDottedQuad(u.host) {
			dst = append(dst, u.host...)
		} else {
			h := u.host
			for {
				i := bytes.LastIndexByte(h, '.')
				dst = append(dst, h[i+1:]...)
				if i < 0 {
					break
				}
				dst = append(dst, ',')
				h = h[:i]
			}
		}
		if u.port >= 0 {
			dst = append(dst, ':')
			dst = surtAppendInt(dst, u.port)
		}
		if surt {
			if trailingComma {
				dst = append(dst, ',')
			}
			dst = append(dst, ')')
		}
	}
	if len(u.path) > 0 {
		dst = append(dst, u.path...)
	} else if u.hasQuery || u.hash != nil {
		dst = append(dst, '/')
	}
	if u.hasQuery {
		dst = append(dst, '?')
		dst = append(dst, u.query...)
	}
	if u.hash != nil {
		dst = append(dst, '#')
		dst = append(dst, u.hash...)
	}
	if u.lastDelim {
		dst = append(dst, '?')
	}
	return dst
}

// surtIsDottedQuad is _RE_IP_ADDRESS, (?:(?:\d{1,3}\.){3}\d{1,3})$,
// anchored at the start.
func surtIsDottedQuad(h []byte) bool {
	parts, n := 1, 0
	for _, c := range h {
		switch {
		case c == '.' && n > 0 && parts < 4:
			parts, n = parts+1, 0
		case '0' <= c && c <= '9' && n < 3:
			n++
		default:
			return false
		}
	}
	return parts == 4 && n > 0
}

func surtAppendInt(dst []byte, v int) []byte {
	var b [8]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		if v /= 10; v == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}
