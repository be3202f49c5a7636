package uriscan_test

import (
	"fmt"

	"github.com/uriscan/uriscan"
)

func ExampleResolve() {
	base, err := uriscan.ParseString("http://a/b/c/d;p?q")
	if err != nil {
		panic(err)
	}
	dst := make([]byte, 0, 64) // reused: no allocation per call
	for _, r := range []string{"g", "../g", "?y", "#s", "", "../../../g", "//g", "http:g"} {
		ref, err := uriscan.ParseString(r)
		if err != nil {
			panic(err)
		}
		dst, err = uriscan.Resolve(dst[:0], &base, &ref, 0)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-12q -> %s\n", r, dst)
	}
	ref, _ := uriscan.ParseString("http:g")
	dst, _ = uriscan.Resolve(dst[:0], &base, &ref, uriscan.NonStrict)
	fmt.Printf("%-12q -> %s (NonStrict)\n", "http:g", dst)
	// Output:
	// "g"          -> http://a/b/c/g
	// "../g"       -> http://a/b/g
	// "?y"         -> http://a/b/c/d;p?y
	// "#s"         -> http://a/b/c/d;p?q#s
	// ""           -> http://a/b/c/d;p?q
	// "../../../g" -> http://a/g
	// "//g"        -> http://g
	// "http:g"     -> http:g
	// "http:g"     -> http://a/b/c/g (NonStrict)
}

func ExampleResolveString() {
	target, err := uriscan.ResolveString("file:///usr/share/doc/", "../lib/./x?")
	fmt.Println(target, err)
	_, err = uriscan.ResolveString("/no/scheme", "g")
	fmt.Println(err)
	// Output:
	// file:///usr/share/lib/x? <nil>
	// base URI has no scheme
}

func ExampleRemoveDotSegments() {
	fmt.Printf("%s\n", uriscan.RemoveDotSegments(nil, "/a/b/c/./../../g"))
	fmt.Printf("%s\n", uriscan.RemoveDotSegments(nil, "mid/content=5/../6"))
	// Output:
	// /a/g
	// mid/6
}
