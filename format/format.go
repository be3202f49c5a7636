// Package format writes the parts of a URI a format string names, in
// trurl's --get syntax: "{host}{path}" writes the host and the path,
// "{query:id}" the value of the query key id. uriscan's --get flag is this
// package.
//
// # Syntax
//
// A variable is a name in braces, {host}, or in brackets, [host]; the
// first opener in the format decides which (the other is then text, as in
// trurl). An opener with no closer is text. Backslash sequences: \\ \t \n
// \r \{ \[ (any other backslash is text).
//
// Names (an undefined part writes nothing):
//
//	url                      the whole URI-reference, as written
//	scheme user password host port path query fragment
//	query:KEY                the value of the first pair with key KEY
//	query-all:KEY            the values of every such pair, space-separated
//	query-keys               the keys, in order, each once (as written), space-separated
//	                         (an empty key is left out)
//	path:N                   path segment N (1 the first, -1 the last)
//	etld rdn subdomain       the host's public suffix, registrable domain
//	                         and subdomain (package domain)
//
// Values are percent-decoded, and in query pairs "+" is a space, unless the
// name has the prefix "url:" or ":" ({:path}: the path as written). Bytes
// that would break a line (controls, %00 to %1F and %7F) stay encoded. The
// prefix "default:" makes {default:port} the scheme's default port
// (normalize.DefaultPort) when the URI has none. KEY matches the decoded key,
// case-sensitively.
//
// # Differences from trurl
//
// trurl normalizes a URL before it writes a part; a Format writes the
// part as the URI has it: {:path} of "/%2e%61" is "/%2e%61" (trurl:
// "/.a"), IPv6 hosts are not compressed, "10.1" is not read as 10.0.0.1,
// "localhost" has no scheme (trurl guesses http). Decoded control bytes
// stay encoded where trurl writes them ("/%18", not a raw 0x18), and so
// does %00 in a query value (trurl: "."). The prefixes must:, strict:,
// puny: and idn: are refused. query-keys, path:N, etld, rdn and subdomain
// are not trurl's.
package format

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/ascii"
	"github.com/uriscan/uriscan/internal/ports"
)

// ErrSyntax is the cause (errors.Is) of every error Compile returns.
var ErrSyntax = errors.New("bad format")

// SyntaxError says where and why Compile refused a format.
type SyntaxError struct {
	Format string
	Offset int // of the variable at fault
	Msg    string
}

func (e *SyntaxError) Error() string {
	return "format: " + e.Msg + " at offset " + strconv.Itoa(e.Offset) + " of " + strconv.Quote(e.Format)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

type kind uint8

const (
	kText kind = iota
	kURL
	kScheme
	kUser
	kPassword
	kHost
	kPort
	kPath
	kQuery
	kFragment
	kQueryKey
	kQueryAll
	kQueryKeys
	kPathSeg
	kETLD
	kRDN
	kSubdomain
)

var names = map[string]kind{
	"url": kURL, "scheme": kScheme, "user": kUser, "password": kPassword,
	"host": kHost, "port": kPort, "path": kPath, "query": kQuery,
	"fragment": kFragment, "query-keys": kQueryKeys, "etld": kETLD,
	"rdn": kRDN, "subdomain": kSubdomain,
}

type op struct {
	kind kind
	raw  bool   // as written, not decoded
	def  bool   // default: (port)
	arg  string // text, or the query key
	n    int    // path:N
}

// A SplitFunc splits a host at its public suffix: its subdomain,
// registrable domain and public suffix, and whether it has a registrable
// domain. domain.NewSplitFunc makes one (a Cache of its own).
type SplitFunc func(host string) (subdomain, registrable, suffix string, ok bool)

// A Format is a compiled format string. Append may be called from one
// goroutine at a time (its SplitFunc may keep a cache); Clone gives a copy
// for another.
type Format struct {
	ops      []op
	newSplit func() SplitFunc
	split    SplitFunc // when a domain name is asked for
}

// Names lists the variable names a format may use, for help texts.
func Names() []string {
	return []string{"url", "scheme", "user", "password", "host", "port", "path", "query", "fragment",
		"query:KEY", "query-all:KEY", "query-keys", "path:N", "etld", "rdn", "subdomain"}
}

// Compile parses a format. newSplit makes the SplitFunc of {etld}, {rdn}
// and {subdomain} (one per Format and Clone: domain.NewSplitFunc with the
// rules wanted); when it is nil they write nothing (UsesDomains says
// whether the format has them). Its errors are *SyntaxError. This package
// does not link the Public Suffix List: package domain does.
func Compile(format string, newSplit func() SplitFunc) (*Format, error) {
	f := &Format{newSplit: newSplit}
	open, close := byte(0), byte(0)
	var text []byte
	flush := func() {
		if len(text) > 0 {
			f.ops = append(f.ops, op{kind: kText, arg: string(text)})
			text = text[:0]
		}
	}
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c == '\\' && i+1 < len(format) {
			switch e := format[i+1]; e {
			case '\\', '{', '[':
				text = append(text, e)
				i++
				continue
			case 't', 'n', 'r':
				text = append(text, "\t\n\r"[strings.IndexByte("tnr", e)])
				i++
				continue
			}
		}
		if open == 0 && (c == '{' || c == '[') {
			open, close = c, c+2 // '{' '}' and '[' ']' are two apart
		}
		if c != open || open == 0 {
			text = append(text, c)
			continue
		}
		end := strings.IndexByte(format[i+1:], close)
		if end < 0 {
			text = append(text, c) // an opener with no closer is text; the rest is read on
			continue
		}
		o, err := parseVar(format, i, format[i+1:i+1+end])
		if err != nil {
			return nil, err
		}
		flush()
		f.ops = append(f.ops, o)
		i += 1 + end
	}
	flush()
	if f.UsesDomains() && newSplit != nil {
		f.split = newSplit()
	}
	return f, nil
}

// parseVar parses the variable v (without its braces) at offset off.
func parseVar(format string, off int, v string) (op, error) {
	bad := func(msg string) (op, error) {
		return op{}, &SyntaxError{Format: format, Offset: off, Msg: msg}
	}
	var o op
	for {
		switch {
		case strings.HasPrefix(v, ":"):
			o.raw, v = true, v[1:]
			continue
		case strings.HasPrefix(v, "url:"):
			o.raw, v = true, v[4:]
			continue
		case strings.HasPrefix(v, "default:"):
			o.def, v = true, v[8:]
			continue
		}
		break
	}
	for _, p := range []string{"must:", "strict:", "puny:", "idn:"} {
		if strings.HasPrefix(v, p) {
			return bad("the prefix " + strconv.Quote(p) + " is not supported")
		}
	}
	name, arg, hasArg := strings.Cut(v, ":")
	switch {
	case name == "query" && hasArg:
		o.kind, o.arg = kQueryKey, arg
	case name == "query-all" && hasArg:
		o.kind, o.arg = kQueryAll, arg
	case name == "path" && hasArg:
		n, err := strconv.Atoi(arg)
		if err != nil || n == 0 {
			return bad("path:N needs a segment number N, 1 or more or -1 or less, not " + strconv.Quote(arg))
		}
		o.kind, o.n = kPathSeg, n
	case hasArg:
		return bad("unknown variable " + strconv.Quote(v) + " (names: " + strings.Join(Names(), ", ") + ")")
	default:
		k, ok := names[name]
		if !ok {
			return bad("unknown variable " + strconv.Quote(v) + " (names: " + strings.Join(Names(), ", ") + ")")
		}
		o.kind = k
	}
	if o.def && o.kind != kPort {
		return bad("the prefix \"default:\" goes with port only")
	}
	return o, nil
}

// UsesDomains reports whether the format has {etld}, {rdn} or
// {subdomain}.
func (f *Format) UsesDomains() bool {
	for _, o := range f.ops {
		if o.kind == kETLD || o.kind == kRDN || o.kind == kSubdomain {
			return true
		}
	}
	return false
}

// Clone returns a Format with the same variables and its own SplitFunc.
func (f *Format) Clone() *Format {
	g := *f
	if f.split != nil {
		g.split = f.newSplit()
	}
	return &g
}

// Append appends the format's text for u to dst. It allocates nothing but
// what its SplitFunc does (domain.NewSplitFunc's: nothing for a host it
// has split before).
func (f *Format) Append(dst []byte, u *uriscan.URI) []byte {
	for i := range f.ops {
		o := &f.ops[i]
		switch o.kind {
		case kText:
			dst = append(dst, o.arg...)
		case kURL:
			dst = append(dst, u.String()...)
		case kScheme:
			dst = append(dst, u.Scheme()...)
		case kUser, kPassword:
			ui := u.Userinfo()
			user, pass, _ := strings.Cut(ui, ":")
			if o.kind == kPassword {
				user = pass
			}
			dst = appendPart(dst, user, o.raw, false)
		case kHost:
			dst = appendPart(dst, u.Host(), o.raw, false)
		case kPort:
			p := u.Port()
			if p == "" && o.def {
				p = defaultPort(u.Scheme())
			}
			dst = append(dst, p...)
		case kPath:
			dst = appendPart(dst, u.Path(), o.raw, false)
		case kQuery:
			dst = appendPart(dst, u.Query(), o.raw, false)
		case kFragment:
			dst = appendPart(dst, u.Fragment(), o.raw, false)
		case kQueryKey, kQueryAll:
			dst = appendQueryValues(dst, u.Query(), o.arg, o.raw, o.kind == kQueryAll)
		case kQueryKeys:
			dst = appendQueryKeys(dst, u.Query(), o.raw)
		case kPathSeg:
			dst = appendPart(dst, segment(u.Path(), o.n), o.raw, false)
		case kETLD, kRDN, kSubdomain:
			if f.split == nil {
				break
			}
			sub, rdn, suffix, _ := f.split(u.Host())
			switch o.kind {
			case kETLD:
				dst = append(dst, suffix...)
			case kRDN:
				dst = append(dst, rdn...)
			default:
				dst = append(dst, sub...)
			}
		}
	}
	return dst
}

// defaultPort is the default port of scheme in lowercase (ports.Default,
// the table normalize.DefaultPort gives).
func defaultPort(scheme string) string {
	var b [16]byte
	if len(scheme) > len(b) {
		return ""
	}
	for i := 0; i < len(scheme); i++ {
		c := scheme[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	p, _ := ports.Default(string(b[:len(scheme)]))
	return p
}

// segment is segment n of path (1 the first, -1 the last; a leading "/"
// begins no segment), or "".
func segment(path string, n int) string {
	p := strings.TrimPrefix(path, "/")
	if path == "" {
		return ""
	}
	if n > 0 {
		for ; n > 1; n-- {
			i := strings.IndexByte(p, '/')
			if i < 0 {
				return ""
			}
			p = p[i+1:]
		}
		if i := strings.IndexByte(p, '/'); i >= 0 {
			p = p[:i]
		}
		return p
	}
	for ; n < -1; n++ {
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return ""
		}
		p = p[:i]
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}

// appendPart appends s percent-decoded (and with "+" as a space when
// plus), or as written when raw. A %XX that decodes to a control byte
// stays as written, so that one URI stays one line.
func appendPart(dst []byte, s string, raw, plus bool) []byte {
	if raw {
		return append(dst, s...)
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%' && i+2 < len(s) && ascii.IsHex(s[i+1]) && ascii.IsHex(s[i+2]):
			d := ascii.Unhex(s[i+1])<<4 | ascii.Unhex(s[i+2])
			if d < 0x20 || d == 0x7f {
				dst = append(dst, s[i:i+3]...)
			} else {
				dst = append(dst, d)
			}
			i += 2
		case c == '+' && plus:
			dst = append(dst, ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// appendQueryValues appends the value of the first pair of query whose
// decoded key is key, or, with all, of every such pair, space-separated.
func appendQueryValues(dst []byte, query, key string, raw, all bool) []byte {
	first := true
	for q := query; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		k, v, _ := strings.Cut(pair, "=")
		if !decodedEqual(k, key) {
			continue
		}
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		dst = appendPart(dst, v, raw, true)
		if !all {
			break
		}
	}
	return dst
}

// appendQueryKeys appends the keys of query's pairs, in order, each once
// (as written), space-separated. Duplicates are found by sorting, so that
// a query of many keys costs n log n, not n².
func appendQueryKeys(dst []byte, query string, raw bool) []byte {
	var small [32]string
	keys := small[:0]
	for q := query; q != ""; {
		var pair string
		pair, q, _ = strings.Cut(q, "&")
		if k, _, _ := strings.Cut(pair, "="); k != "" {
			keys = append(keys, k)
		}
	}
	var smallIdx [32]int32
	order := smallIdx[:0]
	for i := range keys {
		order = append(order, int32(i))
	}
	// order: the keys' indices sorted by key, then by position; a key
	// equal to the one before it in that order is a repeat.
	slices.SortFunc(order, func(a, b int32) int {
		if c := strings.Compare(keys[a], keys[b]); c != 0 {
			return c
		}
		return int(a - b)
	})
	prev := ""
	for j, i := range order {
		if k := keys[i]; j > 0 && k == prev {
			keys[i] = "" // a repeat: left out below
		} else {
			prev = k
		}
	}
	first := true
	for _, k := range keys {
		if k == "" {
			continue
		}
		if !first {
			dst = append(dst, ' ')
		}
		first = false
		dst = appendPart(dst, k, raw, true)
	}
	return dst
}

// decodedEqual reports whether the query key k, decoded ("+" a space),
// equals key.
func decodedEqual(k, key string) bool {
	j := 0
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '%' && i+2 < len(k) && ascii.IsHex(k[i+1]) && ascii.IsHex(k[i+2]):
			c = ascii.Unhex(k[i+1])<<4 | ascii.Unhex(k[i+2])
			i += 2
		case c == '+':
			c = ' '
		}
		if j >= len(key) || key[j] != c {
			return false
		}
		j++
	}
	return j == len(key)
}
