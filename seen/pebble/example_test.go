package pebble_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/pebble"
	"github.com/uriscan/uriscan/urikey"
)

// A set on disk, kept across runs: its keys come from a hasher with a
// fixed key, whose Params the set records on first use and checks on
// every later open, so that a run whose keys would differ is refused
// instead of finding every URI new.
func Example() {
	dir, _ := os.MkdirTemp("", "seen")
	defer os.RemoveAll(dir)
	key := bytes.Repeat([]byte{7}, urikey.KeySize) // urikey.ReadKeyFile in practice
	h, _ := urikey.NewHasher(key, normalize.Scheme)
	params, err := h.Params() // an error for a key drawn at random
	if err != nil {
		fmt.Println(err)
		return
	}
	run := func(uris ...string) {
		set, err := pebble.Open(filepath.Join(dir, "seen"), &pebble.Options{Params: params})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer set.Close()
		for _, s := range uris {
			u, _ := uriscan.ParseString(s)
			isNew, err := set.Add(seen.Key(h.Sum(&u)))
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println(s, isNew)
		}
	}
	run("http://example.com/a", "http://example.com/b")
	run("HTTP://example.com:80/a", "http://example.com/c") // another run
	// Output:
	// http://example.com/a true
	// http://example.com/b true
	// HTTP://example.com:80/a false
	// http://example.com/c true
}
