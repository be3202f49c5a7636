package urikey

import (
	"bytes"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"

	"github.com/minio/highwayhash"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
)

var testKey = bytes.Repeat([]byte{0x5a}, KeySize)

func TestHashEquivalence(t *testing.T) {
	h, err := NewHasher(testKey, normalize.Scheme)
	if err != nil {
		t.Fatal(err)
	}
	sum := func(s string) [16]byte {
		u, err := uriscan.ParseString(s)
		if err != nil {
			t.Fatal(err)
		}
		return h.Sum(&u)
	}
	same := []string{"http://example.com", "http://example.com/", "http://example.com:/", "http://example.com:80/", "HTTP://EXAMPLE.com/./", "http://example.com/a/.."}
	for _, s := range same[1:] {
		if sum(s) != sum(same[0]) {
			t.Errorf("%q and %q hash differently", s, same[0])
		}
	}
	for _, s := range []string{"http://example.com/?", "https://example.com/", "http://example.com/#", "http://Example.com/A"} {
		if sum(s) == sum(same[0]) {
			t.Errorf("%q hashes like %q", s, same[0])
		}
	}
	// The digest is highwayhash.Sum128 of the canonical form.
	u, _ := uriscan.ParseString("HTTP://A/%7e")
	if got, want := h.Sum(&u), highwayhash.Sum128([]byte("http://a/~"), testKey); got != want {
		t.Errorf("Sum = %x, want Sum128 of the normal form %x", got, want)
	}
}

// TestHashVector pins a digest, so a change to normalization or hashing
// that would break persistent or shared sets is noticed.
func TestHashVector(t *testing.T) {
	h, _ := NewHasher(testKey, normalize.Scheme)
	u, _ := uriscan.ParseString("HTTP://www.Example.COM:80/a/./b/../%7ec?x=%2f#F")
	got := h.Sum(&u)
	want := highwayhash.Sum128([]byte("http://www.example.com/a/~c?x=%2F#F"), testKey)
	if got != want {
		t.Fatalf("digest %x, want %x", got, want)
	}
	// HighwayHash-128, key 32 x 0x5a, of "http://www.example.com/a/~c?x=%2F#F".
	const pinned = "239c8095a621c95dd06af0f81b6addd6"
	if hex.EncodeToString(got[:]) != pinned {
		t.Errorf("digest %x, pinned %s", got, pinned)
	}
}

func TestKeys(t *testing.T) {
	if _, err := NewHasher(make([]byte, 31), normalize.Syntax); err != ErrKeySize {
		t.Errorf("31-byte key: err %v", err)
	}
	a, _ := NewHasher(nil, normalize.Syntax)
	b, _ := NewHasher(nil, normalize.Syntax)
	u, _ := uriscan.ParseString("http://a/")
	if a.Sum(&u) == b.Sum(&u) {
		t.Error("two random keys gave the same digest")
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "key")
	os.WriteFile(name, []byte(hex.EncodeToString(testKey)+"\n"), 0o600)
	k, err := ReadKeyFile(name)
	if err != nil || !bytes.Equal(k, testKey) {
		t.Errorf("ReadKeyFile = %x, %v", k, err)
	}
	os.WriteFile(name, []byte("zz"), 0o600)
	if _, err := ReadKeyFile(name); err == nil {
		t.Error("bad key file accepted")
	}
}

func TestHashZeroAllocs(t *testing.T) {
	h, _ := NewHasher(testKey, normalize.Scheme)
	u, _ := uriscan.ParseString("https://www.example.com/a/b/c.html?x=1")
	h.Sum(&u)
	if a := testing.AllocsPerRun(100, func() { h.Sum(&u) }); a != 0 {
		t.Errorf("%v allocations per Sum", a)
	}
}

// TestSumIsAppendThenHash checks, at every level, that Sum (which hashes
// an already normal URI in place) returns highwayhash.Sum128 of what
// Append writes, and that Canonical is that text, on URIs that are
// already normal and URIs that are not.
func TestSumIsAppendThenHash(t *testing.T) {
	inputs := []string{
		"http://example.com/a", "http://example.com", "HTTP://example.com/a", "http://example.com:80/a",
		"http://example.com/./a", "http://example.com/a?b=%7e", "foo:a/../b", "//h/p", "p?q#f", "",
		"http://www.example.com/index.html?utm_source=x&b=1#frag", "mailto:A@Example.COM",
	}
	for _, level := range []normalize.Level{normalize.Syntax, normalize.Scheme, normalize.Crawler} {
		h, _ := NewHasher(testKey, level)
		var n normalize.Normalizer
		for _, in := range inputs {
			u, err := uriscan.ParseString(in)
			if err != nil {
				t.Fatal(err)
			}
			want := n.Append(nil, &u, level)
			if got := h.Sum(&u); got != highwayhash.Sum128(want, testKey) {
				t.Errorf("level %v, %q: Sum is not Sum128 of %q", level, in, want)
			}
			if got := h.Canonical(); !bytes.Equal(got, want) {
				t.Errorf("level %v, %q: Canonical %q, want %q", level, in, got, want)
			}
		}
	}
}

// TestKeyFingerprint: the fingerprint is fixed for a key, differs between
// keys and does not contain the key.
func TestKeyFingerprint(t *testing.T) {
	k1, k2 := make([]byte, KeySize), make([]byte, KeySize)
	k2[31] = 1
	h1, _ := NewHasher(k1, normalize.Scheme)
	h1b, _ := NewHasher(k1, normalize.Crawler)
	h2, _ := NewHasher(k2, normalize.Scheme)
	f1, f2 := h1.KeyFingerprint(), h2.KeyFingerprint()
	if f1 != h1b.KeyFingerprint() || f1 == f2 || len(f1) != 16 {
		t.Fatalf("fingerprints %s %s %s", f1, h1b.KeyFingerprint(), f2)
	}
	want := highwayhash.Sum128([]byte("uriscan key fingerprint v1"), k1)
	if f1 != hex.EncodeToString(want[:8]) {
		t.Fatalf("fingerprint %s, want %x", f1, want[:8])
	}
}
