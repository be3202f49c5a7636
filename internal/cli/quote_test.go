package cli

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestAppendQuote: appendQuote is strconv.AppendQuote for every byte
// alone, every pair of a byte and a printable one, and random strings of
// mostly printable ASCII, after a prefix that must stay.
func TestAppendQuote(t *testing.T) {
	check := func(s string) {
		t.Helper()
		want := strconv.AppendQuote([]byte("p:"), s)
		if got := appendQuote([]byte("p:"), s); string(got) != string(want) {
			t.Fatalf("appendQuote(%q) = %s, want %s", s, got, want)
		}
	}
	check("")
	for c := range 256 {
		check(string([]byte{byte(c)}))
		check("a" + string([]byte{byte(c)}) + `\"z`)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		b := make([]byte, r.IntN(80))
		for i := range b {
			b[i] = byte(0x20 + r.IntN(0x5f))
			if r.IntN(200) == 0 {
				b[i] = byte(r.IntN(256))
			}
		}
		check(string(b))
	}
}

func FuzzAppendQuote(f *testing.F) {
	f.Add("http://a/\\x\"\xff\x00é")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := appendQuote(nil, s), strconv.AppendQuote(nil, s); string(got) != string(want) {
			t.Fatalf("appendQuote(%q) = %s, want %s", s, got, want)
		}
	})
}
