package urikey

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/minio/highwayhash"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
)

// TestHasherParams: what a persistent set records of a hasher names each
// setting that changes its keys, and nothing else; a random key is
// refused.
func TestHasherParams(t *testing.T) {
	fp := func() string { h, _ := NewHasher(testKey, normalize.Scheme); return h.KeyFingerprint() }()
	for _, c := range []struct {
		name  string
		level normalize.Level
		set   func(h *Hasher)
		want  seen.Params
	}{
		{"scheme", normalize.Scheme, nil, seen.Params{"level": "scheme", "dot-segments": "rfc3986", "rootless-dots": "rfc3986", "passwords": "redacted"}},
		{"syntax, encoded dots, RFC 5952", normalize.Syntax, func(h *Hasher) { h.Config().KeepEncodedDots = true; h.Config().IPv6RFC5952 = true },
			seen.Params{"level": "syntax", "rootless-dots": "rfc3986", "ipv6": "rfc5952", "passwords": "redacted"}},
		{"scheme, rootless dots kept", normalize.Scheme, func(h *Hasher) { h.Config().KeepRootlessDots = true },
			seen.Params{"level": "scheme", "dot-segments": "rfc3986", "passwords": "redacted"}},
		{"crawler", normalize.Crawler, nil, seen.Params{"level": "crawler", "dot-segments": "rfc3986", "rootless-dots": "rfc3986", "idna": "uts46", "passwords": "redacted"}},
		{"crawler, two heuristics", normalize.Crawler, func(h *Hasher) { h.Config().Heuristics = normalize.StripWWW | normalize.SortQuery },
			seen.Params{"level": "crawler", "dot-segments": "rfc3986", "rootless-dots": "rfc3986", "heuristics": "sort-query,strip-www", "passwords": "redacted"}},
		{"crawler, IDNA and params", normalize.Crawler, func(h *Hasher) {
			h.Config().Heuristics = normalize.IDNA | normalize.StripParams
			h.Config().StripParams = []string{"sid", "utm_*"}
		}, seen.Params{"level": "crawler", "dot-segments": "rfc3986", "rootless-dots": "rfc3986", "heuristics": "strip-params,idna", "idna": "uts46", "strip-params": "sid,utm_*", "passwords": "redacted"}},
		{"RFC 2396, passwords kept", normalize.Scheme, func(h *Hasher) { h.SetGrammar(uriscan.RFC2396); h.KeepPasswords(true) },
			seen.Params{"level": "scheme", "dot-segments": "rfc3986", "rootless-dots": "rfc3986", "grammar": "rfc2396"}},
		{"safebrowsing", normalize.SafeBrowsing, func(h *Hasher) { h.Config().KeepEncodedDots = true }, seen.Params{"level": "safebrowsing", "passwords": "redacted"}},
		{"w3lib, options", normalize.W3lib, func(h *Hasher) { h.Config().W3lib.KeepFragments = true },
			seen.Params{"level": "w3lib", "w3lib-keep-fragments": "true", "passwords": "redacted"}},
	} {
		h, _ := NewHasher(testKey, c.level)
		if c.set != nil {
			c.set(h)
		}
		if got := h.Settings(); !maps.Equal(got, c.want) {
			t.Errorf("%s: Settings = %v, want %v", c.name, got, c.want)
		}
		p, err := h.Params()
		want := maps.Clone(c.want)
		want["key-fingerprint"] = fp
		if err != nil || !maps.Equal(p, want) {
			t.Errorf("%s: Params = %v, %v, want %v", c.name, p, err, want)
		}
		if g, _ := h.Clone().Params(); !maps.Equal(g, want) {
			t.Errorf("%s: the clone's Params = %v", c.name, g)
		}
	}
	h, _ := NewHasher(nil, normalize.Scheme)
	if p, err := h.Params(); !errors.Is(err, ErrRandomKey) || p != nil {
		t.Errorf("Params of a random key = %v, %v, want ErrRandomKey", p, err)
	}
	if _, err := h.Clone().Params(); !errors.Is(err, ErrRandomKey) {
		t.Errorf("Params of a clone of a random key: %v, want ErrRandomKey", err)
	}
}

// TestHasherPasswords: by default a URI is keyed with its password
// redacted, exactly as the redacted text would be keyed, so two URIs that
// differ only in their password are one; KeepPasswords tells them apart.
// SumRaw follows the same rule at every level.
func TestHasherPasswords(t *testing.T) {
	for _, level := range []normalize.Level{normalize.Syntax, normalize.Scheme, normalize.Crawler, normalize.SafeBrowsing, normalize.W3lib} {
		h, _ := NewHasher(testKey, level)
		sum := func(s string) ([16]byte, string) {
			t.Helper()
			var d [16]byte
			var err error
			if level.Raw() {
				d, err = h.SumRaw([]byte(s))
			} else {
				var u uriscan.URI
				if u, err = uriscan.ParseString(s); err == nil {
					d = h.Sum(&u)
				}
			}
			if err != nil {
				t.Fatalf("level %v, %q: %v", level, s, err)
			}
			return d, string(h.Canonical())
		}
		a, ca := sum("http://u:pw1@example.com/p")
		b, _ := sum("http://u:pw2@example.com/p")
		r, _ := sum("http://u:***@example.com/p")
		if a != b || a != r || strings.Contains(ca, "pw1") || a != highwayhash.Sum128([]byte(ca), testKey) {
			t.Errorf("level %v: redacted keys differ, or Canonical %q shows the password or is not what was hashed", level, ca)
		}
		if raw, err := h.SumRaw([]byte("http://u:pw1@example.com/p")); err != nil || raw != a {
			t.Errorf("level %v: SumRaw = %x, %v, want Sum's %x", level, raw, err, a)
		}
		if level == normalize.SafeBrowsing {
			continue // its canonical form has no userinfo at all
		}
		h.KeepPasswords(true)
		a, ca = sum("http://u:pw1@example.com/p")
		b, _ = sum("http://u:pw2@example.com/p")
		if a == b || !strings.Contains(ca, "pw1") {
			t.Errorf("level %v, KeepPasswords: the keys of two passwords agree, or Canonical %q lost it", level, ca)
		}
	}
	h, _ := NewHasher(testKey, normalize.Scheme)
	if _, err := h.SumRaw([]byte("http://bad host/")); err == nil {
		t.Error("SumRaw of an invalid reference at level scheme: no error")
	}
	h.SetGrammar(uriscan.RFC2396)
	if _, err := h.SumRaw([]byte("http://a_b/")); err != nil {
		t.Errorf("SumRaw under RFC 2396 of a reg_name host: %v", err)
	}
}

// TestHasherPasswordAllocs: redacting allocates nothing once the buffer
// has grown.
func TestHasherPasswordAllocs(t *testing.T) {
	h, _ := NewHasher(testKey, normalize.Scheme)
	u, _ := uriscan.ParseString("http://u:pw@example.com/a/b")
	h.Sum(&u)
	if a := testing.AllocsPerRun(100, func() { h.Sum(&u) }); a != 0 {
		t.Errorf("%v allocations per Sum of a URI with a password", a)
	}
}
