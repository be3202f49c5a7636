package keylog_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	"github.com/uriscan/uriscan/urikey"
)

// A set on disk, kept across runs: its keys come from a hasher with a
// fixed key, whose Params the set records on first use and checks on
// every later open. A batch's new keys are synced before AddBatch
// returns, so a key reported new is never reported new again, whatever
// kills the process.
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
		set, err := keylog.Open(filepath.Join(dir, "seen"), &keylog.Options{Params: params})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer set.Close()
		keys := make([]seen.Key, len(uris))
		for i, s := range uris {
			u, _ := uriscan.ParseString(s)
			keys[i] = seen.Key(h.Sum(&u))
		}
		isNew := make([]bool, len(keys))
		if err := set.AddBatch(keys, isNew); err != nil { // one write, one fsync
			fmt.Println(err)
			return
		}
		for i, s := range uris {
			fmt.Println(s, isNew[i])
		}
	}
	run("http://example.com/a", "http://example.com/b", "http://EXAMPLE.com/a")
	run("HTTP://example.com:80/a", "http://example.com/c") // another run
	// Output:
	// http://example.com/a true
	// http://example.com/b true
	// http://EXAMPLE.com/a false
	// HTTP://example.com:80/a false
	// http://example.com/c true
}
