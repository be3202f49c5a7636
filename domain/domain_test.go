package domain

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/publicsuffix"
)

func TestSplit(t *testing.T) {
	for _, c := range []struct {
		host             string
		rules            Rules
		sub, rdn, suffix string
		ok               bool
	}{
		{"www.example.co.uk", ICANN, "www", "example.co.uk", "co.uk", true},
		{"a.b.example.com", ICANN, "a.b", "example.com", "com", true},
		{"example.com", ICANN, "", "example.com", "com", true},
		{"WWW.Example.COM", ICANN, "WWW", "Example.COM", "COM", true},
		{"example.com.", ICANN, "", "example.com", "com", true},
		{"user.github.io", ICANN, "user", "github.io", "io", true},
		{"user.github.io", Private, "", "user.github.io", "github.io", true},
		{"a.user.github.io", Private, "a", "user.github.io", "github.io", true},
		{"foo.bucket.s3.amazonaws.com", ICANN, "foo.bucket.s3", "amazonaws.com", "com", true},
		{"github.io", Private, "", "", "github.io", false},
		{"co.uk", ICANN, "", "", "co.uk", false},
		{"com", ICANN, "", "", "", false},
		{"foo.bar.cromulent", ICANN, "foo", "bar.cromulent", "cromulent", true}, // the default rule "*"
		{"a.b.ck", ICANN, "", "a.b.ck", "b.ck", true},                           // *.ck
		{"www.ck", ICANN, "", "www.ck", "ck", true},                             // !www.ck
		{"localhost", ICANN, "", "", "", false},
		{"127.0.0.1", ICANN, "", "", "", false},
		{"[::1]", ICANN, "", "", "", false},
		{"[v1.x]", ICANN, "", "", "", false},
		{"a..example.com", ICANN, "", "", "", false},
		{".example.com", ICANN, "", "", "", false},
		{"ex%41mple.com", ICANN, "", "", "", false},
		{"", ICANN, "", "", "", false},
		{".", ICANN, "", "", "", false},
		{"www.example.co.uk..", ICANN, "", "", "", false},
		{strings.Repeat("a.", 127) + "com", ICANN, "", "", "", false}, // 257 bytes
		{"1.2.3.example", ICANN, "1.2", "3.example", "example", true},
	} {
		name := fmt.Sprintf("%s/%d", c.host, c.rules)
		p, ok := Split(c.host, c.rules)
		want := Parts{c.sub, c.rdn, c.suffix}
		if p != want || ok != c.ok {
			t.Errorf("%s: Split = %+v, %v; want %+v, %v", name, p, ok, want, c.ok)
		}
		cache := NewCache(c.rules)
		for range 2 { // a miss, then a hit
			if p, ok := cache.Split(c.host); p != want || ok != c.ok {
				t.Errorf("%s: Cache.Split = %+v, %v; want %+v, %v", name, p, ok, want, c.ok)
			}
		}
	}
}

// hosts reads the hosts of the repository's sample URL list.
func hosts(t testing.TB) []string {
	f, err := os.Open("../testdata/sample.txt")
	if err != nil {
		t.Fatalf("the sample URL list: %v", err)
	}
	defer f.Close()
	var hs []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		i := strings.Index(l, "://")
		if i < 0 {
			continue
		}
		h := l[i+3:]
		if j := strings.IndexAny(h, "/?#"); j >= 0 {
			h = h[:j]
		}
		if j := strings.LastIndexByte(h, '@'); j >= 0 {
			h = h[j+1:]
		}
		if j := strings.LastIndexByte(h, ':'); j >= 0 && !strings.HasSuffix(h, "]") {
			h = h[:j]
		}
		hs = append(hs, h)
	}
	if len(hs) < 100 {
		t.Fatalf("only %d hosts in the sample", len(hs))
	}
	return hs
}

// TestSplitAgreesWithEffectiveTLDPlusOne checks Split with private rules
// against x/net's own eTLD+1 on every host of the sample.
func TestSplitAgreesWithEffectiveTLDPlusOne(t *testing.T) {
	for _, h := range hosts(t) {
		lower := strings.ToLower(h)
		want, err := publicsuffix.EffectiveTLDPlusOne(lower)
		p, ok := Split(h, Private)
		if n := strings.TrimSuffix(h, "."); n == "" || !isName(n) {
			if ok {
				t.Errorf("%q is not a domain name, Split = %+v", h, p)
			}
			continue
		}
		if (err == nil) != ok || ok && strings.ToLower(p.Registrable) != want {
			t.Errorf("%q: Split = %+v, %v; EffectiveTLDPlusOne = %q, %v", h, p, ok, want, err)
		}
	}
}

// TestCacheEvicts fills a Cache past its size and checks every answer
// against Split, then that a host seen costs no allocation.
func TestCacheEvicts(t *testing.T) {
	c := NewCache(ICANN)
	for i := range 3 * cacheSize {
		h := fmt.Sprintf("h%d.example%d.co.uk", i, i%7)
		if i%5 == 0 {
			h = fmt.Sprintf("h%d", i) // a single label: none
		}
		p, ok := c.Split(h)
		wp, wok := Split(h, ICANN)
		if p != wp || ok != wok {
			t.Fatalf("%q: Cache.Split = %+v, %v; Split = %+v, %v", h, p, ok, wp, wok)
		}
	}
	h := "www.example.org"
	c.Split(h)
	if n := testing.AllocsPerRun(100, func() { c.Split(h) }); n != 0 {
		t.Errorf("Cache.Split of a host seen: %v allocations, want 0", n)
	}
}

func BenchmarkSplit(b *testing.B) {
	hs := hosts(b)
	b.Run("impl=split", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			Split(hs[i%len(hs)], ICANN)
		}
	})
	b.Run("impl=cache", func(b *testing.B) {
		c := NewCache(ICANN)
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			c.Split(hs[i%len(hs)])
		}
	})
	b.Run("impl=x-net-etld1", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			publicsuffix.EffectiveTLDPlusOne(hs[i%len(hs)])
		}
	})
}
