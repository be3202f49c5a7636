package uriscan

import (
	"math"
	"strconv"
	"strings"
)

// Grammar selects the URI grammar a parse follows.
type Grammar uint8

const (
	// RFC3986 is RFC 3986 Appendix A, what Parse follows.
	RFC3986 Grammar = iota
	// RFC2396 is RFC 2396 Appendix A as RFC 2732 amends it (IPv6
	// literals), the grammar java.net.URI implements. See
	// docs/rfc2396.md for every way its answers differ from RFC3986's.
	RFC2396
)

var grammarNames = [...]string{RFC3986: "rfc3986", RFC2396: "rfc2396"}

// String returns "rfc3986" or "rfc2396".
func (g Grammar) String() string {
	if int(g) < len(grammarNames) {
		return grammarNames[g]
	}
	return "grammar(" + strconv.Itoa(int(g)) + ")"
}

// ParseGrammar returns the Grammar that String names (case-insensitively:
// "rfc2396", "RFC2396"); ok is false for any other name.
func ParseGrammar(name string) (g Grammar, ok bool) {
	for i, n := range grammarNames {
		if strings.EqualFold(name, n) {
			return Grammar(i), true
		}
	}
	return RFC3986, false
}

// Parse parses b as a URI-reference of grammar g: Parse for RFC3986, the
// RFC 2396 parser of this file for RFC2396. Like Parse, it does not
// allocate on success and the URI refers to b. It panics if g is neither
// (a Grammar value that no constant names).
func (g Grammar) Parse(b []byte) (URI, error) {
	switch g {
	case RFC3986:
		return Parse(b)
	case RFC2396:
		return parse2396(bytesToString(b), true)
	}
	panic("uriscan: Parse with unknown " + g.String())
}

// ParseString is Parse for a string; the URI refers to s.
func (g Grammar) ParseString(s string) (URI, error) {
	switch g {
	case RFC3986:
		return ParseString(s)
	case RFC2396:
		return parse2396(s, false)
	}
	panic("uriscan: ParseString with unknown " + g.String())
}

// The RFC 2396 profile
//
// RFC2396.Parse accepts exactly the strings that RFC 2396 Appendix A
// derives from URI-reference, with RFC 2732 §3's three changes: host gains
// IPv6reference = "[" IPv6address "]" (IPv6address being RFC 2373 §2.2's
// text forms), IPv4address becomes RFC 2373's 1*3DIGIT "." 1*3DIGIT "."
// 1*3DIGIT "." 1*3DIGIT, and "[" and "]" join reserved (so uric, and with
// it query, fragment and all but the first character of an opaque_part,
// allow them). There is no IPvFuture.
//
// How the components hold the RFC 2396 rules:
//
//   - absoluteURI = scheme ":" ( hier_part | opaque_part ). An opaque_part
//     (the scheme is not followed by "/") is the Path component, as RFC
//     2396 §3 itself calls it part of <path>: it runs to the "#", so
//     "mailto:a?b" has the path "a?b" and no query, and it is never
//     empty ("s:" is invalid).
//   - relativeURI = ( net_path | abs_path | rel_path ) [ "?" query ] has a
//     non-empty path or an authority: "" and "#f" are valid (the whole
//     URI-reference is optional), "?q" is not (RFC 3986 §D.2 notes that it
//     corrected this).
//   - authority = server | reg_name. When the authority is a server,
//     server = [ [ userinfo "@" ] hostport ], it is split: userinfo, host
//     (hostname, IPv4address or IPv6reference, with HostType RegName,
//     IPv4 or IPv6) and port, as for RFC 3986. An empty authority ("//"
//     alone, "file:///etc") is the empty server: the host is defined and
//     empty, HostType RegName, as RFC 3986 gives it. Otherwise the
//     authority is a reg_name: the whole authority is the Host, HostType
//     RegName, with neither userinfo nor port ("//u@h_1:80" has the host
//     "u@h_1:80"); RegistryBased tells the two RegName cases apart.
//   - IPv4address is RFC 2732's: up to three digits a group, with no
//     limit on their value: "999.1.1.1" and "01.02.03.04" are IPv4 hosts.
//     (java.net.URI also requires each group to be at most 255; see
//     docs/rfc2396.md.)
//   - hostname = *( domainlabel "." ) toplabel [ "." ] with toplabel
//     starting with a letter: "123" and "a.1b" are not hostnames, so such
//     an authority is a reg_name.
//   - port = *digit, any number of digits; PortNumber is ok when it fits
//     in 16 bits, as for RFC 3986.
//
// Errors are *Error values as Parse returns them. The offset follows the
// rules of doc.go, with RFC 2396 in place of RFC 3986:
//
//  1. Split the input as Appendix B does (the same regular expression is
//     RFC 2396's Appendix B): the scheme is the text before the first ":"
//     if that ":" comes before any "/", "?" or "#"; "//" after it (or at
//     the start) opens an authority that runs to the next "/", "?" or
//     "#"; the path runs to the first "?" or "#", the query to the first
//     "#", the fragment to the end; after "scheme:" not followed by "/",
//     the opaque_part runs to the first "#". For a server authority,
//     userinfo runs to the first "@"; a host starting with "[" runs to
//     the first "]"; otherwise the host runs to the first ":" after the
//     userinfo and the port follows.
//  2. The offset is the smallest offset at which one of these holds: a
//     byte that is never valid in a URI-reference (controls, space, DEL,
//     '"' '<' '>' '\' '^' '`' '{' '|' '}', bytes >= 0x80); a scheme that
//     is empty, does not begin with alpha, or holds a byte other than
//     alpha | digit | "+" | "-" | "."; a "%" not followed by two hex; a
//     second "#"; a "[" or "]" in the path or as the first character of
//     an opaque_part; an opaque_part that is empty (the offset just after
//     the ":"); a relative reference that starts with "?" (offset 0); and,
//     only for an authority that holds "[" or "]" (else it is at worst a
//     reg_name), the first of: a "[" or "]" in the userinfo, a hostport
//     that does not begin with "[" (offset of its first "[" or "]"), a
//     missing "]" (end of the authority, after the checks on the text up
//     to there), an IPv6 literal byte other than hex, ":" or "." (its
//     offset) or such text that is not an IPv6address (the offset just
//     after "["), a byte after "]" other than ":" (its offset), a port
//     byte that is not a digit (its offset).
//
// The structural errors that errors.go has no reason for (an opaque_part
// or a relativeURI path missing before "#" or "?") have the cause
// ErrInvalidChar and the generic reason "invalid URI reference"; at the
// end of the input the reason is "unexpected end of input in path".
//
// rfc2396_test.go checks the parser against a regular expression
// transcribed rule by rule from the ABNF, on every shared URL list line and
// on generated inputs.

// RegistryBased reports whether u, parsed as RFC2396, has an authority
// that is a reg_name rather than a server (RFC 2396 §3.2.1; java.net.URI
// calls such a URI registry-based): its Host is then the whole authority
// and Userinfo and Port are undefined. It is false for an RFC3986 URI.
func (u *URI) RegistryBased() bool {
	if u.grammar != RFC2396 || !u.HasAuthority() || u.Has(Userinfo) || u.Has(Port) {
		return false
	}
	h := u.Host()
	// A reg_name that is also a valid host would have been a server.
	return h != "" && h[0] != '[' && !isIPv4RFC2732(h) && !isHostname2396(h)
}

// Byte classes of RFC 2396 §2 and Appendix A with RFC 2732's reserved.
const (
	c2Alpha    uint16 = 1 << iota // alpha
	c2Digit                       // digit
	c2Hex                         // hex
	c2Scheme                      // alpha | digit | "+" | "-" | "."
	c2Uric                        // uric without escaped: reserved | unreserved
	c2UricNoSl                    // uric_no_slash without escaped
	c2Path                        // pchar without escaped, ";" (param) and "/": the bytes of path_segments
	c2RelSeg                      // rel_segment without escaped
	c2Userinfo                    // userinfo without escaped
	c2RegName                     // reg_name without escaped
	c2Server                      // bytes a server (userinfo, hostname, IPv4address, IPv6reference, port) may hold
	c2Alphanum                    // alphanum
	c2Valid                       // valid somewhere: uric | "%" | "#"
)

var class2396 = func() (t [256]uint16) {
	const (
		lowalpha   = "abcdefghijklmnopqrstuvwxyz"
		upalpha    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		digit      = "0123456789"
		mark       = "-_.!~*'()"                       // mark (§2.3)
		reserved   = ";/?:@&=+$,[]"                    // reserved (§2.2 with RFC 2732 §3 (3))
		unreserved = lowalpha + upalpha + digit + mark // unreserved = alphanum | mark
	)
	add := func(set string, c uint16) {
		for i := 0; i < len(set); i++ {
			t[set[i]] |= c
		}
	}
	add(lowalpha+upalpha, c2Alpha|c2Alphanum)
	add(digit, c2Digit|c2Alphanum)
	add(digit+"ABCDEFabcdef", c2Hex)
	add(lowalpha+upalpha+digit+"+-.", c2Scheme)
	add(reserved+unreserved, c2Uric|c2Valid)
	add(unreserved+";?:@&=+$,", c2UricNoSl)   // uric_no_slash
	add(unreserved+":@&=+$,"+";/", c2Path)    // pchar, ";" param, "/" segment
	add(unreserved+";@&=+$,", c2RelSeg)       // rel_segment
	add(unreserved+";:&=+$,", c2Userinfo)     // userinfo
	add(unreserved+"$,;:@&=+", c2RegName)     // reg_name
	add(unreserved+";:&=+$,"+"@[]", c2Server) // userinfo "@" hostport
	add("%#", c2Valid)
	return t
}()

// p2396 is the state of one RFC 2396 parse: the input and the first
// violation found so far.
type p2396 struct {
	s       string
	errOff  int // smallest offending offset, or -1
	errCode errCode
	errArg  int
	errComp Component
}

// errStructure2396 is a part the grammar requires that is missing before
// a "#" or "?": errors.go has no reason text for it, so it reads "invalid
// URI reference". Its cause is ErrInvalidChar.
const errStructure2396 errCode = 0xf0

func (p *p2396) fail(off int, code errCode, comp Component) { p.failArg(off, code, 0, comp) }

func (p *p2396) failArg(off int, code errCode, arg int, comp Component) {
	if p.errOff < 0 || off < p.errOff {
		p.errOff, p.errCode, p.errArg, p.errComp = off, code, arg, comp
	}
}

func parse2396(s string, copyOnError bool) (URI, error) {
	if len(s) > MaxLength {
		return URI{}, &Error{Input: "", Offset: MaxLength, Err: ErrTooLong, code: errTooLong}
	}
	p := p2396{s: s, errOff: -1}
	var u URI
	u.src, u.end, u.grammar = s, int32(len(s)), RFC2396
	p.uriReference(&u)
	if p.errOff >= 0 {
		in := s
		if copyOnError {
			in = string([]byte(s))
		}
		cause := ErrInvalidChar
		if int(p.errCode) < len(causes) && causes[p.errCode] != nil {
			cause = causes[p.errCode]
		}
		return URI{}, &Error{Input: in, Offset: p.errOff, Component: p.errComp, Err: cause, code: p.errCode, arg: p.errArg}
	}
	return u, nil
}

// uriReference parses URI-reference = [ absoluteURI | relativeURI ] [ "#" fragment ].
func (p *p2396) uriReference(u *URI) {
	s := p.s
	end := len(s)
	if h := strings.IndexByte(s, '#'); h >= 0 {
		end = h
		// fragment = *uric
		u.set(Fragment, h+1, len(s))
		p.check(h+1, len(s), c2Uric, Fragment)
	}
	// The colon rule: a scheme is the text before a ":" that comes before
	// any "/", "?" or "#" (rel_segment holds no ":", so no relativeURI
	// can have one there).
	colon := -1
	for i := 0; i < end; i++ {
		if c := s[i]; c == ':' {
			colon = i
			break
		} else if c == '/' || c == '?' {
			break
		}
	}
	if colon < 0 {
		// relativeURI = ( net_path | abs_path | rel_path ) [ "?" query ],
		// or nothing at all.
		if end == 0 {
			u.set(Path, 0, 0)
			return
		}
		if s[0] == '?' {
			// No path: rel_path = rel_segment [ abs_path ] needs 1*.
			u.set(Path, 0, 0)
			p.fail(0, errStructure2396, Path)
		}
		p.hierPart(u, 0, end)
		return
	}
	// absoluteURI = scheme ":" ( hier_part | opaque_part )
	// scheme = alpha *( alpha | digit | "+" | "-" | "." )
	u.set(Scheme, 0, colon)
	switch {
	case colon == 0:
		p.fail(0, errSchemeEmpty, Scheme)
	case class2396[s[0]]&c2Alpha == 0:
		if class2396[s[0]]&c2Valid != 0 {
			p.fail(0, errSchemeStart, Scheme)
		} else {
			p.fail(0, errChar, Scheme)
		}
	default:
		for i := 1; i < colon; i++ {
			if class2396[s[i]]&c2Scheme == 0 {
				p.fail(i, errChar, Scheme)
				break
			}
		}
	}
	rest := colon + 1
	if rest < end && s[rest] == '/' {
		// hier_part = ( net_path | abs_path ) [ "?" query ]
		p.hierPart(u, rest, end)
		return
	}
	// opaque_part = uric_no_slash *uric, held as the path.
	u.set(Path, rest, end)
	switch {
	case rest == end && end == len(s):
		p.fail(rest, errChar, Path) // "unexpected end of input in path"
	case rest == end:
		p.fail(rest, errStructure2396, Path)
	case s[rest] == '[' || s[rest] == ']':
		p.fail(rest, errChar, Path) // uric_no_slash has no "[" or "]"
	}
	p.check(rest, end, c2Uric, Path)
}

// hierPart parses s[a:end], which is not empty and starts with "/" after
// a scheme: ( net_path | abs_path | rel_path ) [ "?" query ], where
// net_path = "//" authority [ abs_path ], abs_path = "/" path_segments,
// rel_path = rel_segment [ abs_path ] (the colon rule has kept ":" out of
// the rel_segment).
func (p *p2396) hierPart(u *URI, a, end int) {
	s := p.s
	if end-a >= 2 && s[a] == '/' && s[a+1] == '/' {
		// The authority ends at the next "/" or "?" (§3.2).
		e := a + 2
		for e < end && s[e] != '/' && s[e] != '?' {
			e++
		}
		p.authority(u, a+2, e)
		a = e
	}
	q := a
	for q < end && s[q] != '?' {
		q++
	}
	if !u.Has(Path) {
		u.set(Path, a, q)
	}
	// path_segments = segment *( "/" segment ); segment = *pchar *( ";" param )
	p.check(a, q, c2Path, Path)
	if q < end {
		// query = *uric
		u.set(Query, q+1, end)
		p.check(q+1, end, c2Uric, Query)
	}
}

// check checks that s[a:b] holds only bytes of class set or escaped =
// "%" hex hex, recording the first violation.
func (p *p2396) check(a, b int, set uint16, comp Component) {
	s := p.s
	for i := a; i < b; i++ {
		c := s[i]
		if class2396[c]&set != 0 {
			continue
		}
		if c == '%' {
			if i+2 >= len(s) || class2396[s[i+1]]&class2396[s[i+2]]&c2Hex == 0 {
				p.fail(i, errPct, comp)
				return
			}
			continue
		}
		p.fail(i, errChar, comp)
		return
	}
}

// authority parses s[a:e]: authority = server | reg_name.
func (p *p2396) authority(u *URI, a, e int) {
	s := p.s
	// The bytes no authority may hold, and bad escapes, are errors
	// whichever alternative the rest would match.
	brackets := false
	for i := a; i < e; i++ {
		c := s[i]
		switch {
		case c == '[' || c == ']':
			brackets = true
		case c == '%':
			if i+2 >= len(s) || class2396[s[i+1]]&class2396[s[i+2]]&c2Hex == 0 {
				p.fail(i, errPct, Host)
				i = e
			}
		case class2396[c]&c2RegName == 0:
			p.fail(i, errChar, Host)
			i = e
		}
	}
	off, code, arg, comp := p.server(u, a, e)
	if off < 0 {
		return // a server
	}
	// Not a server: reg_name = 1*( unreserved | escaped | "$" | "," | ";"
	// | ":" | "@" | "&" | "=" | "+" ), the whole authority as the host.
	u.defined &^= 1<<Userinfo | 1<<Port
	u.port, u.portOK = 0, false
	u.set(Host, a, e)
	u.hostType = RegName
	if brackets {
		// Only a server may hold brackets: report why it is not one.
		p.failArg(off, code, arg, comp)
	}
}

// server tries s[a:e] as server = [ [ userinfo "@" ] hostport ],
// hostport = host [ ":" port ], host = hostname | IPv4address |
// IPv6reference, and sets u's components on the way. It returns off -1
// if it matches, else where and why it fails, by the offset rules for an
// authority holding brackets (see the package comment above).
func (p *p2396) server(u *URI, a, e int) (off int, code errCode, arg int, comp Component) {
	s := p.s
	u.hostType = RegName
	if a == e {
		// The empty server.
		u.set(Host, a, a)
		return -1, errNone, 0, 0
	}
	off = -1
	failAt := func(o int, c errCode, n int, k Component) {
		if off < 0 || o < off {
			off, code, arg, comp = o, c, n, k
		}
	}
	hs := a
	if at := strings.IndexByte(s[a:e], '@'); at >= 0 {
		// userinfo = *( unreserved | escaped | ";" | ":" | "&" | "=" | "+" | "$" | "," )
		u.set(Userinfo, a, a+at)
		for i := a; i < a+at; i++ {
			if c := s[i]; class2396[c]&c2Userinfo == 0 && c != '%' {
				failAt(i, errChar, 0, Userinfo)
				break
			}
		}
		hs = a + at + 1
	}
	if hs < e && s[hs] == '[' {
		// IPv6reference = "[" IPv6address "]" (RFC 2732)
		u.hostType = IPv6
		rb := strings.IndexByte(s[hs:e], ']')
		if rb < 0 {
			u.set(Host, hs, e)
			if o, c, n := checkIPv6RFC2373(s, hs+1, e); o >= 0 {
				failAt(o, c, n, Host)
			}
			failAt(e, errIPLiteralOpen, 0, Host)
			return off, code, arg, comp
		}
		rb += hs
		u.set(Host, hs, rb+1)
		if o, c, n := checkIPv6RFC2373(s, hs+1, rb); o >= 0 {
			failAt(o, c, n, Host)
		}
		if rb+1 < e {
			if s[rb+1] != ':' {
				failAt(rb+1, errIPLiteralAfter, 0, Host)
				return off, code, arg, comp
			}
			p.port(u, rb+2, e, failAt)
		}
		return off, code, arg, comp
	}
	he := e
	if c := strings.IndexByte(s[hs:e], ':'); c >= 0 {
		he = hs + c
	}
	u.set(Host, hs, he)
	switch h := s[hs:he]; {
	case isIPv4RFC2732(h):
		u.hostType = IPv4
	case isHostname2396(h):
	default:
		// Not a host; with brackets in the authority, their offset.
		o := strings.IndexAny(s[hs:e], "[]")
		if o < 0 {
			o = hs // no brackets: the caller falls back to reg_name
		} else {
			o += hs
		}
		failAt(o, errChar, 0, Host)
	}
	if he < e {
		p.port(u, he+1, e, failAt)
	}
	return off, code, arg, comp
}

// port checks port = *digit on s[a:b] and records it.
func (p *p2396) port(u *URI, a, b int, failAt func(int, errCode, int, Component)) {
	u.set(Port, a, b)
	v := 0
	for i := a; i < b; i++ {
		c := p.s[i]
		if c < '0' || c > '9' {
			failAt(i, errChar, 0, Port)
			return
		}
		if v <= math.MaxUint16 {
			v = v*10 + int(c-'0')
		}
	}
	if a < b && v <= math.MaxUint16 {
		u.port, u.portOK = uint16(v), true
	}
}

// isHostname2396 reports whether h matches
// hostname = *( domainlabel "." ) toplabel [ "." ], where
// domainlabel = alphanum | alphanum *( alphanum | "-" ) alphanum and
// toplabel = alpha | alpha *( alphanum | "-" ) alphanum.
func isHostname2396(h string) bool {
	if strings.HasSuffix(h, ".") {
		h = h[:len(h)-1] // the optional final "."
	}
	if h == "" {
		return false
	}
	last := strings.LastIndexByte(h, '.') + 1
	if last == len(h) || class2396[h[last]]&c2Alpha == 0 {
		return false // toplabel begins with alpha
	}
	for len(h) > 0 {
		n := strings.IndexByte(h, '.')
		label := h
		if n >= 0 {
			label, h = h[:n], h[n+1:]
			if h == "" {
				return false // an empty label ("a..b" or "a.." )
			}
		} else {
			h = ""
		}
		if label == "" || class2396[label[0]]&c2Alphanum == 0 || class2396[label[len(label)-1]]&c2Alphanum == 0 {
			return false
		}
		for i := 1; i < len(label)-1; i++ {
			if class2396[label[i]]&c2Alphanum == 0 && label[i] != '-' {
				return false
			}
		}
	}
	return true
}

// isIPv4RFC2732 reports whether h matches RFC 2732's (RFC 2373's)
// IPv4address = 1*3DIGIT "." 1*3DIGIT "." 1*3DIGIT "." 1*3DIGIT, which
// does not limit the value of a group.
func isIPv4RFC2732(h string) bool {
	for k := 0; k < 4; k++ {
		n := 0
		for n < len(h) && n < 4 && '0' <= h[n] && h[n] <= '9' {
			n++
		}
		if n == 0 || n > 3 {
			return false
		}
		h = h[n:]
		if k < 3 {
			if h == "" || h[0] != '.' {
				return false
			}
			h = h[1:]
		}
	}
	return h == ""
}

// checkIPv6RFC2373 checks s[a:b], the text between "[" and "]", against
// IPv6address as RFC 2732 defines it: the text forms of RFC 2373 §2.2,
// x:x:x:x:x:x:x:x with 1 to 4 hex digits a group, one "::" at most
// standing for one or more zero groups, and the last two groups
// optionally written as an RFC 2373 IPv4address (1*3DIGIT groups). It
// returns -1, or the offending offset and the error code: a byte other
// than hex, ":" or "." is reported at its offset, any other mismatch at a
// (as RFC 3986's literals are).
func checkIPv6RFC2373(src string, a, b int) (off int, code errCode, arg int) {
	s := src[a:b]
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != ':' && c != '.' && class2396[c]&c2Hex == 0 {
			return a + i, errChar, 0
		}
	}
	if len(s) == 0 {
		return a, errIPv6Empty, 0
	}
	groups, double := 0, false
	i := 0
	if s[0] == ':' {
		if len(s) < 2 || s[1] != ':' {
			return a, errIPv6Colon, 0
		}
		double, i = true, 2
	}
	for i < len(s) {
		j := i
		for j < len(s) && class2396[s[j]]&c2Hex != 0 {
			j++
		}
		if j < len(s) && s[j] == '.' {
			// The IPv4address form of the last 32 bits, only at the end.
			if !isIPv4RFC2732(s[i:]) {
				return a, errIPv6IPv4, 0
			}
			groups += 2
			break
		}
		switch n := j - i; {
		case n == 0:
			return a, errIPv6Colon, 0
		case n > 4:
			return a, errIPv6GroupLen, 0
		}
		groups++
		if j == len(s) {
			break
		}
		if j+1 < len(s) && s[j+1] == ':' {
			if double {
				return a, errIPv6DoubleColon, 0
			}
			double, i = true, j+2
			continue
		}
		i = j + 1
		if i == len(s) {
			return a, errIPv6Colon, 0
		}
	}
	switch {
	case !double && groups < 8:
		return a, errIPv6Few, groups
	case !double && groups > 8, double && groups > 7:
		return a, errIPv6Groups, groups
	}
	return -1, errNone, 0
}
