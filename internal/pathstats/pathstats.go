// Package pathstats counts the work each fast path takes, for the tests
// that prove every fast path runs: a fast path that silently stops taking
// records (or a dispatch that falls back to a scalar path) leaves results
// unchanged and only costs speed, so only counting can catch it.
//
// Counting is compiled in only with the uriscan_pathstats build tag (the
// Makefile's path legs). Without it, Add is an empty function that the
// compiler inlines away: the production hot path has no counter and no
// branch.
package pathstats

// A Path is one way a unit of work can be done.
type Path int

const (
	BatchAsm     Path = iota // LineScanner records taken by the batch assembly (fastBatchBMI2)
	GoFast                   // LineScanner records taken by the Go fast path ((*walker).fast)
	Walk                     // LineScanner records scanned by the walk
	HintsAVX2                // normalize hints computed by the AVX2 pass
	HintsGo                  // normalize hints computed by the scalar reference
	NormInPlace              // Hasher.Sum calls that hashed the URI where it lies
	NormCopied               // Hasher.Sum calls that built the normal form first
	HashAVX2                 // HighwayHash-128 digests by the AVX2 assembly
	HashRef                  // HighwayHash-128 digests by highwayhash.Sum128
	Warnings                 // URI.Warnings calls (a command computes them only when it shows them)
	UserinfoScan             // URIs whose host PasswordSpan searched for an "@" (an RFC 2396 reg_name)
	NumPaths
)

var names = [NumPaths]string{"batch-asm", "go-fast", "walk", "hints-avx2", "hints-go", "norm-in-place", "norm-copied", "hash-avx2", "hash-ref"}

func (p Path) String() string { return names[p] }

// Counts is a snapshot of every counter.
type Counts [NumPaths]uint64

// Since returns the counts added after before.
func (c Counts) Since(before Counts) Counts {
	for i := range c {
		c[i] -= before[i]
	}
	return c
}
