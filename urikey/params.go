package urikey

import (
	"errors"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
)

// ErrRandomKey is returned by Hasher.Params for a Hasher whose key was
// drawn at random (NewHasher with a nil key): no later run makes the same
// keys, so a set kept across runs would answer every URI new.
var ErrRandomKey = errors.New("urikey: the hash key was drawn at random (NewHasher with a nil key): no other run makes the same keys, so a set kept across runs would find every URI new; use a fixed key (ReadKeyFile)")

// Params returns what makes h's keys, for a persistent seen-set to record
// on its first use and check on every later one (seen.Params; the Params
// option of seen/pebble and seen/redis): the fingerprint of the hash key,
// the level, every option of Config that changes a normal form, the
// grammar (SetGrammar) and how passwords are keyed (KeepPasswords). A run
// whose keys would differ is refused by the set instead of finding every
// URI new. uriscan dedup records exactly these, so a set made by a
// program with the same settings is accepted by the command, and the
// other way round. Params returns ErrRandomKey when h's key was drawn at
// random. Set h's options before calling it.
//
// The entries: "key-fingerprint" (KeyFingerprint), "level" (its name);
// at the levels other than SafeBrowsing and W3lib, "dot-segments":
// "rfc3986" unless KeepEncodedDots, "rootless-dots": "rfc3986" unless
// KeepRootlessDots, "ipv6": "rfc5952" with IPv6RFC5952,
// "heuristics" (Heuristics.String) when Heuristics is not zero, "idna":
// "uts46" when level Crawler writes A-labels, "strip-params" (the names,
// comma-separated) when StripParams is not nil; at level W3lib,
// "w3lib-keep-fragments" and "w3lib-drop-blank-values": "true" when set;
// "grammar" when it is not RFC 3986; "passwords": "redacted" unless
// KeepPasswords.
func (h *Hasher) Params() (seen.Params, error) {
	if h.random {
		return nil, ErrRandomKey
	}
	p := h.Settings()
	p["key-fingerprint"] = h.KeyFingerprint()
	return p, nil
}

// Settings returns Params without the key's fingerprint: what h's keys
// depend on besides the key. It never fails: for a caller that checks
// settings across runs whose keys live only in memory (uriscan dedup's
// checkpoint of a memory set), never for a persistent set.
func (h *Hasher) Settings() seen.Params {
	n := &h.n
	p := seen.Params{"level": h.level.String()}
	switch {
	case h.level == normalize.W3lib:
		if n.W3lib.KeepFragments {
			p["w3lib-keep-fragments"] = "true"
		}
		if n.W3lib.DropBlankValues {
			p["w3lib-drop-blank-values"] = "true"
		}
	case !h.level.Raw():
		if !n.KeepEncodedDots {
			// "%2E" segments are removed as dot segments (an earlier
			// version kept them): a set it made is refused.
			p["dot-segments"] = "rfc3986"
		}
		if !n.KeepRootlessDots {
			// A rootless path of a URI with a scheme loses its dot
			// segments ("foo:a/../b" is "foo:/b"; an earlier version
			// kept them): a set it made is refused.
			p["rootless-dots"] = "rfc3986"
		}
		if n.IPv6RFC5952 {
			p["ipv6"] = "rfc5952"
		}
		if (h.level == normalize.Crawler || h.level == normalize.Shape) && (n.Heuristics == 0 || n.Heuristics&normalize.IDNA != 0) {
			// The crawler level writes IDN hosts as A-labels (an
			// earlier version did not): a crawler-level set it made is
			// refused.
			p["idna"] = "uts46"
		}
		if n.Heuristics != 0 {
			p["heuristics"] = n.Heuristics.String()
		}
		if n.StripParams != nil {
			p["strip-params"] = strings.Join(n.StripParams, ",")
		}
	}
	if h.grammar != uriscan.RFC3986 {
		p["grammar"] = h.grammar.String()
	}
	if !h.keepPasswords {
		p["passwords"] = "redacted"
	}
	return p
}
