//go:build amd64 && gc && !purego && !noasm

package uriscan

import (
	"bytes"
	"math/rand/v2"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/uriscan/uriscan/internal/avx512sim"
)

// The AVX-512 kernel is checked here on every amd64 machine, AVX-512 or
// not: its machine code is read from this test binary, decoded by GNU
// objdump and executed by internal/avx512sim, an interpreter of the
// instructions it uses with the Intel SDM's semantics (opmask registers,
// merging and zeroing masked loads whose masked-off lanes are never
// touched). The input is a memory region of exactly its bytes, so any read
// past src[n-1] (or before src) fails, and every register starts with
// random bytes, so reading one the kernel did not set fails too. Where the
// CPU has AVX-512 the real kernel also runs, in every Kernel* test, and
// TestAVX512InterpreterMatchesSilicon compares the two.

// loadAVX512Code decodes classifyAVX512 from the running test binary,
// once.
var loadAVX512Code = sync.OnceValues(func() (*avx512sim.Func, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	return avx512sim.LoadFunc(exe, reflect.TypeOf(blockMasks{}).PkgPath()+".classifyAVX512")
})

// avx512Code returns classifyAVX512 decoded from the running test binary.
func avx512Code(tb testing.TB) *avx512sim.Func {
	tb.Helper()
	f, err := loadAVX512Code()
	if err != nil {
		tb.Fatalf("the AVX-512 kernel cannot be interpreted: %v", err)
	}
	return f
}

// Fake addresses of the kernel's arguments in the interpreter's memory.
const (
	simDst   = 0x2000_0000
	simSrc   = 0x1000_0000
	simClass = 0x3000_0000
)

// simClassify runs the interpreted kernel over src (len(src) >= 1) and
// returns the masks it wrote; ex, when not nil, counts executed
// instructions.
func simClassify(f *avx512sim.Func, src []byte, rng *rand.Rand, ex map[uint64]int) ([]blockMasks, error) {
	nb := (len(src) + blockSize - 1) / blockSize
	dst := make([]blockMasks, nb)
	m := &avx512sim.Machine{Executed: ex}
	m.Scramble(rng)
	// The input keeps its page offset, so alignments are the real ones.
	srcAddr := simSrc + uint64(uintptr(unsafe.Pointer(unsafe.SliceData(src)))&(pageSize-1))
	tables := kernelAVX512Tables
	m.Regions = []*avx512sim.Region{
		{Name: "src", Addr: srcAddr, Data: src},
		{Name: "dst", Addr: simDst, Data: unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), nb*int(unsafe.Sizeof(blockMasks{}))), Writable: true},
		{Name: "tables", Addr: simClass, Data: unsafe.Slice((*byte)(unsafe.Pointer(&tables)), unsafe.Sizeof(tables))},
	}
	err := m.Call(f, simDst, srcAddr, uint64(len(src)), simClass)
	return dst, err
}

type simChecker struct {
	t   *testing.T
	f   *avx512sim.Func
	rng *rand.Rand
	ex  map[uint64]int
}

func newSimChecker(t *testing.T) *simChecker {
	return &simChecker{t: t, f: avx512Code(t), rng: rand.New(rand.NewPCG(11, 12)), ex: map[uint64]int{}}
}

// check interprets the kernel over src and compares with classifyGeneric.
func (c *simChecker) check(src []byte) {
	c.t.Helper()
	if len(src) == 0 {
		return // classifyAVX512 requires n >= 1; its callers skip empty input
	}
	got, err := simClassify(c.f, src, c.rng, c.ex)
	if err != nil {
		c.t.Fatalf("interpreted avx512, len %d %q: %v", len(src), clip(src), err)
	}
	want := make([]blockMasks, len(got))
	classifyGeneric(want, src)
	if d := diffMasks(got, want, src); d != "" {
		c.t.Fatalf("interpreted avx512: %s", d)
	}
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

// TestAVX512Interpreted runs the AVX-512 kernel's machine code in the
// interpreter over the inputs the Kernel* tests give every kernel: every
// byte value in every lane, every rotation of all 256 bytes, every length
// to 4 blocks at every alignment, random input, the start-up self-check's
// inputs and every parse case. It then checks that every instruction of
// the kernel was executed.
func TestAVX512Interpreted(t *testing.T) {
	c := newSimChecker(t)
	t.Logf("%s: %d instructions at %#x", c.f.Name, len(c.f.Insts), c.f.Addr)
	// Taking the function as a value makes the linker add an ABIInternal
	// wrapper under the same name, which LoadFunc must follow to the body.
	// The body is the ABI0 function: it reads its first argument from the
	// stack, where the wrapper puts it.
	wrapper := reflect.ValueOf(classifyAVX512).Pointer()
	if uint64(wrapper) == c.f.Addr {
		t.Fatalf("LoadFunc returned the ABI wrapper at %#x, not the body", wrapper)
	}
	if first := c.f.Insts[0].Text; first != "mov    rdi,QWORD PTR [rsp+0x8]" {
		t.Fatalf("the body starts with %q, not the load of dst+0(FP)", first)
	}

	// Every byte value in every lane.
	for b := 0; b < 256; b++ {
		for _, n := range []int{1, 63, 64, 65, 128} {
			src := bytes.Repeat([]byte("a"), n)
			for pos := 0; pos < n; pos++ {
				src[pos] = byte(b)
				c.check(src)
				src[pos] = 'a'
			}
		}
	}
	// Every rotation of all 256 byte values.
	all := make([]byte, 256)
	for i := range all {
		all[i] = byte(i)
	}
	for r := 0; r < 256; r++ {
		c.check(append(all[r:r:r], append(all[r:], all[:r]...)...))
	}
	// Every length to 4 blocks and a byte, at every alignment.
	rng := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 4*blockSize+64+blockSize)
	const alphabet = "ab/:%?#[]@\n\r \x00\x80\xff\"{}|~-_."
	for i := range buf {
		buf[i] = alphabet[rng.IntN(len(alphabet))]
	}
	for align := 0; align < 64; align++ {
		for n := 1; n <= 4*blockSize+1 && align+n <= len(buf); n++ {
			c.check(buf[align : align+n])
		}
	}
	// Random bytes of random lengths.
	count := 2000
	if testing.Short() {
		count = 500
	}
	for i := 0; i < count; i++ {
		src := make([]byte, 1+rng.IntN(1500))
		for j := range src {
			src[j] = byte(rng.UintN(256))
		}
		c.check(src)
	}
	// The self-check's inputs, and every parse case.
	var sc [256 + blockSize]byte
	for i := range sc {
		sc[i] = byte(i*67 + 13)
	}
	for off := 0; off < blockSize; off += 7 {
		for _, n := range []int{1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 256} {
			c.check(sc[off : off+n])
		}
	}
	for _, pc := range parseCases {
		c.check([]byte(pc.in))
	}

	var never []string
	for _, in := range c.f.Insts {
		if c.ex[in.Addr] == 0 {
			never = append(never, in.String())
		}
	}
	if len(never) > 0 {
		t.Errorf("%d instructions never executed:\n%s", len(never), strings.Join(never, "\n"))
	}
}

// TestAVX512InterpreterMatchesSilicon runs the real AVX-512 kernel and the
// interpreted one on the same random inputs and compares the masks. It
// runs only where the CPU has AVX-512 (elsewhere the interpreted kernel is
// compared with classifyGeneric alone).
func TestAVX512InterpreterMatchesSilicon(t *testing.T) {
	if !hasAVX512 {
		t.Skip("this CPU has no AVX-512 (or dispatch refused it): nothing to compare the interpreter with")
	}
	f := avx512Code(t)
	rng := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < 1000; i++ {
		src := make([]byte, 1+rng.IntN(700))
		for j := range src {
			src[j] = byte(rng.UintN(256))
		}
		got, err := simClassify(f, src, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		real := make([]blockMasks, len(got))
		classifyAVX512(&real[0], &src[0], len(src), &kernelAVX512Tables)
		if d := diffMasks(got, real, src); d != "" {
			t.Fatalf("interpreter (got) against silicon (want): %s", d)
		}
	}
}

// FuzzAVX512Interpreted diffs the interpreted AVX-512 kernel with
// classifyGeneric on fuzzed input, on any amd64 CPU (FuzzKernels in fuzz/
// runs the real kernel where the CPU has one).
func FuzzAVX512Interpreted(f *testing.F) {
	for _, s := range []string{"http://h/%41?q#f", "a\n\x80\xff[]", strings.Repeat("x/?#", 40)} {
		f.Add([]byte(s))
	}
	code := avx512Code(f)
	rng := rand.New(rand.NewPCG(15, 16))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) == 0 {
			return
		}
		got, err := simClassify(code, src, rng, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]blockMasks, len(got))
		classifyGeneric(want, src)
		if d := diffMasks(got, want, src); d != "" {
			t.Fatalf("interpreted avx512: %s", d)
		}
	})
}
