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
		got := kernelClass128[c&127]
		if c >= 128 {
			got = 1 // the kernel's sign-bit rule
		}
		if got != kernelBits[c] {
			t.Errorf("byte %#02x: VPERMI2B class %d, want %d", c, got, kernelBits[c])
		}
	}
}

func TestNibbleConstants(t *testing.T) {
	c := kernelNibbles
	if c.nib != 0x0f || c.nl != '\n' || c.delim != delimBits2 || 0xF0+int(c.bias) < 0x80 || 0x10+int(c.bias) < 0x80 || 0x0f+int(c.bias) >= 0x80 ||
		1+int(c.bias2) < 0x80 || int(c.bias2) >= 0x80 {
		t.Errorf("AVX2 constants %+v do not move the class bits into bit 7", c)
	}
}
