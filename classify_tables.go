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
// bytes / ? # the same way. Its rectangles are disjoint, so x2 =
// lo2[c&15] & hi2[c>>4] has at most one bit set, and the bits are placed
// so that each mask is one compare: the tail bits are 0x0F, so tail = x2
// > 0 as a signed byte ('/' is 0x80, negative); the delim bits are 0x8C,
// the three highest, so delim = x2 >= 0x04.
type nibbleLUT struct {
	lo  [16]uint8
	hi  [16]uint8
	lo2 [16]uint8
	hi2 [16]uint8
	// Byte constants the AVX2 kernel broadcasts: the low-nibble mask, the
	// bias that moves x&0xF0 != 0 into bit 7, '\n', and the bias that
	// moves x2 >= 0x04 (delim) into bit 7.
	nib, bias, nl, delimBias uint8
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

// tailRects are the rectangles of the second lookup, each with its bit of
// x2: bits 0-3 (tailBits2) are the tail bytes, bits 2, 3 and 7
// (delimBits2) the delim bytes.
var tailRects = [5]struct {
	bit    uint8
	hi, lo string
}{
	{0, "2", "5"},  // %   tail
	{1, "5", "BD"}, // [ ] tail
	{2, "2", "3"},  // #   tail, delim
	{3, "3", "F"},  // ?   tail, delim
	{7, "2", "F"},  // /   delim
}

const (
	tailBits2  = 0x0F // tail = x2 & 0x0F != 0, that is x2 > 0 signed
	delimBits2 = 0x8C // delim = x2 & 0x8C != 0, that is x2 >= 0x04; classify_neon_arm64.s has it as VMOVI $0x8c
)

var kernelNibbles = func() (t nibbleLUT) {
	t.nib, t.bias, t.nl, t.delimBias = 0x0f, 0x70, '\n', 0x80-0x04
	for bit, r := range nibbleRects {
		for _, h := range r.hi {
			t.hi[hexVal(byte(h))] |= 1 << bit
		}
		for _, l := range r.lo {
			t.lo[hexVal(byte(l))] |= 1 << bit
		}
	}
	for _, r := range tailRects {
		for _, h := range r.hi {
			t.hi2[hexVal(byte(h))] |= 1 << r.bit
		}
		for _, l := range r.lo {
			t.lo2[hexVal(byte(l))] |= 1 << r.bit
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

// avx512Tables is what the AVX-512 kernel (classify_avx512_amd64.s)
// reads besides its input, passed by pointer so that no assembly file
// holds a copy:
//
//	class   the class of each byte below 0x80, in kernelBits form (1
//	        invalid, 2 structural, 4 newline, 8 tail, 16 delim), for
//	        VPERMI2B. The kernel first maps every byte >= 0x80 to 0x7F
//	        (VPMINUB): DEL has their class, invalid and nothing else
//	        (TestClass128RebuildsClasses).
//	gather  the VPERMB indices that turn eight transposed 8x8 bit
//	        matrices into the five masks: byte 8*j+q of the result is byte
//	        8*q+j of the source, so qword j collects bit plane j of all 64
//	        lanes (blockMasks' fields are planes 0-4, in order).
type avx512Tables struct {
	class  [128]uint8
	gather [64]uint8
}

var kernelAVX512Tables = func() (t avx512Tables) {
	copy(t.class[:], kernelBits[:128])
	for j := 0; j < 8; j++ {
		for q := 0; q < 8; q++ {
			t.gather[8*j+q] = uint8(8*q + j)
		}
	}
	return t
}()
