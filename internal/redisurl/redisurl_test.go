package redisurl

import (
	"slices"
	"testing"
)

// TestRedact: every secret is redacted in its position (the userinfo's
// password, an addr option's, a password option's value), and wherever
// else its text occurs; user names, hosts, ports and other options are
// left as written.
func TestRedact(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"redis://u:s3cr3t@h:1/0", "redis://u:***@h:1/0"},
		{"redis://:pw@h", "redis://:***@h"},
		{"redis://u@h", "redis://u@h"},
		{"rediss+cluster://u:p%40ss@h1:1,h2:2?dial_timeout=1", "rediss+cluster://u:***@h1:1,h2:2?dial_timeout=1"},
		{"redis://u:pa/ss@h/1", "redis://u:***@h/1"}, // an unescaped '/'
		{"redis://u:pa?ss@h/1", "redis://u:***@h/1"}, // an unescaped '?'
		{"redis://u:pa#ss@h", "redis://u:***@h"},     // an unescaped '#'
		{"redis://u:pa@ss@h", "redis://u:***@h"},     // an unescaped '@'
		{"redis://u:pa?x=ss@h", "redis://u:***@h"},   // a '?' and a '=' in it
		{"redis://h?password=x&a=b&sentinel_password=y", "redis://h?password=***&a=b&sentinel_password=***"},
		{"redis://h?PassWord=xyzw&my%20pass=zyxw", "redis://h?PassWord=***&my%20pass=***"},
		{"redis://h?password=abcd&efgh&c=d", "redis://h?password=***&***&c=d"}, // an unescaped '&'
		// Every occurrence of a secret goes, however short: a short
		// password costs readable messages.
		{"redis://h?password=a", "redis://h?p***ssword=***"},
		{"u:pw@h:1", "u:***@h:1"},
		{"redis://h:6379/0?prefix=a:", "redis://h:6379/0?prefix=a:"},
		{"redis://h1:7000,h2:7001", "redis://h1:7000,h2:7001"},
		{"redis://h:70x0", "redis://h:70x0"}, // a typo, no password
		{"redis://h:1?client_name=a@b", "redis://h:1?client_name=a@b"},
		{"redis://u:pw@h:1?client_name=a@b", "redis://u:***@h:1?client_name=a@b"},
		// A cluster's addr options, with a userinfo each.
		{"redis+cluster://h1:7000?addr=h2:7001", "redis+cluster://h1:7000?addr=h2:7001"},
		{"redis+cluster://h1:7000?addr=u:pw1@h2:7001&addr=:pw2@h3:7002&addr=v@h4:1",
			"redis+cluster://h1:7000?addr=u:***@h2:7001&addr=:***@h3:7002&addr=v@h4:1"},
		{"redis+cluster://u:pw0@h1:7000?addr=u:pw1@h2:7001", "redis+cluster://u:***@h1:7000?addr=u:***@h2:7001"},
		{"redis+cluster://h1?addr=u%3Apw1%40h2%3A1", "redis+cluster://h1?addr=u%3A***%40h2%3A1"}, // encoded
		// The password is part of the host name, the user name too.
		{"redis://u:prod@prod-redis:6379", "redis://u:***@***-redis:6379"},
		{"redis://pw:pw@h", "redis://***:***@h"},
		// Encoded: the decoded form is redacted too, wherever it is.
		{"redis://u:a%2Fb@h/a/b", "redis://u:***@h/***"},
		{"", ""},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestSecrets: what Secrets finds, in each of its forms.
func TestSecrets(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string // among the secrets
		not  []string // not among them
	}{
		{"redis://u:p%40ss@h:1", []string{"p%40ss", "p@ss", "p%2540ss"}, []string{"u", "h", "1"}},
		{"redis://u:a+b@h", []string{"a+b", "a b", "a%2Bb"}, nil},
		{"redis://u:pa/ss@h/1", []string{"pa/ss", "pa", "pa%2Fss"}, []string{"1", "h"}},
		{"redis://h:1?client_name=a@b", nil, []string{"1", "h", "a", "b"}}, // an '@' of a value
		{"redis://u:pw@h:1?client_name=a@b", []string{"pw"}, []string{"1", "h", "a", "b", "u"}},
		{"redis://u:pa?x=ss@h", []string{"pa?x=ss", "pa", "ss"}, []string{"u", "h"}}, // a '?' and a '=' in the password
		{"redis://h:70x0", nil, []string{"70x0"}},
		{"redis://h?password=a%26b", []string{"a%26b", "a&b"}, nil},
		{"redis://h?password=a&b", []string{"a", "b", "a&b"}, nil},
		{"redis+cluster://h1?addr=u:pw@h2:1", []string{"pw"}, []string{"u", "h2:1", "h1"}},
		{"redis+cluster://h1?addr=u%3Apw%40h2", []string{"pw"}, []string{"u"}},
		{`redis://u:a"b@h`, []string{`a"b`, `a\"b`}, nil}, // as %q writes it
		{"redis://u@h", nil, []string{"u"}},
	} {
		got := Secrets(c.in)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("Secrets(%q) = %q: no %q", c.in, got, w)
			}
		}
		for _, n := range c.not {
			if slices.Contains(got, n) {
				t.Errorf("Secrets(%q) = %q: %q is no secret", c.in, got, n)
			}
		}
		if c.want == nil && len(got) > 0 {
			t.Errorf("Secrets(%q) = %q, want none", c.in, got)
		}
	}
	if got := Secrets("redis://h:1/0?prefix=p:&dial_timeout=1s"); got != nil {
		t.Errorf("Secrets of a URL without any: %q", got)
	}
	if got := Forms(""); got != nil {
		t.Errorf(`Forms("") = %q`, got)
	}
}

func TestScrub(t *testing.T) {
	if got := Scrub("a pw and a pwd, ***", []string{"pw", "pwd", "", "***"}); got != "a *** and a ***, ***" {
		t.Errorf("Scrub = %q", got)
	}
}
