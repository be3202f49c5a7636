// Command memonly dedups the URIs on its standard input with a set in
// memory: the program TestDependencyRule builds to check what such a
// program links (neither Pebble nor go-redis).
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/urikey"
)

func main() {
	h, err := urikey.NewHasher(nil, normalize.Crawler)
	if err != nil {
		panic(err)
	}
	set := seen.NewMemory(1 << 10)
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		u, err := uriscan.Parse(sc.Bytes())
		if err != nil {
			continue
		}
		if isNew, _ := set.Add(seen.Key(h.Sum(&u))); isNew {
			fmt.Println(sc.Text())
		}
	}
}
