package seen_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/uriscan/uriscan/seen"
)

func Example() {
	// uriscan derives keys with a keyed HighwayHash-128 of the canonical
	// URI (package urikey); a truncated SHA-256 keeps this short.
	keyOf := func(uri string) seen.Key {
		sum := sha256.Sum256([]byte(uri))
		return seen.Key(sum[:16])
	}

	s := seen.NewMemory(0)
	defer s.Close()
	for _, uri := range []string{"http://a.example/", "http://b.example/", "http://a.example/"} {
		isNew, err := s.Add(keyOf(uri))
		if err != nil {
			panic(err)
		}
		fmt.Println(uri, isNew)
	}

	// The batch form: a key repeated inside a batch is new only once.
	keys := []seen.Key{keyOf("http://c.example/"), keyOf("http://b.example/"), keyOf("http://c.example/")}
	isNew := make([]bool, len(keys))
	if err := s.AddBatch(keys, isNew); err != nil {
		panic(err)
	}
	fmt.Println(isNew, s.Len())
	// Output:
	// http://a.example/ true
	// http://b.example/ true
	// http://a.example/ false
	// [true false false] 3
}
