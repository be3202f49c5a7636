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
	}
	for _, c := range cases {
		got, r := Repair(nil, []byte(c.in))
		if string(got) != c.want || r != c.r {
			t.Errorf("Repair(%q) = %q %+v, want %q %+v", c.in, got, r, c.want, c.r)
		}
		if _, err := uriscan.Parse(got); err != nil {
			t.Errorf("Repair(%q) = %q does not parse: %v", c.in, got, err)
		}
		if again, r2 := Repair(nil, got); string(again) != string(got) || r2.Changed() {
			t.Errorf("Repair not idempotent on %q: %q %+v", got, again, r2)
		}
	}
}
