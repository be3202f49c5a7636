package redis_test

import (
	"fmt"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uriscan/uriscan/seen/redis"
)

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"redis://u:s3cr3t@h:1/0", "redis://u:***@h:1/0"},
		{"redis://:pw@h", "redis://:***@h"},
		{"rediss+cluster://u:p%40ss@h1:1,h2:2?dial_timeout=1", "rediss+cluster://u:***@h1:1,h2:2?dial_timeout=1"},
		{"redis://u:pa/ss@h/1", "redis://u:***@h/1"}, // an unescaped '/' in the password
		{"redis://u:pa@ss@h", "redis://u:***@h"},
		{"redis://h?password=x&a=b&sentinel_password=y", "redis://h?password=***&a=b&sentinel_password=***"},
		{"u:pw@h:1", "u:***@h:1"},
		{"redis://u@h", "redis://u@h"},
		{"redis://h:6379/0?prefix=a:", "redis://h:6379/0?prefix=a:"},
		{"redis://h1:7000,h2:7001", "redis://h1:7000,h2:7001"},
		{"redis+cluster://h1:1?addr=u:pw1@h2:2&addr=:pw2@h3:3", "redis+cluster://h1:1?addr=u:***@h2:2&addr=:***@h3:3"},
		{"redis://u:prod@prod-redis:6379", "redis://u:***@***-redis:6379"}, // the password in the host name
		{"", ""},
	} {
		if got := redis.RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedisURLNoPassword: no error from OpenRedisURL or OpenRedis holds
// the password, whether the URL is malformed, refused by go-redis, or
// nothing listens (port 1). The opens that dial run in parallel: each
// takes go-redis' dial retries, about 1.7 s.
func TestRedisURLNoPassword(t *testing.T) {
	const pw = "s3cr3t-pw"
	for _, spec := range []string{
		"redis://u:s3cr3t-pw@127.0.0.1:1/0",
		"redis://:s3cr3t%2Dpw@127.0.0.1:1",            // decodes to the password
		"redis://u:s3cr3t-pw@127.0.0.1:1,127.0.0.1:2", // a cluster
		"redis://u:s3cr3t-pw@127.0.0.1:70x0",
		"redis://u:s3cr3t-pw@h1:1,",
		"redis://u:s3cr3t-pw@127.0.0.1:1?bogus=1",
		"redis://127.0.0.1:1?password=s3cr3t-pw",
		"redis://u:s3cr3t-pw/x@127.0.0.1:1", // an unescaped '/'
		"redis://u:s3cr3t-pw@127.0.0.1:1/9?prefix=a{b",
		"http://u:s3cr3t-pw@h",
	} {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			r, err := redis.OpenURL(spec, &redis.Options{AnyParams: true, DialTimeout: time.Second})
			if err == nil {
				r.Close()
				t.Fatalf("OpenRedisURL(%s) succeeded", redis.RedactURL(spec))
			}
			if strings.Contains(err.Error(), "s3cr3t") {
				t.Errorf("OpenRedisURL(%s): the error holds the password: %v", redis.RedactURL(spec), err)
			}
			if !strings.HasPrefix(err.Error(), "seen: redis.OpenURL ") || !strings.Contains(err.Error(), "***") {
				t.Errorf("OpenRedisURL(%s): err = %v, want it to name the redacted URL", redis.RedactURL(spec), err)
			}
			t.Logf("%s: %v", redis.RedactURL(spec), err)
		})
	}
	t.Run("OpenRedis", func(t *testing.T) {
		t.Parallel()
		_, err := redis.Open([]string{"127.0.0.1:1"}, &redis.Options{AnyParams: true, Password: pw, DialTimeout: time.Second})
		if err == nil || strings.Contains(err.Error(), pw) {
			t.Errorf("OpenRedis with a password: err = %v, want an error without the password", err)
		}
	})
}

// TestRedisURLNoHost: a URL that names no host is refused before any
// dial (go-redis would take it for localhost:6379, so that
// redis://:$PASS@$HOST/0 with $HOST unset reached the server on this
// machine), single server or cluster, in a message that names the URL
// with its password redacted. A hostless element of a list of hosts is
// refused as such.
func TestRedisURLNoHost(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		{"redis://:s3cr3t-pw@/0", "names no host"},
		{"redis://", "names no host"},
		{"redis://:6379", "names no host"},
		{"rediss://u:s3cr3t-pw@:6380/1?dial_timeout=1s", "names no host"},
		{"redis+cluster://:s3cr3t-pw@/", "names no host"},
		{"rediss+cluster://u:s3cr3t-pw@:7000", "names no host"},
		{"redis://:s3cr3t-pw@h1:1,:2", `host ":2" is not host[:port]`},
	} {
		r, err := redis.OpenURL(c.spec, &redis.Options{AnyParams: true, DialTimeout: time.Second})
		if err == nil {
			r.Close()
			t.Errorf("OpenRedisURL(%s) succeeded", redis.RedactURL(c.spec))
			continue
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "seen: redis.OpenURL "+redis.RedactURL(c.spec)+": ") ||
			!strings.Contains(msg, c.want) || strings.Contains(msg, "s3cr3t") {
			t.Errorf("OpenRedisURL(%s): %v, want %q (and the password redacted)", redis.RedactURL(c.spec), err, c.want)
		}
	}
}

// TestRedisURLSecrets feeds OpenURL every form of store URL (redis://,
// rediss://, redis+cluster://, rediss+cluster://; one host, several, a
// malformed port, an empty element, a host name that holds the password)
// with a distinctive secret in every position a secret takes (the
// userinfo's password, a password-only userinfo, a user-only userinfo
// with a password option, password, sentinel_password and other
// "pass"-named options, the password of each addr option, as written or
// percent-encoded whole), the secret plain, percent-encoded with every
// reserved character in it, or holding one of them unescaped (which makes
// go-redis' parser fail), and Options.Password another secret. Nothing
// listens on the ports (127.0.0.1:1), so every open fails: no error, and
// no RedactURL of the URL, holds a piece of either secret (their first or
// last four characters, in any case).
func TestRedisURLSecrets(t *testing.T) {
	const head, tail = "Zq7X", "Wv4Y"          // of the URL's secret
	const optHead, optTail = "Kp3M", "Jn8R"    // of Options.Password
	const special = ":/?#[]@!$&'()*+,;=% \"\\" // every reserved character, and more
	type variant struct {
		name string
		pw   string // the secret
		// enc writes the secret for a position: "user" (userinfo) or
		// "query" (a query value).
		enc func(pw, where string) string
	}
	asIs := func(pw, _ string) string { return pw }
	encode := func(pw, where string) string {
		if where == "query" {
			return url.QueryEscape(pw)
		}
		return strings.TrimPrefix(url.UserPassword("", pw).String(), ":")
	}
	variants := []variant{
		{"plain", head + tail, asIs},
		{"encoded", head + special + tail, encode},
	}
	for _, c := range []string{"/", "?", "#", "@", "&", "%", "%zz", " ", ":", `"`, `\`, "\x01", "\xff", "="} {
		variants = append(variants, variant{fmt.Sprintf("raw %q", c), head + c + tail, asIs})
	}
	positions := []struct {
		name string
		url  func(scheme, hosts string, pw func(string) string) string
	}{
		{"userinfo", func(s, h string, pw func(string) string) string { return s + "://user:" + pw("user") + "@" + h + "/0" }},
		{"password only", func(s, h string, pw func(string) string) string { return s + "://:" + pw("user") + "@" + h }},
		{"user only, password option", func(s, h string, pw func(string) string) string {
			return s + "://user@" + h + "?password=" + pw("query")
		}},
		{"sentinel_password", func(s, h string, pw func(string) string) string {
			return s + "://" + h + "?sentinel_password=" + pw("query")
		}},
		{"options", func(s, h string, pw func(string) string) string {
			return s + "://" + h + "?dial_timeout=1s&PassWord=" + pw("query") + "&pool_size=2&my_passphrase=" + pw("query")
		}},
		{"addr", func(s, h string, pw func(string) string) string {
			return s + "://user:" + pw("user") + "@" + h + "?addr=user:" + pw("user") + "@127.0.0.1:3&addr=:" + pw("user") + "@127.0.0.1:4"
		}},
		{"addr encoded", func(s, h string, pw func(string) string) string {
			return s + "://" + h + "?addr=" + url.QueryEscape("user:"+pw("user")+"@127.0.0.1:3")
		}},
	}
	type tc struct{ spec, secret string }
	var cases []tc
	for _, scheme := range []string{"redis", "rediss", "redis+cluster", "rediss+cluster"} {
		for _, hosts := range []string{"127.0.0.1:1", "127.0.0.1:1,127.0.0.1:2", "127.0.0.1:70x0", "127.0.0.1:1,"} {
			for _, p := range positions {
				for _, v := range variants {
					if strings.HasPrefix(v.name, "raw") && (hosts != "127.0.0.1:1" || strings.HasPrefix(scheme, "rediss")) {
						continue // (the raw characters on fewer forms)
					}
					cases = append(cases, tc{p.url(scheme, hosts, func(where string) string { return v.enc(v.pw, where) }), v.pw})
				}
			}
		}
		// The password is the host name's first label.
		pw := strings.ToLower(head + tail)
		cases = append(cases, tc{scheme + "://user:" + pw + "@" + pw + ".invalid:1/0", pw})
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 128)
	for _, c := range cases {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			shown := redis.RedactURL(c.spec)
			r, err := redis.OpenURL(c.spec, &redis.Options{AnyParams: true, Password: optHead + special + optTail, DialTimeout: time.Second})
			if err == nil {
				r.Close()
				t.Errorf("OpenURL(%s) succeeded", shown)
				return
			}
			for what, text := range map[string]string{"the error": err.Error(), "RedactURL": shown} {
				low := strings.ToLower(text)
				for _, mark := range []string{head, tail, optHead, optTail} {
					if strings.Contains(low, strings.ToLower(mark)) {
						t.Errorf("OpenURL(%q): %s holds a piece of a secret (%q): %s", c.spec, what, mark, text)
					}
				}
			}
			if !strings.HasPrefix(err.Error(), "seen: redis.OpenURL ") {
				t.Errorf("OpenURL(%s): err = %v, want it to name the redacted URL", shown, err)
			}
		}()
	}
	wg.Wait()
	t.Logf("%d URLs", len(cases))
}
