// Package redisurl holds what both seen/redis and the uriscan command need
// of a Redis URL without linking go-redis: finding and redacting its
// secrets for messages, and the default key prefix. seen/redis re-exports
// them (RedactURL, DefaultPrefix); this package imports only the standard
// library, so the command's messages and flag help use them without
// linking a Redis client.
//
// # Secrets
//
// A secret of a URL is any text of it that is, or may be, a password:
//
//   - the password of the URL's userinfo (user:PASSWORD@), taking the
//     userinfo to end at the last '@' that is not in the value of an addr
//     or a password option, so that a password with an unescaped '/', '?' or '#' is
//     taken whole; and, where a URL parser would end the host earlier (at
//     that '/', '?' or '#'), what it takes for the password or for the port
//     too;
//   - where the userinfo so taken runs past the authority a URL parser
//     sees (up to the first '/', '?' or '#'), a port that is not a number
//     (redis://u:pa/ss@h: "pa", a password that a parser reads as the
//     port of host "u");
//   - the password of the userinfo of each addr option's value
//     (?addr=user:PASSWORD@host:port; go-redis takes none there, and its
//     error echoes the value);
//   - the value of each query option whose name holds "pass", in any case
//     (password, sentinel_password, pass, ...), with the parts without
//     '=' that follow it (the rest of a value with an unescaped '&').
//
// Each is taken as written, percent-decoded (as a path and as a query
// value), in the forms an encoder writes of it again, and as Go's %q
// writes it; and where it holds one of '/', '?', '#', '@', '&' and '='
// unescaped, each piece of it between them, and what is before and after
// each, is a secret too (a parser cuts it there and may echo a piece). A user name is
// not a secret (redis://app@host names user app, whose password may come
// from elsewhere). Redact replaces every one of them with "***", wherever
// it occurs in the URL (a password that is also part of the host name
// hides that part of it); seen/redis replaces them in every error it
// returns.
package redisurl

import (
	"cmp"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// DefaultPrefix is the key prefix of a set when none is given
// (seen/redis.DefaultPrefix).
const DefaultPrefix = "uriscan:seen:"

// Redacted replaces a secret in a redacted URL or message.
const Redacted = "***"

// PasswordName reports whether a query option's name looks like it holds
// a password ("password", "pass", "sentinel_password", ...).
func PasswordName(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	return strings.Contains(strings.ToLower(name), "pass")
}

// Redact returns spec with every secret (see the package doc) replaced by
// "***": the password of the userinfo (user:***@, up to the last '@'
// outside an addr option's value), that of each addr option (addr=user:***@host),
// the values of query options named like a password, and then whatever
// text of a secret remains anywhere else. Anything else is left as
// written, so the result is spec itself when there is no secret. It does
// not check that spec is a valid URL.
func Redact(spec string) string {
	head, rest := splitScheme(spec)
	secrets := Secrets(spec)
	if at := userinfoEnd(rest); at >= 0 {
		if user, _, ok := strings.Cut(rest[:at], ":"); ok {
			rest = user + ":" + Redacted + rest[at:]
		}
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		parts := strings.Split(rest[i+1:], "&")
		inPass := false
		for j, part := range parts {
			name, value, ok := strings.Cut(part, "=")
			if !ok && inPass {
				parts[j] = Redacted // the rest of a password, cut at an unescaped '&'
				continue
			}
			inPass = ok && PasswordName(name)
			switch {
			case !ok:
			case inPass:
				parts[j] = name + "=" + Redacted
			case addrName(name):
				if at := strings.LastIndexByte(value, '@'); at >= 0 {
					if user, _, ok := strings.Cut(value[:at], ":"); ok {
						parts[j] = name + "=" + user + ":" + Redacted + value[at:]
					}
				}
			}
		}
		rest = rest[:i+1] + strings.Join(parts, "&")
	}
	return Scrub(head+rest, secrets)
}

// Scrub returns text with each of secrets replaced by "***", the longest
// first (so that a secret that holds another is replaced whole).
func Scrub(text string, secrets []string) string {
	secrets = slices.Clone(secrets)
	slices.SortStableFunc(secrets, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	for _, s := range secrets {
		if s != "" && s != Redacted {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	return text
}

// Secrets returns every text of spec that is or may be a secret (see the
// package doc), each in the forms a message may show it in: as written,
// decoded, and encoded again. It returns nil when spec holds none. It
// does not check that spec is a valid URL.
func Secrets(spec string) []string {
	var s secretSet
	_, rest := splitScheme(spec)
	// The userinfo as this package reads it: up to the last '@' outside
	// an addr option's value.
	at := userinfoEnd(rest)
	if at >= 0 {
		if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
			s.add(pw)
		}
	}
	// The authority as a URL parser (go-redis') reads it: up to the
	// first '/', '?' or '#', its userinfo up to its last '@'. Where a
	// password holds one of those unescaped (the userinfo above ends
	// after the authority), the parser takes its head for a password or,
	// when not a number, for the port of host "user".
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	cut := at >= len(authority)
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		if _, pw, ok := strings.Cut(authority[:at], ":"); ok {
			s.add(pw)
		}
		authority = authority[at+1:]
	}
	for h := range strings.SplitSeq(authority, ",") {
		if p := port(h); cut && p != "" && strings.Trim(p, "0123456789") != "" {
			s.add(p)
		}
	}
	// Query options: wherever the query starts, for this package's
	// reading and a parser's. A part without '=' may be the rest of the
	// value before it, cut at an unescaped '&'.
	for _, q := range queries(rest) {
		name, value := "", ""
		for part := range strings.SplitSeq(q, "&") {
			if n, v, ok := strings.Cut(part, "="); ok {
				name, value = n, v
			} else if name != "" {
				value += "&" + part
			}
			switch {
			case PasswordName(name):
				s.add(value)
				if d, err := url.QueryUnescape(value); err == nil {
					s.add(d)
				}
			case addrName(name):
				vs := []string{value}
				if d, err := url.QueryUnescape(value); err == nil {
					vs = append(vs, d)
				}
				for _, v := range vs {
					if at := strings.LastIndexByte(v, '@'); at >= 0 {
						if _, pw, ok := strings.Cut(v[:at], ":"); ok {
							s.add(pw)
						}
					}
				}
			}
		}
	}
	return s.list
}

// Forms returns the forms a secret v may take in a message: as written,
// percent-decoded (as a path and as a query value), each of these
// percent-encoded again (as a path, a query value and a userinfo's
// password), and each of all these as Go quotes it (%q, without the
// quotes), each once; nil for "".
func Forms(v string) []string {
	var s secretSet
	s.add1(v)
	return s.list
}

// secretSet collects secrets in all their forms (Forms), each once, and
// the pieces of a secret with a delimiter in it.
type secretSet struct{ list []string }

func (s *secretSet) add(v string) {
	if v == "" {
		return
	}
	// A secret that holds a delimiter unescaped is a piece of a URL that a
	// parser cuts there: each piece, and what is before and after each
	// delimiter, is one too.
	if strings.ContainsAny(v, pieceDelims) {
		for i := 0; i < len(v); i++ {
			if strings.IndexByte(pieceDelims, v[i]) >= 0 {
				s.add1(v[:i])
				s.add1(v[i+1:])
			}
		}
		for _, p := range strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune(pieceDelims, r) }) {
			s.add1(p)
		}
	}
	s.add1(v)
}

// pieceDelims are the characters at which a URL parser cuts a secret
// written unescaped: the ends of the authority, of the userinfo, of a
// query option and of its name.
const pieceDelims = "/?#@&="

// add1 adds v in all its forms (Forms).
func (s *secretSet) add1(v string) {
	if v == "" {
		return
	}
	forms := []string{v}
	if d, err := url.PathUnescape(v); err == nil {
		forms = append(forms, d)
	}
	if d, err := url.QueryUnescape(v); err == nil {
		forms = append(forms, d)
	}
	for _, f := range forms[:len(forms):len(forms)] {
		forms = append(forms, url.PathEscape(f), url.QueryEscape(f),
			strings.TrimPrefix(url.UserPassword("", f).String(), ":"))
	}
	for _, f := range forms[:len(forms):len(forms)] {
		q := strconv.Quote(f)
		forms = append(forms, q[1:len(q)-1])
	}
	for _, f := range forms {
		if f != "" && !slices.Contains(s.list, f) {
			s.list = append(s.list, f)
		}
	}
}

// splitScheme splits spec after its "scheme://", if any.
func splitScheme(spec string) (head, rest string) {
	if scheme, rest, ok := strings.Cut(spec, "://"); ok {
		return scheme + "://", rest
	}
	return "", spec
}

// userinfoEnd returns the index in rest (a URL after its "scheme://") of
// the '@' that ends its userinfo, or -1: the last '@', unless it is in
// the query, in the value of an option: that of an addr option ends that
// value's userinfo, that of a password option is the password's, and that
// of another option is its own, unless the authority that a parser sees
// is broken as a password with an unescaped '/', '?' or '#' breaks it
// (no '@' in it, and a port that is not a number: redis://u:pa?x=ss@h).
// So an '@' in the path, in a query option's name or in a part without
// '=' ends a password that holds an unescaped '/', '?', '#' or '&'.
func userinfoEnd(rest string) int {
	q := strings.IndexByte(rest, '?')
	broken := false
	authority := rest
	if end := strings.IndexAny(rest, "/?#"); end >= 0 {
		authority = rest[:end]
	}
	if !strings.Contains(authority, "@") {
		for h := range strings.SplitSeq(authority, ",") {
			if p := port(h); p != "" && strings.Trim(p, "0123456789") != "" {
				broken = true
			}
		}
	}
	for at := len(rest); ; {
		at = strings.LastIndexByte(rest[:at], '@')
		if at < 0 || q < 0 || at < q {
			return at
		}
		start := strings.LastIndexByte(rest[:at], '&') + 1
		if start <= q {
			start = q + 1
		}
		name, _, ok := strings.Cut(rest[start:at], "=")
		switch {
		case !ok:
			return at
		case addrName(name) || PasswordName(name):
		case broken:
			return at
		}
	}
}

// queries returns the query of rest (after its first '?') and, when the
// userinfo ends after that '?', the query after the userinfo.
func queries(rest string) []string {
	var qs []string
	if _, q, ok := strings.Cut(rest, "?"); ok {
		qs = append(qs, q)
	}
	if at := userinfoEnd(rest); at >= 0 {
		if _, q, ok := strings.Cut(rest[at:], "?"); ok && len(qs) > 0 && q != qs[0] {
			qs = append(qs, q)
		}
	}
	return qs
}

// addrName reports whether a query option's name is addr (a cluster's
// seed node, in go-redis' cluster URL).
func addrName(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	return name == "addr"
}

// port returns what a URL parser takes for the port of host h (host,
// host:port, [v6]:port): the text after the ':' that follows the host.
func port(h string) string {
	if strings.HasPrefix(h, "[") {
		if i := strings.Index(h, "]:"); i >= 0 {
			return h[i+2:]
		}
		return ""
	}
	_, p, _ := strings.Cut(h, ":")
	return p
}
