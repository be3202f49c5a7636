package uriscan

import "testing"

func TestNibbleLUTRebuildsClasses(t *testing.T) {
	for c := 0; c < 256; c++ {
		x := kernelNibbles.lo[c&15] & kernelNibbles.hi[c>>4]
		want := kernelBits[c]
		if got := x == 0; got != (want&1 != 0) {
			t.Errorf("byte %#02x: nibble LUT invalid=%v, class table says %v", c, got, want&1 != 0)
		}
		if got := x&0xF0 != 0; got != (want&2 != 0) {
			t.Errorf("byte %#02x: nibble LUT structural=%v, class table says %v", c, got, want&2 != 0)
		}
		x2 := kernelNibbles.lo2[c&15] & kernelNibbles.hi2[c>>4]
		if got := x2&tailBits2 != 0; got != (want&8 != 0) {
			t.Errorf("byte %#02x: nibble LUT tail=%v, class table says %v", c, got, want&8 != 0)
		}
		if got := x2&delimBits2 != 0; got != (want&16 != 0) {
			t.Errorf("byte %#02x: nibble LUT delim=%v, class table says %v", c, got, want&16 != 0)
		}
	}
}

func TestClass128RebuildsClasses(t *testing.T) {
	for c := 0; c < 256; c++ {
		got := kernelAVX512Tables.class[min(c, 0x7f)] // the kernel's VPMINUB
		if got != kernelBits[c] {
			t.Errorf("byte %#02x: VPERMI2B class %d, want %d", c, got, kernelBits[c])
		}
	}
}

// TestNibbleConstants checks the AVX2 kernel's one-compare rules against
// the bit rules for every value x and x2 can take.
func TestNibbleConstants(t *testing.T) {
	c := kernelNibbles
	if c.nib != 0x0f || c.nl != '\n' {
		t.Errorf("nibble mask %#x, newline %#x", c.nib, c.nl)
	}
	for v := 0; v < 256; v++ {
		x := uint8(v)
		if got, want := min(int(x)+int(c.bias), 255) >= 0x80, x&0xF0 != 0; got != want {
			t.Errorf("x %#02x: structural by bias %v, by bits %v", x, got, want)
		}
	}
	for c2 := 0; c2 < 256; c2++ {
		x2 := kernelNibbles.lo2[c2&15] & kernelNibbles.hi2[c2>>4]
		if x2&(x2-1) != 0 {
			t.Errorf("byte %#02x: x2 %#02x has two bits: the tail rectangles overlap", c2, x2)
		}
		if got, want := int8(x2) > 0, x2&tailBits2 != 0; got != want {
			t.Errorf("byte %#02x: tail by signed compare %v, by bits %v", c2, got, want)
		}
		if got, want := min(int(x2)+int(c.delimBias), 255) >= 0x80, x2&delimBits2 != 0; got != want {
			t.Errorf("byte %#02x: delim by bias %v, by bits %v", c2, got, want)
		}
	}
}
