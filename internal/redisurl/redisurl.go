// Package redisurl holds what both seen/redis and the uriscan command need
// of a Redis URL without linking go-redis: redacting its password for
// messages and the default key prefix. seen/redis re-exports them
// (RedactURL, DefaultPrefix); this package imports only the standard
// library, so the lean uriscan binary can word its messages and flag help
// with them.
package redisurl

import (
	"net/url"
	"strings"
)

// DefaultPrefix is the key prefix of a set when none is given
// (seen/redis.DefaultPrefix).
const DefaultPrefix = "uriscan:seen:"

// PasswordName reports whether a query option's name looks like it holds
// a password ("password", "pass", "sentinel_password", ...).
func PasswordName(name string) bool {
	if d, err := url.QueryUnescape(name); err == nil {
		name = d
	}
	return strings.Contains(strings.ToLower(name), "pass")
}

// Redact returns spec with any password replaced by "***": the one in
// the userinfo (user:password@, up to the last '@') and the values of
// query options named like a password. Anything else is left as written,
// so the result is spec itself when there is no password. It does not
// check that spec is a valid URL.
func Redact(spec string) string {
	scheme, rest, ok := strings.Cut(spec, "://")
	head := ""
	if ok {
		head = scheme + "://"
	} else {
		rest = spec
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if user, _, ok := strings.Cut(rest[:at], ":"); ok {
			rest = user + ":***" + rest[at:]
		}
	}
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		parts := strings.Split(rest[i+1:], "&")
		for j, part := range parts {
			if name, _, ok := strings.Cut(part, "="); ok && PasswordName(name) {
				parts[j] = name + "=***"
			}
		}
		rest = rest[:i+1] + strings.Join(parts, "&")
	}
	return head + rest
}
