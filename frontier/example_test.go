package frontier_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/urikey"
)

// A crawler's frontier: each URI's first occurrence goes to new.txt
// exactly once, across kills and restarts (rerunning the same code
// resumes from new.txt.checkpoint). With a set that persists (seen/pebble,
// seen/redis) the same loop dedups across runs; its hasher then needs a
// fixed key (urikey.ReadKeyFile) and the set its Params.
func Example() {
	dir, _ := os.MkdirTemp("", "frontier")
	defer os.RemoveAll(dir)
	input := "http://example.com/a\nHTTP://EXAMPLE.COM:80/a\nhttp://example.com/b\nnot a URI\nhttp://example.com/%61\n"

	h, _ := urikey.NewHasher(nil, normalize.Scheme) // a random key: the set lives in this process
	log, err := frontier.Open(seen.NewMemory(0), frontier.Options{
		Output: filepath.Join(dir, "new.txt"),
		Inputs: []string{"links"},
		// How a line of new.txt is keyed again, to refill the memory
		// set when a run resumes.
		KeyOf: func(line []byte) (seen.Key, error) {
			sum, err := h.SumRaw(line)
			return seen.Key(sum), err
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// (A resumed run reads from log.Start(); this one starts at the top.)
	ls := uriscan.NewLineScanner(strings.NewReader(input))
	for ls.Scan() {
		if ls.Valid() {
			log.Add(seen.Key(h.Sum(ls.URI())), ls.Bytes())
		} else {
			log.Count("invalid")
		}
		log.EndLine(ls.Bytes(), frontier.Position{Offset: ls.NextOffset(), Line: ls.Line()})
	}
	log.EndInput(0, ls.Err())
	if err := log.Finish(); err != nil {
		fmt.Println(err)
		return
	}
	out, _ := os.ReadFile(filepath.Join(dir, "new.txt"))
	fmt.Print(string(out))
	t := log.Tally()
	fmt.Printf("%d lines, %d invalid, %d unique, %d duplicates\n", t.Lines, t.Other["invalid"], t.Unique, t.Duplicates())
	// Output:
	// http://example.com/a
	// http://example.com/b
	// 5 lines, 1 invalid, 2 unique, 2 duplicates
}
