package redis

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	goredis "github.com/redis/go-redis/v9"
	"github.com/uriscan/uriscan/internal/redisurl"
)

// OpenURL is Open for a set given as a URL:
//
//	redis://[user:password@]host[:port][/db][?option=value&...]
//	rediss://...                           (TLS)
//	redis://[user:password@]h1:7000,h2:7001[?...]   (a cluster: seed nodes)
//	redis+cluster://..., rediss+cluster://...       (a cluster, even of one seed)
//
// The port defaults to 6379, as in go-redis; the host does not default
// (go-redis takes none for localhost): a URL without one, such as
// redis://:pw@/0 (or redis://:$PASS@$HOST/0 with $HOST unset), is an
// error, not the server on this machine. A
// URL with one host and the redis or rediss scheme is a single server, or
// a cluster if the server says it is a cluster node (unless opts.Mode says
// otherwise; Standalone refuses a cluster URL). Several hosts are
// separated by commas; an empty element (a trailing comma, two commas in a
// row) is an error. A cluster has only DB 0.
//
// The URL is parsed by go-redis (goredis.ParseURL for a single server,
// goredis.ParseClusterURL for a cluster), so its query options are go-redis'
// (dial_timeout=3s, read_timeout, pool_size, max_retries, skip_verify,
// client_name, protocol, ...; see their documentation), except for one of
// package seen: prefix=P sets the key prefix (Options.Prefix).
// Options go-redis does not know are an error. Connection fields of opts
// fill in what the URL leaves unset (see Options); its other fields
// (Timeout, Pipelines, Retries, seen.Params) apply as they are.
//
// No error contains the password (see Set); RedactURL gives a URL fit
// for messages.
func OpenURL(spec string, opts *Options) (*Set, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	u, err := parseRedisURL(spec)
	if err != nil {
		return nil, scrub(err, u.secrets)
	}
	t, err := u.target(&o)
	if err != nil {
		return nil, scrub(err, u.secrets)
	}
	r, err := openRedis(t, o)
	return r, scrub(err, u.secrets)
}

// redisURL is a URL for OpenURL, split into its parts.
type redisURL struct {
	where    string // RedactURL of the URL, for messages
	scheme   string // redis or rediss
	cluster  bool   // +cluster, or several hosts
	userinfo string // before the '@', as written; "" if none
	hasUser  bool   // there is an '@'
	hosts    []string
	path     string     // from the '/' on, as written
	query    url.Values // without prefix
	prefix   *string    // the prefix option
	secrets  []string   // the password as written and decoded, password query values
}

// parseRedisURL splits spec. The result's secrets are set even when it
// fails, so that the error can be scrubbed.
func parseRedisURL(spec string) (redisURL, error) {
	u := redisURL{where: RedactURL(spec), secrets: urlSecrets(spec)}
	fail := func(format string, args ...any) (redisURL, error) {
		return u, fmt.Errorf("seen: redis.OpenURL %s: "+format, append([]any{u.where}, args...)...)
	}
	scheme, rest, ok := strings.Cut(spec, "://")
	if !ok {
		return fail("not a URL: want redis://, rediss://, redis+cluster:// or rediss+cluster://")
	}
	switch scheme {
	case "redis", "rediss":
	case "redis+cluster", "rediss+cluster":
		u.cluster = true
		scheme = strings.TrimSuffix(scheme, "+cluster")
	default:
		return fail("scheme %q: want redis, rediss, redis+cluster or rediss+cluster", scheme)
	}
	u.scheme = scheme
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndexByte(authority, '@'); at >= 0 {
		u.userinfo, u.hasUser = authority[:at], true
		authority = authority[at+1:]
	}
	if strings.Contains(tail, "#") {
		return fail("a Redis URL has no fragment (#...)")
	}
	path, rawQuery, _ := strings.Cut(tail, "?")
	u.path = path
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return fail("query: %v", err)
	}
	if vs, ok := q["prefix"]; ok {
		p := vs[len(vs)-1]
		u.prefix = &p
		delete(q, "prefix")
	}
	u.query = q
	u.hosts = strings.Split(authority, ",")
	if len(u.hosts) == 1 && noHost(authority) {
		return fail("the URL names no host (want %s://[USER:PASSWORD@]HOST[:PORT]...; localhost is not assumed)", scheme)
	}
	if len(u.hosts) > 1 {
		u.cluster = true
		for i, h := range u.hosts {
			if h == "" {
				return fail("host %d of %d in the list %q is empty", i+1, len(u.hosts), authority)
			}
		}
	}
	return u, nil
}

// noHost reports whether the authority (after the userinfo) of a URL
// with one host names none: "", ":6379", "[]". One that does not parse
// is left to go-redis' parser, which says what is wrong with it.
func noHost(authority string) bool {
	u, err := url.Parse("redis://" + authority)
	return err == nil && u.Hostname() == ""
}

// urlSecrets returns what a password in spec may be: the text between the
// first ':' of the userinfo and its '@', as written and decoded, taking
// the userinfo to end at the last '@' (so also when a password holds an
// unescaped '/', '?' or '#', which a URL parser would take for the end of
// the host, and then also what the parser takes for the password or the
// port), and the values of query options named like a password. A URL
// with an '@' in its query may so lose more than the password from its
// messages, never the password.
func urlSecrets(spec string) []string {
	var secrets []string
	add := func(s string) {
		if s == "" {
			return
		}
		secrets = append(secrets, s)
		if d, err := url.PathUnescape(s); err == nil && d != s {
			secrets = append(secrets, d)
		}
	}
	_, rest, ok := strings.Cut(spec, "://")
	if !ok {
		rest = spec
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
			add(pw)
			// When an '@' follows a '/', '?' or '#', a URL parser ends
			// the host, and any userinfo, earlier: take what it sees as
			// the password, or as the port of "user:password", too.
			if end := strings.IndexAny(rest, "/?#"); end >= 0 && end < at {
				authority := rest[:end]
				if at2 := strings.LastIndexByte(authority, '@'); at2 >= 0 {
					authority = authority[:at2]
				}
				if _, pw2, ok := strings.Cut(authority, ":"); ok {
					add(pw2)
				}
			}
		}
	}
	if _, query, ok := strings.Cut(rest, "?"); ok {
		for part := range strings.SplitSeq(query, "&") {
			name, value, ok := strings.Cut(part, "=")
			if ok && redisurl.PasswordName(name) {
				add(value)
				if d, err := url.QueryUnescape(value); err == nil {
					add(d)
				}
			}
		}
	}
	return secrets
}

// RedactURL returns spec with any password replaced by "***": the one in
// the userinfo (user:password@, up to the last '@') and the values of
// query options named like a password. Anything else is left as written,
// so the result is spec itself when there is no password. It does not
// check that spec is a valid URL.
func RedactURL(spec string) string { return redisurl.Redact(spec) }

// target maps u and the connection fields of o onto go-redis options, and
// applies u's prefix to o.
func (u *redisURL) target(o *Options) (redisTarget, error) {
	t := redisTarget{op: "redis.OpenURL", where: u.where, secrets: u.secrets}
	fail := func(format string, args ...any) (redisTarget, error) {
		return t, fmt.Errorf("seen: redis.OpenURL %s: "+format, append([]any{u.where}, args...)...)
	}
	if u.prefix != nil {
		o.Prefix = *u.prefix
	}
	if o.TLSConfig != nil && u.scheme != "rediss" {
		return fail("Options.TLSConfig is set, but the URL's scheme is %s, not rediss", u.scheme)
	}
	if o.Password != "" {
		t.secrets = append(t.secrets, o.Password)
	}
	base := u.scheme + "://"
	if u.hasUser {
		base += u.userinfo + "@"
	}
	base += u.hosts[0] + u.path
	cluster := u.cluster || o.Mode == Cluster
	switch {
	case o.Mode == Standalone && u.cluster:
		return fail("a cluster URL (several hosts, or +cluster), and Options.Mode is Standalone")
	case o.Mode != Auto && o.Mode != Standalone && o.Mode != Cluster:
		return fail("unknown mode %d", o.Mode)
	}
	if !cluster {
		if len(u.query) > 0 {
			base += "?" + u.query.Encode()
		}
		so, err := goredis.ParseURL(base)
		if err != nil {
			return fail("%v", urlErr(err))
		}
		if so.Username == "" && so.Password == "" {
			so.Username, so.Password = o.Username, o.Password
		}
		if so.DB == 0 {
			so.DB = o.DB
		}
		so.TLSConfig = mergeTLS(so.TLSConfig, o)
		so.DialTimeout = cmp0(so.DialTimeout, o.DialTimeout)
		so.ReadTimeout = cmp0(so.ReadTimeout, o.ReadTimeout)
		so.WriteTimeout = cmp0(so.WriteTimeout, o.WriteTimeout)
		so.PoolSize = cmp0(so.PoolSize, o.PoolSize)
		t.secrets = append(t.secrets, so.Password)
		t.single, t.detect = so, o.Mode == Auto
		return t, nil
	}
	// A cluster: go-redis' cluster URL takes the seeds after the first as
	// addr options, and has no path.
	switch strings.Trim(u.path, "/") {
	case "", "0":
	default:
		return fail("a Redis Cluster has only DB 0, and the URL's path is %q", u.path)
	}
	if o.DB != 0 {
		return fail("a Redis Cluster has only DB 0, and Options.DB is %d", o.DB)
	}
	q := url.Values{}
	for name, vs := range u.query {
		q[name] = vs
	}
	if len(u.hosts) > 1 {
		for i, h := range u.hosts {
			addr, err := hostPort(h)
			if err != nil {
				return fail("%v", err)
			}
			if i > 0 {
				q.Add("addr", addr)
			}
		}
	}
	base = strings.TrimSuffix(base, u.path)
	if len(q) > 0 {
		base += "?" + q.Encode()
	}
	co, err := goredis.ParseClusterURL(base)
	if err != nil {
		return fail("%v", urlErr(err))
	}
	if co.Username == "" && co.Password == "" {
		co.Username, co.Password = o.Username, o.Password
	}
	co.TLSConfig = mergeTLS(co.TLSConfig, o)
	co.DialTimeout = cmp0(co.DialTimeout, o.DialTimeout)
	co.ReadTimeout = cmp0(co.ReadTimeout, o.ReadTimeout)
	co.WriteTimeout = cmp0(co.WriteTimeout, o.WriteTimeout)
	co.PoolSize = cmp0(co.PoolSize, o.PoolSize)
	t.secrets = append(t.secrets, co.Password)
	t.cluster = co
	return t, nil
}

// cmp0 returns a unless it is zero, then b.
func cmp0[T comparable](a, b T) T {
	var zero T
	if a == zero {
		return b
	}
	return a
}

// mergeTLS returns the TLS configuration for a connection: the URL's
// (rediss; nil for redis), replaced by a copy of o.TLSConfig when that is
// set, which keeps the URL's host as ServerName unless it names one
// itself, and skip_verify.
func mergeTLS(fromURL *tls.Config, o *Options) *tls.Config {
	if fromURL == nil || o.TLSConfig == nil {
		return fromURL
	}
	c := o.TLSConfig.Clone()
	if c.ServerName == "" {
		c.ServerName = fromURL.ServerName
	}
	if fromURL.InsecureSkipVerify {
		c.InsecureSkipVerify = true
	}
	return c
}

// hostPort checks one host of a URL's list and adds the default port.
func hostPort(h string) (string, error) {
	u, err := url.Parse("redis://" + h)
	if err != nil || u.Host != h || u.User != nil || u.Hostname() == "" {
		return "", fmt.Errorf("host %q is not host[:port]", h)
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	return net.JoinHostPort(u.Hostname(), port), nil
}

// urlErr drops the URL that a *url.Error repeats (it may hold the
// password; the messages name the redacted URL already).
func urlErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
