package normalize

import (
	"testing"

	"github.com/uriscan/uriscan"
)

func TestRepair(t *testing.T) {
	cases := []struct {
		in, want string
		r        Repairs
	}{
		{"http://h/a b", "http://h/a%20b", Repairs{Encoded: 1}},
		{"  http://h/x\t\n ", "http://h/x", Repairs{Trimmed: 5}},
		{"http://h\\a\\b?x\\y", "http://h/a/b?x%5Cy", Repairs{Backslashes: 2, Encoded: 1}},
		{"http:\\\\h\\a", "http://h/a", Repairs{Backslashes: 3}},
		{"https://h/caf\xc3\xa9", "https://h/caf%C3%A9", Repairs{Encoded: 2}},
		{"http://h/{x}|^`\"<>", "http://h/%7Bx%7D%7C%5E%60%22%3C%3E", Repairs{Encoded: 8}},
		{"http://h/100%", "http://h/100%25", Repairs{Encoded: 1}},
		{"http://h/%4g", "http://h/%254g", Repairs{Encoded: 1}},
		{"http://h/a[1]?b[]=2", "http://h/a%5B1%5D?b%5B%5D=2", Repairs{Encoded: 4}},
		{"http://[::1]/x", "http://[::1]/x", Repairs{}},
		{"http://h/#a#b", "http://h/#a%23b", Repairs{Encoded: 1}},
		{"foo:a\\b", "foo:a%5Cb", Repairs{Encoded: 1}},
		{"http://h/ok", "http://h/ok", Repairs{}},
		{"http://b\xc3\xbccher.example/x y", "http://xn--bcher-kva.example/x%20y", Repairs{IDNA: 1, Encoded: 1}},
		{"http://u:p@B\xc3\x9cCHER.example:8080/", "http://u:p@xn--bcher-kva.example:8080/", Repairs{IDNA: 1}},
		{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/", Repairs{IDNA: 1}},
		{"https://\xe2\x98\x83.net", "https://xn--n3h.net", Repairs{IDNA: 1}},
		{"http://h\xff/", "http://h%FF/", Repairs{Encoded: 1}},                            // not UTF-8
		{"http://a\xe2\x80\xaeb/", "http://a%E2%80%AEb/", Repairs{Encoded: 3}},            // U+202E: UTS #46 rejects it
		{"http://[::1]:80/caf\xc3\xa9", "http://[::1]:80/caf%C3%A9", Repairs{Encoded: 2}}, // IP literal: no IDNA
		// Tabs and newlines go first, wherever they are (found by FuzzRepair:
		// one inside a UTF-8 sequence split it, and the second Repair then
		// found a Unicode host the first had percent-encoded).
		{"http://b\xc3\n\xbccher.example/", "http://xn--bcher-kva.example/", Repairs{Trimmed: 1, IDNA: 1}},
		{"http:/\t/B\xc3\x9cCHER.example/", "http://xn--bcher-kva.example/", Repairs{Trimmed: 1, IDNA: 1}},
		{"\thttp://h/a\r\nb c ", "http://h/ab%20c", Repairs{Trimmed: 4, Encoded: 1}},
	}
	for _, c := range cases {
		got, r := Repair(nil, []byte(c.in))
		if string(got) != c.want || r != c.r {
			t.Errorf("Repair(%q) = %q %+v, want %q %+v", c.in, got, r, c.want, c.r)
		}
		if pre, _ := Repair([]byte("pre"), []byte(c.in)); string(pre) != "pre"+c.want {
			t.Errorf("Repair(%q) after \"pre\" = %q, want %q", c.in, pre, "pre"+c.want)
		}
		if _, err := uriscan.Parse(got); err != nil {
			t.Errorf("Repair(%q) = %q does not parse: %v", c.in, got, err)
		}
		if again, r2 := Repair(nil, got); string(again) != string(got) || r2.Changed() {
			t.Errorf("Repair not idempotent on %q: %q %+v", got, again, r2)
		}
	}
}
