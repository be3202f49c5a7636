package urikey

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strings"
	"unsafe"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/highway"
	"github.com/uriscan/uriscan/internal/pathstats"
	"github.com/uriscan/uriscan/normalize"
)

// KeySize is the size of a Hasher key: HighwayHash takes 32 bytes.
const KeySize = 32

// ErrKeySize is returned for a key that is not KeySize bytes.
var ErrKeySize = errors.New("urikey: hash key must be 32 bytes")

// A Hasher turns a URI into the keyed 128-bit HighwayHash of its normal
// form: equal digests mean equivalent URIs (up to a 2^-128 chance). The
// key keeps an adversary who does not know it from choosing URIs whose
// digests collide (hash flooding a seen-set). Use a random key (NewHasher
// with nil) for a set that lives in one process, a fixed one (from a key
// file) for sets shared across runs or machines.
//
// The digest is exactly highwayhash.Sum128(normal form, key) from
// github.com/minio/highwayhash, so sets built by other programs agree; it
// is computed by internal/highway, which expands the key once and, with
// AVX2, hashes a URI in one assembly call (about 2x faster than Sum128 on
// URI-sized inputs).
//
// # Passwords
//
// A URI with a password is keyed with its password redacted ("***",
// uriscan.Redacted), as uriscan shows it: two URIs that differ only in
// their password are one, a key made again from a shown (redacted) URI
// is the same, and a seen-set holds no key of a secret. KeepPasswords
// keys the password as it is. The command uriscan dedup keys the same way
// (--show-passwords is KeepPasswords), and Params records the choice.
//
// A Hasher is not safe for concurrent use; make one per goroutine.
type Hasher struct {
	key   [KeySize]byte
	hk    *highway.Key
	level normalize.Level
	n     normalize.Normalizer
	buf   []byte
	red   []byte // the normal form with its password redacted
	canon []byte // the last Sum's normal form: buf, red, or the URI's text

	random        bool // the key was drawn at random: Params refuses
	keepPasswords bool
	grammar       uriscan.Grammar
}

// NewHasher returns a Hasher for level with the given 32-byte key, or a
// random key from crypto/rand when key is nil.
func NewHasher(key []byte, level normalize.Level) (*Hasher, error) {
	h := &Hasher{level: level}
	switch {
	case key == nil:
		h.random = true
		if _, err := rand.Read(h.key[:]); err != nil {
			return nil, err
		}
	case len(key) != KeySize:
		return nil, ErrKeySize
	default:
		copy(h.key[:], key)
	}
	h.hk = highway.NewKey(&h.key)
	return h, nil
}

// Clone returns a Hasher with h's key, level and options, for another
// goroutine: the digests of both agree.
func (h *Hasher) Clone() *Hasher {
	return &Hasher{key: h.key, hk: h.hk, level: h.level, n: normalize.Normalizer{Heuristics: h.n.Heuristics, StripParams: h.n.StripParams, KeepEncodedDots: h.n.KeepEncodedDots, KeepRootlessDots: h.n.KeepRootlessDots, IPv6RFC5952: h.n.IPv6RFC5952, W3lib: h.n.W3lib},
		random: h.random, keepPasswords: h.keepPasswords, grammar: h.grammar}
}

// Config returns the Normalizer whose normal forms h hashes, to set its
// options (Heuristics, StripParams, KeepEncodedDots, KeepRootlessDots,
// IPv6RFC5952) before
// the first Sum; Clone copies them. Its Append may be called too, from
// h's goroutine.
func (h *Hasher) Config() *normalize.Normalizer { return &h.n }

// KeepPasswords sets whether h keys a URI's password as it is (true) or
// redacted (false, the default); see "Passwords" on Hasher. Set it before
// the first Sum; Clone copies it.
func (h *Hasher) KeepPasswords(keep bool) { h.keepPasswords = keep }

// SetGrammar says by which grammar the URIs h hashes were parsed
// (uriscan.RFC3986 by default); Params records it, so that a set keyed
// under RFC 2396 is not mixed with one keyed under RFC 3986. Sum
// normalizes each URI by the grammar it was parsed with whatever this
// says; SumRaw parses by it.
func (h *Hasher) SetGrammar(g uriscan.Grammar) { h.grammar = g }

// Sum returns the digest of u's normal form (its password redacted unless
// KeepPasswords). It does not allocate once its buffers have grown to the
// longest URI seen.
func (h *Hasher) Sum(u *uriscan.URI) [16]byte {
	// Most URIs are already normal: hash them where they are.
	c := h.n.Check(u, h.level)
	if c.Normal() {
		pathstats.Add(pathstats.NormInPlace, 1)
		raw := u.String()
		h.canon = unsafe.Slice(unsafe.StringData(raw), len(raw))
		return h.sum(u)
	}
	h.buf = h.n.AppendChecked(h.buf[:0], u, h.level, c)
	pathstats.Add(pathstats.NormCopied, 1)
	h.canon = h.buf
	return h.sum(u)
}

// sum hashes h.canon, the normal form of u, its password redacted first
// unless KeepPasswords.
func (h *Hasher) sum(u *uriscan.URI) [16]byte {
	if !h.keepPasswords {
		if _, _, ok := u.PasswordSpan(); ok {
			h.red = uriscan.AppendRedacted(h.red[:0], h.canon)
			h.canon = h.red
		}
	}
	return h.hk.Sum128(h.canon)
}

// SumRaw returns the digest of text's normal form at h's level, for text
// that may not be a URI-reference: at a Raw level (SafeBrowsing, W3lib)
// text is read as the level's owner reads any line, and an error is what
// it refuses; at the other levels text is parsed by h's grammar
// (SetGrammar), and an error is its parse error. The password is redacted
// unless KeepPasswords, as by Sum.
func (h *Hasher) SumRaw(text []byte) ([16]byte, error) {
	if !h.level.Raw() {
		u, err := h.grammar.Parse(text)
		if err != nil {
			return [16]byte{}, err
		}
		return h.Sum(&u), nil
	}
	c, err := h.n.AppendRaw(h.buf[:0], text, h.level)
	if err != nil {
		return [16]byte{}, err
	}
	h.buf = c
	h.canon = c
	if !h.keepPasswords && uriscan.HasPassword(c) {
		h.red = uriscan.AppendRedacted(h.red[:0], c)
		h.canon = h.red
	}
	return h.hk.Sum128(h.canon), nil
}

// Canonical returns the normal form the last Sum or SumRaw hashed (its
// password redacted unless KeepPasswords); it is valid until the next
// call and must not be modified (when u was already normal it is u's own
// text).
func (h *Hasher) Canonical() []byte { return h.canon }

// HashPath reports how Hasher computes HighwayHash-128: "avx2" (one
// assembly call per digest, amd64 with AVX2; GODEBUG=cpu.avx2=off turns it
// off) or "go" (github.com/minio/highwayhash.Sum128). The digests are the
// same.
func HashPath() string { return highway.Path() }

// SumBytes returns the digest of an already normalized URI.
func (h *Hasher) SumBytes(canonical []byte) [16]byte {
	return h.hk.Sum128(canonical)
}

// KeyFingerprint returns 16 hex digits that tell keys apart without
// revealing them: the first 8 bytes of the HighwayHash-128, under the key,
// of a fixed string. A persistent seen-set records it so that a run with
// another key is refused (its digests would match nothing in the set).
func (h *Hasher) KeyFingerprint() string {
	sum := h.hk.Sum128([]byte("uriscan key fingerprint v1"))
	return hex.EncodeToString(sum[:8])
}

// Level returns the level the Hasher normalizes at.
func (h *Hasher) Level() normalize.Level { return h.level }

// ReadKeyFile reads a hash key from a file holding 64 hex digits (32
// bytes), surrounding white space allowed.
func ReadKeyFile(name string) ([]byte, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, errors.New("urikey: key file " + name + ": want 64 hex digits")
	}
	if len(key) != KeySize {
		return nil, ErrKeySize
	}
	return key, nil
}
