package uriscan

import (
	"unsafe"

	"github.com/uriscan/uriscan/internal/cpufeat"
)

// kernelID names a stage-1 classification kernel.
type kernelID uint8

const (
	kernelGeneric kernelID = iota // classify_generic.go: scalar reference, every platform
	kernelAVX2                    // classify_avx2_amd64.s: AVX2, two 32-byte registers per block
	kernelAVX512                  // classify_avx512_amd64.s: AVX-512 BW + VBMI, one register per block
	kernelNEON                    // classify_neon_arm64.s: NEON, four 16-byte registers per block
)

var kernelNames = [...]string{"generic", "avx2", "avx512", "neon"}

func (k kernelID) String() string { return kernelNames[k] }

// engine is how a scan runs: the classification kernel and the fast
// paths tried before the walk. The internal entry points take one (parse,
// newLineScanner, newLineScannerBytes, Extractor.eng): the public API
// passes dispatch, a test the engine it checks, so that no test switches
// a kernel or a path for the whole package.
type engine struct {
	kernel    kernelID // the stage-1 kernel: one of availableKernels()
	goFast    bool     // try the Go fast path (fast) before the walk
	fastBatch bool     // try the batch assembly first (only where cpufeat.BatchBMI2)
}

// dispatch is the engine of the public API, decided once at start-up from
// the CPU (internal/cpufeat, which honours GODEBUG) and the build tags:
// the best kernel and every fast path there is. Nothing assigns it after.
var dispatch = engine{kernel: bestKernel(), goFast: true, fastBatch: cpufeat.BatchBMI2}

// Kernel reports the classification kernel in use on this CPU: "avx512",
// "avx2", "neon" or "generic". It is decided once at start-up from
// golang.org/x/sys/cpu, which honours GODEBUG (cpu.avx2=off,
// cpu.avx512f=off, cpu.all=off), by internal/cpufeat; the purego build
// tag (or its alias noasm) compiles no assembly at all and always reports
// "generic".
func Kernel() string { return dispatch.kernel.String() }

// BatchPath reports how a LineScanner takes the common records once the
// kernel has classified them: "bmi2" when the batch assembly runs (amd64
// with BMI1 and BMI2; GODEBUG=cpu.bmi2=off turns it off), else "go" (the
// Go fast path and the walk, which take every record in any case).
func BatchPath() string {
	if dispatch.fastBatch {
		return "bmi2"
	}
	return "go"
}

// pageSize is the smallest page size of the platforms with kernels; a
// larger real page only makes blockInPage more conservative.
const pageSize = 4096

// blockInPage reports whether the 64 bytes at p lie in one page, so a
// kernel may read a whole block there even if the input ends sooner: the
// read cannot fault, and the bits past the input are dropped.
func blockInPage(p *byte) bool {
	return uintptr(unsafe.Pointer(p))&(pageSize-1) <= pageSize-blockSize
}

// keep clears the bits of the bytes from n on (0 < n < 64): the padding
// after a short last block.
func (m *blockMasks) keep(n int) {
	k := uint64(1)<<n - 1
	m.invalid &= k
	m.structural &= k
	m.newline &= k
	m.tail &= k
	m.delim &= k
}

// kernelAgrees runs a SIMD kernel over a fixed set of inputs (every byte
// value in every lane position of a block, and every length up to two
// blocks and a bit) and reports whether it wrote exactly what
// classifyGeneric writes. Dispatch uses it once at start-up so that a
// kernel which is wrong on some CPU, or cannot be tested where it was
// built, is never used: the scalar fallback is always correct.
func kernelAgrees(classify func(dst []blockMasks, src []byte)) bool {
	var src [256 + blockSize]byte
	for i := range src {
		src[i] = byte(i*67 + 13) // every byte value, at shifting positions
	}
	var got, want [(len(src) + blockSize - 1) / blockSize]blockMasks
	for off := 0; off < blockSize; off += 7 {
		for _, n := range []int{1, 2, 31, 32, 33, 63, 64, 65, 127, 128, 129, 256} {
			s := src[off : off+n]
			nb := (n + blockSize - 1) / blockSize
			classify(got[:nb], s)
			classifyGeneric(want[:nb], s)
			if got != want {
				return false
			}
		}
	}
	return true
}
