package normalize_test

import (
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
