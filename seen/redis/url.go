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
// No error contains a secret of the URL (its password, wherever it is
// written, see RedactURL) or opts.Password; RedactURL gives a URL fit
// for messages. A cluster's seed nodes after the first (addr=HOST:PORT)
// share the URL's user and password: an addr option with a userinfo is
// refused.
func OpenURL(spec string, opts *Options) (*Set, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	secrets := append(redisurl.Secrets(spec), redisurl.Forms(o.Password)...)
	u, err := parseRedisURL(spec)
	if err != nil {
		return nil, scrub(err, secrets)
	}
	t, err := u.target(&o)
	if err != nil {
		return nil, scrub(err, append(secrets, t.secrets...))
	}
	r, err := openRedis(t, o)
	return r, scrub(err, append(secrets, t.secrets...))
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
	secrets  []string   // redisurl.Secrets of the URL
}

// parseRedisURL splits spec. The result's secrets are set even when it
// fails, so that the error can be scrubbed.
func parseRedisURL(spec string) (redisURL, error) {
	u := redisURL{where: RedactURL(spec), secrets: redisurl.Secrets(spec)}
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
		// (go-redis' parser would echo a piece of it.)
		if _, pw, ok := strings.Cut(u.userinfo, ":"); ok {
			if _, err := url.PathUnescape(pw); err != nil {
				return fail("the password is not valid percent-encoding (write a '%%' in it as %%25)")
			}
		}
	}
	if strings.Contains(tail, "#") {
		return fail("a Redis URL has no fragment (#...)")
	}
	path, rawQuery, _ := strings.Cut(tail, "?")
	u.path = path
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		// Its message would echo a piece of a password option's value.
		for part := range strings.SplitSeq(rawQuery, "&") {
			name, value, _ := strings.Cut(part, "=")
			if _, verr := url.QueryUnescape(value); verr != nil && (redisurl.PasswordName(name) || name == "addr") {
				return fail("query: the value of %s is not valid percent-encoding (write a '%%' in it as %%25)", name)
			}
		}
		return fail("query: %v", err)
	}
	for i, a := range q["addr"] {
		if strings.Contains(a, "@") {
			return fail("addr option %d of %d names a user or password (USER:PASSWORD@HOST:PORT): the seed nodes of a cluster share the URL's; write them before the first host (%s://USER:PASSWORD@HOST:PORT?addr=HOST:PORT)",
				i+1, len(q["addr"]), scheme+"+cluster")
		}
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

// RedactURL returns spec with every secret replaced by "***": the password
// of its userinfo (user:***@), that of an addr option's value
// (addr=user:***@host), the values of query options named like a
// password ("pass" in any case: password=***, sentinel_password=***), a
// port that is not a number (what a parser takes for one when a password
// holds an unescaped '/', '?' or '#'), and then any other occurrence of
// one of them (a password that is also part of the host name), as
// written, percent-decoded or encoded. A user name is left as written,
// and so is anything else, so the result is spec itself when there is no
// secret. It does not check that spec is a valid URL.
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
	t.secrets = append(t.secrets, redisurl.Forms(o.Password)...)
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
			return fail("%v", urlErr(err, t.secrets))
		}
		so.Username, so.Password = credentials(so.Username, so.Password, o)
		if so.DB == 0 {
			so.DB = o.DB
		}
		so.TLSConfig = mergeTLS(so.TLSConfig, o)
		so.DialTimeout = cmp0(so.DialTimeout, o.DialTimeout)
		so.ReadTimeout = cmp0(so.ReadTimeout, o.ReadTimeout)
		so.WriteTimeout = cmp0(so.WriteTimeout, o.WriteTimeout)
		so.PoolSize = cmp0(so.PoolSize, o.PoolSize)
		t.secrets = append(t.secrets, redisurl.Forms(so.Password)...)
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
		return fail("%v", urlErr(err, t.secrets))
	}
	co.Username, co.Password = credentials(co.Username, co.Password, o)
	co.TLSConfig = mergeTLS(co.TLSConfig, o)
	co.DialTimeout = cmp0(co.DialTimeout, o.DialTimeout)
	co.ReadTimeout = cmp0(co.ReadTimeout, o.ReadTimeout)
	co.WriteTimeout = cmp0(co.WriteTimeout, o.WriteTimeout)
	co.PoolSize = cmp0(co.PoolSize, o.PoolSize)
	t.secrets = append(t.secrets, redisurl.Forms(co.Password)...)
	t.cluster = co
	return t, nil
}

// credentials returns the user and password to connect with: the URL's
// (user, password), and where it has no password, o.Password, with the
// URL's user or, where it names none, o.Username. So a password in the URL
// wins over o's, and a URL that names only a user (redis://app@host) takes
// o's password for it.
func credentials(user, password string, o *Options) (string, string) {
	if password != "" {
		return user, password
	}
	if user == "" {
		user = o.Username
	}
	return user, o.Password
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

// urlErr is an error of go-redis' URL parser, which may echo the URL or
// a parameter: without the URL that a *url.Error repeats (the messages
// name the redacted URL already), and with every one of secrets (the
// URL's, redisurl.Secrets, and the password given) replaced by "***".
func urlErr(err error, secrets []string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return scrub(err, secrets)
}
