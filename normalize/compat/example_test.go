package compat_test

import (
	"fmt"

	"github.com/uriscan/uriscan/normalize/compat"
)

// Each form reads any bytes, as its owner reads a line, and appends to
// the caller's buffer.
func Example() {
	raw := []byte("HTTP://www.Example.com:80/a/./b/../c?z=1&a=2#frag")
	w3lib, _ := compat.AppendW3lib(nil, raw, compat.W3libOptions{})
	surt, _ := compat.AppendSURT(nil, raw, compat.SURTOptions{})
	sb, _ := compat.AppendSafeBrowsing(nil, raw)
	fmt.Printf("w3lib        %s\nsurt         %s\nsafebrowsing %s\n", w3lib, surt, sb)
	_, err := compat.AppendSafeBrowsing(nil, []byte("mailto:a@example.com"))
	fmt.Println(err)
	// Output:
	// w3lib        http://www.example.com:80/a/./b/../c?a=2&z=1
	// surt         com,example)/a/c?a=2&z=1
	// safebrowsing http://www.example.com/a/c?z=1&a=2
	// compat: safe browsing: URL has a scheme but no "//" authority
}
