package classify

import (
	"strings"
	"testing"
)

func TestTableMatchesPredicates(t *testing.T) {
	for c := 0; c < 256; c++ {
		if got, want := Table[c], Compute(byte(c)); got != want {
			t.Errorf("Table[%#02x] = %#x, predicates give %#x (run go generate)", c, got, want)
		}
	}
}

// TestClassSizes checks the predicates against the sets spelled out in
// RFC 3986 §2.2 and §2.3, counted independently of the predicates.
func TestClassSizes(t *testing.T) {
	sets := []struct {
		class Class
		chars string
	}{
		{Unreserved, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~"},
		{GenDelim, ":/?#[]@"},
		{SubDelim, "!$&'()*+,;="},
		{Percent, "%"},
		{HexDig, "0123456789abcdefABCDEF"},
		{Digit, "0123456789"},
		{Upper, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"},
		{SchemeChar, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-."},
		{Structural, ":/?#[]@%"},
		{Newline, "\n"},
	}
	for _, s := range sets {
		for c := 0; c < 256; c++ {
			in := strings.IndexByte(s.chars, byte(c)) >= 0
			if got := Table[c]&s.class != 0; got != in {
				t.Errorf("byte %#02x in class %#x = %v, RFC set %q says %v", c, s.class, got, s.chars, in)
			}
		}
	}
	// Invalid is exactly the complement of the 85 bytes a URI may hold.
	n := 0
	for c := 0; c < 256; c++ {
		valid := Table[c]&(Unreserved|GenDelim|SubDelim|Percent) != 0
		if valid == (Table[c]&Invalid != 0) {
			t.Errorf("byte %#02x: Invalid bit disagrees with the valid classes", c)
		}
		if valid {
			n++
		}
	}
	if n != 66+7+11+1 {
		t.Errorf("%d valid bytes, want 85", n)
	}
	for _, c := range []byte("\"<>\\^{}`| \x7f\x80\xff\x00\t\r\n") {
		if Table[c]&Invalid == 0 {
			t.Errorf("byte %#02x should be invalid", c)
		}
	}
}
