package redis_test

import (
	"fmt"
	"os"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/redis"
	"github.com/uriscan/uriscan/urikey"
)

// A set in Redis, shared by every crawler process that opens it with the
// same prefix and the same hasher settings. (Not run: it needs a server.)
func Example() {
	key, err := urikey.ReadKeyFile("key.hex") // the same key on every machine
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := urikey.NewHasher(key, normalize.Crawler)
	params, _ := h.Params()
	set, err := redis.OpenURL("redis://127.0.0.1:6379/0?prefix=crawl:", &redis.Options{Params: params})
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // no password in it: see redis.RedactURL
		return
	}
	defer set.Close()
	u, _ := uriscan.ParseString("http://example.com/")
	isNew, err := set.Add(seen.Key(h.Sum(&u)))
	fmt.Println(isNew, err)
}
