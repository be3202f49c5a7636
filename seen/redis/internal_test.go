package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/uriscan/uriscan/seen"
)

// fakeRedisError is a server reply error, as go-redis returns them.
type fakeRedisError string

func (e fakeRedisError) Error() string { return string(e) }
func (fakeRedisError) RedisError()     {}

func TestRedisTransient(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{refused, true},
		{fmt.Errorf("wrapped: %w", refused), true},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{os.ErrDeadlineExceeded, true},
		{io.EOF, true},
		{io.ErrUnexpectedEOF, true},
		{context.DeadlineExceeded, true},
		{goredis.ErrPoolTimeout, true},
		{syscall.EPIPE, true},
		{&net.DNSError{Err: "server misbehaving", Name: "h", IsTemporary: true}, true},
		{fakeRedisError("LOADING Redis is loading the dataset in memory"), true},
		{fakeRedisError("BUSY Redis is busy running a script"), true},
		{fakeRedisError("TRYAGAIN Multiple keys request during rehashing of slot"), true},
		{fakeRedisError("CLUSTERDOWN The cluster is down"), true},
		{fakeRedisError("MASTERDOWN Link with MASTER is down"), true},
		{fakeRedisError("READONLY You can't write against a read only replica."), true},
		{fakeRedisError("ERR max number of clients reached"), true},
		{errors.Join(io.EOF, nil, refused), true},

		{fakeRedisError("WRONGTYPE Operation against a key holding the wrong kind of value"), false},
		{fakeRedisError("NOAUTH Authentication required."), false},
		{fakeRedisError("WRONGPASS invalid username-password pair or user is disabled."), false},
		{fakeRedisError("OOM command not allowed when used memory > 'maxmemory'."), false},
		{fakeRedisError("BUSYGROUP Consumer Group name already exists"), false},
		{fakeRedisError("ERR unknown command"), false},
		{&net.DNSError{Err: "no such host", Name: "h", IsNotFound: true}, false},
		{goredis.ErrClosed, false},
		{seen.ErrClosed, false},
		{context.Canceled, false},
		{errors.New("x509: certificate signed by unknown authority"), false},
		{errors.Join(io.EOF, fakeRedisError("WRONGTYPE x")), false},
		{errors.Join(nil, nil), false},
	} {
		if got := redisTransient(c.err); got != c.want {
			t.Errorf("redisTransient(%T %v) = %v, want %v", c.err, c.err, got, c.want)
		}
	}
}

func TestRedisRetryWaits(t *testing.T) {
	r := &Set{backoff: DefaultRetryBackoff, backoffX: DefaultMaxRetryBackoff}
	var got []time.Duration
	var total time.Duration
	for n := 1; n <= DefaultRetries; n++ {
		got = append(got, r.wait(n))
		total += r.wait(n)
	}
	ms := time.Millisecond
	want := []time.Duration{50 * ms, 100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 2000 * ms, 2000 * ms, 2000 * ms, 2000 * ms}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("default waits = %v, want %v", got, want)
	}
	if total != 11150*ms {
		t.Errorf("default waits add up to %v, want 11.15s (as documented)", total)
	}
	r = &Set{backoff: 30 * ms, backoffX: 100 * ms}
	if got := []time.Duration{r.wait(1), r.wait(2), r.wait(3), r.wait(4), r.wait(1000)}; fmt.Sprint(got) != fmt.Sprint([]time.Duration{30 * ms, 60 * ms, 100 * ms, 100 * ms, 100 * ms}) {
		t.Errorf("waits from 30ms to 100ms = %v", got)
	}
}

// TestRedisURLTarget checks how OpenURL maps URLs and options onto
// go-redis options, without connecting.
func TestRedisURLTarget(t *testing.T) {
	target := func(spec string, o Options) (redisTarget, Options, error) {
		u, err := parseRedisURL(spec)
		if err != nil {
			return redisTarget{}, o, err
		}
		tg, err := u.target(&o)
		return tg, o, err
	}
	type single struct {
		addr, user, pw string
		db             int
		dial           time.Duration
		pool           int
		tls            string // ServerName, "-" for none
		detect         bool
	}
	sOf := func(tg redisTarget) single {
		s := tg.single
		tls := "-"
		if s.TLSConfig != nil {
			tls = s.TLSConfig.ServerName
		}
		return single{s.Addr, s.Username, s.Password, s.DB, s.DialTimeout, s.PoolSize, tls, tg.detect}
	}
	for _, c := range []struct {
		spec   string
		o      Options
		want   single
		prefix string
	}{
		{spec: "redis://localhost:6380/2?dial_timeout=3s&prefix=p:", want: single{"localhost:6380", "", "", 2, 3 * time.Second, 0, "-", true}, prefix: "p:"},
		{spec: "redis://localhost", want: single{"localhost:6379", "", "", 0, 0, 0, "-", true}}, // (no host: TestRedisURLNoHost)
		{spec: "redis://u:p%40ss@h?db=4", want: single{"h:6379", "u", "p@ss", 4, 0, 0, "-", true}},
		{spec: "rediss://h:6380", want: single{"h:6380", "", "", 0, 0, 0, "h", true}},
		{spec: "redis://[::1]:7000", want: single{"[::1]:7000", "", "", 0, 0, 0, "-", true}},
		// Options fill in what the URL leaves unset...
		{spec: "redis://h", o: Options{Username: "a", Password: "b", DB: 3, DialTimeout: time.Second, PoolSize: 7, Prefix: "o:"},
			want: single{"h:6379", "a", "b", 3, time.Second, 7, "-", true}, prefix: "o:"},
		// ... and the URL wins.
		{spec: "redis://x:y@h/1?pool_size=2&dial_timeout=2&prefix=u:", o: Options{Username: "a", Password: "b", DB: 3, DialTimeout: time.Second, PoolSize: 7, Prefix: "o:"},
			want: single{"h:6379", "x", "y", 1, 2 * time.Second, 2, "-", true}, prefix: "u:"},
		{spec: "redis://h:1", o: Options{Mode: Standalone}, want: single{"h:1", "", "", 0, 0, 0, "-", false}},
		// A URL that names only a user takes the options' password for it
		// (dedup's --redis-password-file); one with only a password keeps
		// its user ("").
		{spec: "redis://app@h", o: Options{Username: "a", Password: "b"}, want: single{"h:6379", "app", "b", 0, 0, 0, "-", true}},
		{spec: "redis://:y@h", o: Options{Username: "a", Password: "b"}, want: single{"h:6379", "", "y", 0, 0, 0, "-", true}},
	} {
		tg, o, err := target(c.spec, c.o)
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		if tg.single == nil || tg.cluster != nil {
			t.Errorf("%s: not a single-server target", c.spec)
			continue
		}
		if got := sOf(tg); got != c.want {
			t.Errorf("%s:\n got %+v\nwant %+v", c.spec, got, c.want)
		}
		if o.Prefix != c.prefix {
			t.Errorf("%s: prefix %q, want %q", c.spec, o.Prefix, c.prefix)
		}
	}

	for _, c := range []struct {
		spec     string
		o        Options
		addrs    string
		user, pw string
		tls      string
	}{
		{spec: "redis://u:pw@h1:7000,h2:7001,[::1]:7002", addrs: "[h1:7000 h2:7001 [::1]:7002]", user: "u", pw: "pw", tls: "-"},
		{spec: "redis://h1:7000,h2/0", addrs: "[h1:7000 h2:6379]", tls: "-"},
		{spec: "redis+cluster://h1:7000", addrs: "[h1:7000]", tls: "-"},
		{spec: "rediss+cluster://:pw@h1:1,h2:2", addrs: "[h1:1 h2:2]", pw: "pw", tls: "h1"},
		{spec: "redis://h", o: Options{Mode: Cluster, Password: "b"}, addrs: "[h:6379]", pw: "b", tls: "-"},
		{spec: "redis+cluster://app@h1:1,h2:2", o: Options{Username: "a", Password: "b"}, addrs: "[h1:1 h2:2]", user: "app", pw: "b", tls: "-"},
		{spec: "redis+cluster://u:pw@h1:1", o: Options{Username: "a", Password: "b"}, addrs: "[h1:1]", user: "u", pw: "pw", tls: "-"},
	} {
		tg, _, err := target(c.spec, c.o)
		if err != nil {
			t.Errorf("%s: %v", c.spec, err)
			continue
		}
		co := tg.cluster
		if co == nil || tg.single != nil {
			t.Errorf("%s: not a cluster target", c.spec)
			continue
		}
		tls := "-"
		if co.TLSConfig != nil {
			tls = co.TLSConfig.ServerName
		}
		if got := fmt.Sprint(co.Addrs); got != c.addrs || co.Username != c.user || co.Password != c.pw || tls != c.tls {
			t.Errorf("%s: addrs %s user %q password %q tls %q; want %s %q %q %q", c.spec, got, co.Username, co.Password, tls, c.addrs, c.user, c.pw, c.tls)
		}
	}
	if tg, _, err := target("redis+cluster://h?read_only=true&route_randomly=1", Options{}); err != nil || !tg.cluster.ReadOnly || !tg.cluster.RouteRandomly {
		t.Errorf("cluster query options: %v", err)
	}

	for _, c := range []struct {
		spec string
		o    Options
		want string
	}{
		{spec: "redis://h1:7000,", want: "host 2 of 2 in the list \"h1:7000,\" is empty"},
		{spec: "redis://h1:7000,,h3:1", want: "host 2 of 3"},
		{spec: "redis://,h1", want: "host 1 of 2"},
		{spec: "http://h", want: `scheme "http"`},
		{spec: "h:6379", want: "not a URL"},
		{spec: "redis://h1:1,h2:1/3", want: "only DB 0"},
		{spec: "redis+cluster://h/2", want: "only DB 0"},
		{spec: "redis://h1:1,h2:1", o: Options{DB: 2}, want: "only DB 0"},
		{spec: "redis://h1:1,h2:1", o: Options{Mode: Standalone}, want: "Standalone"},
		{spec: "redis://h?bogus=1", want: "unexpected option: bogus"},
		{spec: "redis+cluster://h?db=1", want: "unexpected option: db"},
		{spec: "redis://h:70x0", want: "invalid port"},
		{spec: "redis://h1:1,h2:x", want: `host "h2:x"`},
		{spec: "redis://h#f", want: "fragment"},
		{spec: "redis://h?a=%zz", want: "query"},
		{spec: "redis://h", o: Options{TLSConfig: &tls.Config{}}, want: "not rediss"},
		{spec: "redis+cluster://h1:1?addr=u:pw@h2:2", want: "addr option 1 of 1 names a user or password"},
		{spec: "redis://u:p%zz@h", want: "the password is not valid percent-encoding"},
		{spec: "redis://h?password=p%zz", want: "the value of password is not valid percent-encoding"},
	} {
		_, _, err := target(c.spec, c.o)
		if err == nil {
			t.Errorf("%s: no error", c.spec)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "seen: redis.OpenURL ") {
			t.Errorf("%s: err = %q, want it to contain %q", c.spec, err, c.want)
		}
	}
}
