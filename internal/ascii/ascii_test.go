package ascii

import (
	"strconv"
	"testing"
	"unicode"
)

// TestBytes holds every byte to the standard library: Lower to
// unicode.ToLower on ASCII, IsHex and Unhex to strconv.ParseUint.
func TestBytes(t *testing.T) {
	for i := range 256 {
		c := byte(i)
		want := c
		if c < 0x80 {
			want = byte(unicode.ToLower(rune(c)))
		}
		if got := Lower(c); got != want {
			t.Errorf("Lower(%#x) = %#x, want %#x", c, got, want)
		}
		v, err := strconv.ParseUint(string([]byte{c}), 16, 8)
		if IsHex(c) != (err == nil) {
			t.Errorf("IsHex(%#x) = %v", c, IsHex(c))
		}
		if err == nil && Unhex(c) != byte(v) || err != nil && Unhex(c) != 0 {
			t.Errorf("Unhex(%#x) = %d", c, Unhex(c))
		}
	}
	for v := range 16 {
		if Unhex(UpperHex[v]) != byte(v) || UpperHex[v] != "0123456789ABCDEF"[v] {
			t.Errorf("UpperHex[%d] = %q", v, UpperHex[v])
		}
	}
}
