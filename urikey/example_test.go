package urikey_test

import (
	"bytes"
	"fmt"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

// A Hasher keys a URI by the keyed HighwayHash-128 of its normal form:
// equivalent URIs, one key. A key that lives only in this process may be
// drawn at random; a key kept across runs is read from a file.
func ExampleHasher() {
	key := bytes.Repeat([]byte{7}, urikey.KeySize) // urikey.ReadKeyFile in practice
	h, _ := urikey.NewHasher(key, normalize.Crawler)
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
