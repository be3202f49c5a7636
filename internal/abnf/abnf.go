// Package abnf is an independent test oracle for RFC 3986 URI-reference
// parsing. It is a direct transcription of the ABNF of RFC 3986 Appendix A
// into a backtracking recursive-descent matcher: one Go function per rule,
// each carrying the rule it implements in its comment. It is written for
// clarity, not speed, and imports nothing but the standard library (in
// particular not the uriscan package it is meant to check).
//
// Validity and the components come only from the ABNF match: the match is
// the first one, trying alternatives in the order the RFC writes them and
// backtracking as far as needed, that makes the whole input a
// URI-reference. So "1.2.3.4" is an IPv4address host while "01.2.3.4",
// "1.2.3.4.5" and "256.1.1.1" are reg-names.
//
// The error offset of an invalid input is computed separately (offset.go)
// by the normative rules in the "Errors" section of the uriscan package
// documentation; the tests check that those rules flag a violation exactly
// when the ABNF matcher rejects the input.
//
// The matcher is written in continuation-passing style: a rule is called
// with a start offset i and a continuation k; it calls k(j) for every end
// offset j at which it can match, in order of preference, and returns true
// as soon as some k(j) returns true (that is, as soon as the rest of the
// grammar matched the rest of the input). This gives full backtracking
// with no cleverness in the individual rules.
package abnf

// Result is the outcome of parsing one URI-reference.
//
// Components are exactly as written in the input (not decoded): Scheme
// without its ":", Userinfo without its "@", Port without its ":", Query
// without its "?", Fragment without its "#"; an IP-literal Host keeps its
// brackets. The Has* flags tell a defined-but-empty component from an
// undefined one. Path is always defined (possibly empty). For an invalid
// input only Valid and ErrOffset are set.
type Result struct {
	Valid     bool
	ErrOffset int // -1 when valid

	Scheme, Userinfo, Host, Port, Path, Query, Fragment string

	HasScheme, HasUserinfo, HasHost, HasPort, HasQuery, HasFragment bool

	// HostType is "", "reg-name", "ipv4", "ipv6" or "ipvfuture"; "" when
	// there is no authority.
	HostType string
}

// Parse parses s as an RFC 3986 URI-reference. Validity and components
// come from the ABNF matcher; for an invalid s, ErrOffset is the offset
// defined by the uriscan "Errors" rules.
func Parse(s string) Result {
	if r, ok := match(s); ok {
		r.Valid = true
		r.ErrOffset = -1
		return r
	}
	return Result{ErrOffset: errOffset(s)}
}

// match runs the URI-reference rule over all of s.
func match(s string) (Result, bool) {
	p := &parser{s: s}
	ok := p.uriReference(0, func(j int) bool { return j == len(s) })
	return p.res, ok
}

// matchesRule reports whether all of s matches the rule r picks from the grammar.
func matchesRule(s string, r func(p *parser) rule) bool {
	p := &parser{s: s}
	return r(p)(0, func(j int) bool { return j == len(s) })
}

// ---------------------------------------------------------------------------
// Matching machinery.

// cont is a continuation: it is given the offset where a rule stopped and
// reports whether the rest of the grammar matches from there to the end.
type cont func(j int) bool

// rule matches at offset i, calling k with each possible end offset.
type rule func(i int, k cont) bool

type parser struct {
	s   string
	res Result // components captured along the current match
}

// seq is concatenation: rs[0] rs[1] ...
func seq(rs ...rule) rule {
	return func(i int, k cont) bool {
		if len(rs) == 0 {
			return k(i)
		}
		return rs[0](i, func(j int) bool { return seq(rs[1:]...)(j, k) })
	}
}

// alt is alternation: rs[0] / rs[1] / ..., tried in order.
func alt(rs ...rule) rule {
	return func(i int, k cont) bool {
		for _, r := range rs {
			if r(i, k) {
				return true
			}
		}
		return false
	}
}

// rep is repetition min*max r (max < 0: no upper bound). Longer matches
// are tried first; every count from max down to min is tried.
func rep(min, max int, r rule) rule {
	return func(i int, k cont) bool {
		if max != 0 {
			nmin, nmax := min-1, max-1
			if nmin < 0 {
				nmin = 0
			}
			if max < 0 {
				nmax = -1
			}
			// An iteration that consumes nothing adds nothing; skipping it
			// keeps unbounded repetition finite.
			if r(i, func(j int) bool { return j > i && rep(nmin, nmax, r)(j, k) }) {
				return true
			}
		}
		return min <= 0 && k(i)
	}
}

// opt is an optional element: [ r ].
func opt(r rule) rule { return rep(0, 1, r) }

// lit matches a quoted ABNF string. Per RFC 5234 §2.3 quoted strings are
// case-insensitive (only matters for "v" in IPvFuture).
func (p *parser) lit(t string) rule {
	return func(i int, k cont) bool {
		if len(p.s)-i < len(t) {
			return false
		}
		for n := 0; n < len(t); n++ {
			if lower(p.s[i+n]) != lower(t[n]) {
				return false
			}
		}
		return k(i + len(t))
	}
}

// rng matches one byte in %xlo-hi.
func (p *parser) rng(lo, hi byte) rule {
	return func(i int, k cont) bool {
		return i < len(p.s) && lo <= p.s[i] && p.s[i] <= hi && k(i+1)
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

// capture runs r and, for the span it matched, calls set before going on;
// if the rest fails, the captured state is restored.
func (p *parser) capture(r rule, set func(res *Result, v string)) rule {
	return func(i int, k cont) bool {
		return r(i, func(j int) bool {
			saved := p.res
			set(&p.res, p.s[i:j])
			if k(j) {
				return true
			}
			p.res = saved
			return false
		})
	}
}

// hostType runs r and records that the host is of type t.
func (p *parser) hostType(r rule, t string) rule {
	return p.capture(r, func(res *Result, _ string) { res.HostType = t })
}

func setScheme(r *Result, v string)   { r.Scheme, r.HasScheme = v, true }
func setUserinfo(r *Result, v string) { r.Userinfo, r.HasUserinfo = v, true }
func setHost(r *Result, v string)     { r.Host, r.HasHost = v, true }
func setPort(r *Result, v string)     { r.Port, r.HasPort = v, true }
func setPath(r *Result, v string)     { r.Path = v }
func setQuery(r *Result, v string)    { r.Query, r.HasQuery = v, true }
func setFragment(r *Result, v string) { r.Fragment, r.HasFragment = v, true }

// ---------------------------------------------------------------------------
// RFC 3986 Appendix A, one function per rule, in the RFC's order.

// URI = scheme ":" hier-part [ "?" query ] [ "#" fragment ]
func (p *parser) uri(i int, k cont) bool {
	return seq(
		p.capture(p.scheme, setScheme), p.lit(":"), p.hierPart,
		opt(seq(p.lit("?"), p.capture(p.query, setQuery))),
		opt(seq(p.lit("#"), p.capture(p.fragment, setFragment))),
	)(i, k)
}

// hier-part = "//" authority path-abempty
//
//	/ path-absolute
//	/ path-rootless
//	/ path-empty
func (p *parser) hierPart(i int, k cont) bool {
	return alt(
		seq(p.lit("//"), p.authority, p.capture(p.pathAbempty, setPath)),
		p.capture(p.pathAbsolute, setPath),
		p.capture(p.pathRootless, setPath),
		p.capture(p.pathEmpty, setPath),
	)(i, k)
}

// URI-reference = URI / relative-ref
func (p *parser) uriReference(i int, k cont) bool {
	return alt(p.uri, p.relativeRef)(i, k)
}

// absolute-URI = scheme ":" hier-part [ "?" query ]
func (p *parser) absoluteURI(i int, k cont) bool {
	return seq(
		p.capture(p.scheme, setScheme), p.lit(":"), p.hierPart,
		opt(seq(p.lit("?"), p.capture(p.query, setQuery))),
	)(i, k)
}

// relative-ref = relative-part [ "?" query ] [ "#" fragment ]
func (p *parser) relativeRef(i int, k cont) bool {
	return seq(
		p.relativePart,
		opt(seq(p.lit("?"), p.capture(p.query, setQuery))),
		opt(seq(p.lit("#"), p.capture(p.fragment, setFragment))),
	)(i, k)
}

// relative-part = "//" authority path-abempty
//
//	/ path-absolute
//	/ path-noscheme
//	/ path-empty
func (p *parser) relativePart(i int, k cont) bool {
	return alt(
		seq(p.lit("//"), p.authority, p.capture(p.pathAbempty, setPath)),
		p.capture(p.pathAbsolute, setPath),
		p.capture(p.pathNoscheme, setPath),
		p.capture(p.pathEmpty, setPath),
	)(i, k)
}

// scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )
func (p *parser) scheme(i int, k cont) bool {
	return seq(p.alpha, rep(0, -1, alt(p.alpha, p.digit, p.lit("+"), p.lit("-"), p.lit("."))))(i, k)
}

// authority = [ userinfo "@" ] host [ ":" port ]
func (p *parser) authority(i int, k cont) bool {
	return seq(
		opt(seq(p.capture(p.userinfo, setUserinfo), p.lit("@"))),
		p.capture(p.host, setHost),
		opt(seq(p.lit(":"), p.capture(p.port, setPort))),
	)(i, k)
}

// userinfo = *( unreserved / pct-encoded / sub-delims / ":" )
func (p *parser) userinfo(i int, k cont) bool {
	return rep(0, -1, alt(p.unreserved, p.pctEncoded, p.subDelims, p.lit(":")))(i, k)
}

// host = IP-literal / IPv4address / reg-name
//
// (IP-literal records "ipv6" or "ipvfuture" itself.)
func (p *parser) host(i int, k cont) bool {
	return alt(
		p.ipLiteral,
		p.hostType(p.ipv4address, "ipv4"),
		p.hostType(p.regName, "reg-name"),
	)(i, k)
}

// port = *DIGIT
func (p *parser) port(i int, k cont) bool {
	return rep(0, -1, p.digit)(i, k)
}

// IP-literal = "[" ( IPv6address / IPvFuture  ) "]"
func (p *parser) ipLiteral(i int, k cont) bool {
	return seq(
		p.lit("["),
		alt(p.hostType(p.ipv6address, "ipv6"), p.hostType(p.ipvFuture, "ipvfuture")),
		p.lit("]"),
	)(i, k)
}

// IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )
func (p *parser) ipvFuture(i int, k cont) bool {
	return seq(
		p.lit("v"), rep(1, -1, p.hexdig), p.lit("."),
		rep(1, -1, alt(p.unreserved, p.subDelims, p.lit(":"))),
	)(i, k)
}

// IPv6address =                            6( h16 ":" ) ls32
//
//	/                       "::" 5( h16 ":" ) ls32
//	/ [               h16 ] "::" 4( h16 ":" ) ls32
//	/ [ *1( h16 ":" ) h16 ] "::" 3( h16 ":" ) ls32
//	/ [ *2( h16 ":" ) h16 ] "::" 2( h16 ":" ) ls32
//	/ [ *3( h16 ":" ) h16 ] "::"    h16 ":"   ls32
//	/ [ *4( h16 ":" ) h16 ] "::"              ls32
//	/ [ *5( h16 ":" ) h16 ] "::"              h16
//	/ [ *6( h16 ":" ) h16 ] "::"
func (p *parser) ipv6address(i int, k cont) bool {
	h16c := seq(p.h16, p.lit(":")) // h16 ":"
	return alt(
		seq(rep(6, 6, h16c), p.ls32),
		seq(p.lit("::"), rep(5, 5, h16c), p.ls32),
		seq(opt(p.h16), p.lit("::"), rep(4, 4, h16c), p.ls32),
		seq(opt(seq(rep(0, 1, h16c), p.h16)), p.lit("::"), rep(3, 3, h16c), p.ls32),
		seq(opt(seq(rep(0, 2, h16c), p.h16)), p.lit("::"), rep(2, 2, h16c), p.ls32),
		seq(opt(seq(rep(0, 3, h16c), p.h16)), p.lit("::"), p.h16, p.lit(":"), p.ls32),
		seq(opt(seq(rep(0, 4, h16c), p.h16)), p.lit("::"), p.ls32),
		seq(opt(seq(rep(0, 5, h16c), p.h16)), p.lit("::"), p.h16),
		seq(opt(seq(rep(0, 6, h16c), p.h16)), p.lit("::")),
	)(i, k)
}

// h16 = 1*4HEXDIG
func (p *parser) h16(i int, k cont) bool {
	return rep(1, 4, p.hexdig)(i, k)
}

// ls32 = ( h16 ":" h16 ) / IPv4address
func (p *parser) ls32(i int, k cont) bool {
	return alt(seq(p.h16, p.lit(":"), p.h16), p.ipv4address)(i, k)
}

// IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
func (p *parser) ipv4address(i int, k cont) bool {
	return seq(p.decOctet, p.lit("."), p.decOctet, p.lit("."), p.decOctet, p.lit("."), p.decOctet)(i, k)
}

// dec-octet = DIGIT                 ; 0-9
//
//	/ %x31-39 DIGIT         ; 10-99
//	/ "1" 2DIGIT            ; 100-199
//	/ "2" %x30-34 DIGIT     ; 200-249
//	/ "25" %x30-35          ; 250-255
func (p *parser) decOctet(i int, k cont) bool {
	return alt(
		p.digit,
		seq(p.rng(0x31, 0x39), p.digit),
		seq(p.lit("1"), rep(2, 2, p.digit)),
		seq(p.lit("2"), p.rng(0x30, 0x34), p.digit),
		seq(p.lit("25"), p.rng(0x30, 0x35)),
	)(i, k)
}

// reg-name = *( unreserved / pct-encoded / sub-delims )
func (p *parser) regName(i int, k cont) bool {
	return rep(0, -1, alt(p.unreserved, p.pctEncoded, p.subDelims))(i, k)
}

// path = path-abempty    ; begins with "/" or is empty
//
//	/ path-absolute   ; begins with "/" but not "//"
//	/ path-noscheme   ; begins with a non-colon segment
//	/ path-rootless   ; begins with a segment
//	/ path-empty      ; zero characters
//
// (Not used by URI-reference, which names the alternatives directly.)
func (p *parser) path(i int, k cont) bool {
	return alt(p.pathAbempty, p.pathAbsolute, p.pathNoscheme, p.pathRootless, p.pathEmpty)(i, k)
}

// path-abempty = *( "/" segment )
func (p *parser) pathAbempty(i int, k cont) bool {
	return rep(0, -1, seq(p.lit("/"), p.segment))(i, k)
}

// path-absolute = "/" [ segment-nz *( "/" segment ) ]
func (p *parser) pathAbsolute(i int, k cont) bool {
	return seq(p.lit("/"), opt(seq(p.segmentNz, rep(0, -1, seq(p.lit("/"), p.segment)))))(i, k)
}

// path-noscheme = segment-nz-nc *( "/" segment )
func (p *parser) pathNoscheme(i int, k cont) bool {
	return seq(p.segmentNzNc, rep(0, -1, seq(p.lit("/"), p.segment)))(i, k)
}

// path-rootless = segment-nz *( "/" segment )
func (p *parser) pathRootless(i int, k cont) bool {
	return seq(p.segmentNz, rep(0, -1, seq(p.lit("/"), p.segment)))(i, k)
}

// path-empty = 0<pchar>
func (p *parser) pathEmpty(i int, k cont) bool {
	return rep(0, 0, p.pchar)(i, k)
}

// segment = *pchar
func (p *parser) segment(i int, k cont) bool {
	return rep(0, -1, p.pchar)(i, k)
}

// segment-nz = 1*pchar
func (p *parser) segmentNz(i int, k cont) bool {
	return rep(1, -1, p.pchar)(i, k)
}

// segment-nz-nc = 1*( unreserved / pct-encoded / sub-delims / "@" )
//
//	; non-zero-length segment without any colon ":"
func (p *parser) segmentNzNc(i int, k cont) bool {
	return rep(1, -1, alt(p.unreserved, p.pctEncoded, p.subDelims, p.lit("@")))(i, k)
}

// pchar = unreserved / pct-encoded / sub-delims / ":" / "@"
func (p *parser) pchar(i int, k cont) bool {
	return alt(p.unreserved, p.pctEncoded, p.subDelims, p.lit(":"), p.lit("@"))(i, k)
}

// query = *( pchar / "/" / "?" )
func (p *parser) query(i int, k cont) bool {
	return rep(0, -1, alt(p.pchar, p.lit("/"), p.lit("?")))(i, k)
}

// fragment = *( pchar / "/" / "?" )
func (p *parser) fragment(i int, k cont) bool {
	return rep(0, -1, alt(p.pchar, p.lit("/"), p.lit("?")))(i, k)
}

// pct-encoded = "%" HEXDIG HEXDIG
func (p *parser) pctEncoded(i int, k cont) bool {
	return seq(p.lit("%"), p.hexdig, p.hexdig)(i, k)
}

// unreserved = ALPHA / DIGIT / "-" / "." / "_" / "~"
func (p *parser) unreserved(i int, k cont) bool {
	return alt(p.alpha, p.digit, p.lit("-"), p.lit("."), p.lit("_"), p.lit("~"))(i, k)
}

// reserved = gen-delims / sub-delims
func (p *parser) reserved(i int, k cont) bool {
	return alt(p.genDelims, p.subDelims)(i, k)
}

// gen-delims = ":" / "/" / "?" / "#" / "[" / "]" / "@"
func (p *parser) genDelims(i int, k cont) bool {
	return alt(p.lit(":"), p.lit("/"), p.lit("?"), p.lit("#"), p.lit("["), p.lit("]"), p.lit("@"))(i, k)
}

// sub-delims = "!" / "$" / "&" / "'" / "(" / ")"
//
//	/ "*" / "+" / "," / ";" / "="
func (p *parser) subDelims(i int, k cont) bool {
	return alt(p.lit("!"), p.lit("$"), p.lit("&"), p.lit("'"), p.lit("("), p.lit(")"),
		p.lit("*"), p.lit("+"), p.lit(","), p.lit(";"), p.lit("="))(i, k)
}

// Core rules, RFC 5234 Appendix B.1.

// ALPHA = %x41-5A / %x61-7A ; A-Z / a-z
func (p *parser) alpha(i int, k cont) bool {
	return alt(p.rng(0x41, 0x5A), p.rng(0x61, 0x7A))(i, k)
}

// DIGIT = %x30-39 ; 0-9
func (p *parser) digit(i int, k cont) bool {
	return p.rng(0x30, 0x39)(i, k)
}

// HEXDIG = DIGIT / "A" / "B" / "C" / "D" / "E" / "F"
//
// (Quoted strings are case-insensitive, so "a"-"f" match too.)
func (p *parser) hexdig(i int, k cont) bool {
	return alt(p.digit, p.lit("A"), p.lit("B"), p.lit("C"), p.lit("D"), p.lit("E"), p.lit("F"))(i, k)
}
