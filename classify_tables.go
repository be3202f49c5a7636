package uriscan

// Tables the SIMD kernels look bytes up in. They are derived here, in Go,
// from classify.Table (through kernelBits) and passed to the kernels by
// pointer, so no assembly file holds a copy; classify_tables_test.go checks
// that each one rebuilds the classes for all 256 byte values.

// nibbleLUT is the pair of 16-entry tables of the two-nibble lookup used by
// the AVX2 (VPSHUFB) and NEON (TBL) kernels: for a byte c,
//
//	x = lo[c&15] & hi[c>>4]
//	invalid    = x == 0
//	structural = x&0xF0 != 0
//
// Each bit of x is one rectangle (a set of high nibbles times a set of low
// nibbles). Bits 0-3 cover the valid bytes that are not structural, bits
// 4-7 the structural ones; a byte is valid when any bit is set. High
// nibbles 0, 1 and 8-15 have no bits, so controls and bytes >= 0x80 come
// out invalid without a separate range check.
//
// A second pair (lo2, hi2) finds the tail bytes ? # % [ ] and the delim
// bytes / ? # the same way: with x2 = lo2[c&15] & hi2[c>>4],
// tail = x2&0x0F != 0 and delim = x2&0x15 != 0.
type nibbleLUT struct {
	lo  [16]uint8
	hi  [16]uint8
	lo2 [16]uint8
	hi2 [16]uint8
	// Byte constants the AVX2 kernel broadcasts: the low-nibble mask (also
	// the tail bits of x2), the bias that moves x&0xF0 != 0 into bit 7,
	// '\n', the bias that moves a nonzero byte into bit 7, and the delim
	// bits of x2.
	nib, bias, nl, bias2, delim uint8
}

// nibbleRects are the eight rectangles: high nibbles, low nibbles.
var nibbleRects = [8]struct{ hi, lo string }{
	{"35", "0123456789ABDF"},  // 0-9 : ; = ?  P-Z [ ] _   (not < > \ ^)
	{"46", "123456789ABCDEF"}, // A-O a-o                  (not @ `)
	{"2", "13456789ABCDEF"},   // ! # $ % & ' ( ) * + , - . / (not space ")
	{"7", "0123456789AE"},     // p-z ~                    (not { | } DEL)
	{"2", "35F"},              // # % /
	{"3", "AF"},               // : ?
	{"4", "0"},                // @
	{"5", "BD"},               // [ ]
}

// tailRects are the rectangles of the second lookup: bits 0-3 are the
// tail bytes, bits 0, 2 and 4 the delim bytes.
var tailRects = [5]struct{ hi, lo string }{
	{"2", "3"},  // #   tail, delim
	{"2", "5"},  // %   tail
	{"3", "F"},  // ?   tail, delim
	{"5", "BD"}, // [ ] tail
	{"2", "F"},  // /   delim
}

const (
	tailBits2  = 0x0F
	delimBits2 = 0x15
)

var kernelNibbles = func() (t nibbleLUT) {
	t.nib, t.bias, t.nl, t.bias2, t.delim = tailBits2, 0x70, '\n', 0x7f, delimBits2
	for bit, r := range nibbleRects {
		for _, h := range r.hi {
			t.hi[hexVal(byte(h))] |= 1 << bit
		}
		for _, l := range r.lo {
			t.lo[hexVal(byte(l))] |= 1 << bit
		}
	}
	for bit, r := range tailRects {
		for _, h := range r.hi {
			t.hi2[hexVal(byte(h))] |= 1 << bit
		}
		for _, l := range r.lo {
			t.lo2[hexVal(byte(l))] |= 1 << bit
		}
	}
	return t
}()

func hexVal(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c - 'A' + 10
}

// kernelClass128 is the class of each byte below 0x80 for the AVX-512
// VPERMI2B kernel, in kernelBits form (1 invalid, 2 structural, 4
// newline, 8 tail, 16 delim). Bytes >= 0x80 are invalid; the kernel takes them from the
// sign bit, since VPERMI2B ignores bit 7 of the index.
var kernelClass128 = func() (t [128]uint8) {
	copy(t[:], kernelBits[:128])
	return t
}()
