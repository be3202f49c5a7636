package redis_test

import (
	"strings"
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
