package normalize_test

import (
	"bytes"
	"fmt"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
)

// A Normalizer appends normal forms to a caller's buffer: RFC 3986 §6.2.2
// (Syntax), with §6.2.3 (Scheme), with a crawler's heuristics (Crawler),
// or as Google Safe Browsing and Python's w3lib canonicalize.
func ExampleNormalizer() {
	var n normalize.Normalizer
	u, _ := uriscan.ParseString("HTTP://www.Example.COM:80/a/./b/../%7Ec?utm_source=x&b=2&a=1#frag")
	var buf []byte
	for _, level := range []normalize.Level{normalize.Syntax, normalize.Scheme, normalize.Crawler} {
		buf = n.Append(buf[:0], &u, level)
		fmt.Printf("%-7v %s\n", level, buf)
	}
	// Output:
	// syntax  http://www.example.com:80/a/~c?utm_source=x&b=2&a=1#frag
	// scheme  http://www.example.com/a/~c?utm_source=x&b=2&a=1#frag
	// crawler http://example.com/a/~c?a=1&b=2
}

// A Hasher keys a URI by the keyed HighwayHash-128 of its normal form:
// equivalent URIs, one key. A key that lives only in this process may be
// drawn at random; a key kept across runs is read from a file.
func ExampleHasher() {
	key := bytes.Repeat([]byte{7}, normalize.KeySize) // normalize.ReadKeyFile in practice
	h, _ := normalize.NewHasher(key, normalize.Crawler)
	h.Config().Heuristics = normalize.StripWWW | normalize.SortQuery
	a, _ := uriscan.ParseString("http://www.example.com/p?b=2&a=1")
	b, _ := uriscan.ParseString("HTTP://example.com:80/p?a=1&b=2")
	c, _ := uriscan.ParseString("http://u:secret@example.com/p?a=1&b=2")
	ka, kb := h.Sum(&a), h.Sum(&b)
	kc := h.Sum(&c)
	fmt.Println(ka == kb, string(h.Canonical()))
	fmt.Println(ka == kc)
	// What a persistent seen-set records of how its keys are made.
	p, _ := h.Params()
	fmt.Println(p["level"], p["heuristics"], p["passwords"])
	// Output:
	// true http://u:***@example.com/p?a=1&b=2
	// false
	// crawler sort-query,strip-www redacted
}
