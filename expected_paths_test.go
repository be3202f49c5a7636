package uriscan_test

import (
	"os"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

// expectedPaths are the URISCAN_EXPECT_* variables each CI leg sets, and
// what each checks: the kernel dispatch chose (avx512, avx2, neon,
// generic), whether the batch assembly runs (bmi2, go), whether the
// normalizer's AVX2 hints pass runs (avx2, go) and whether HighwayHash
// runs its AVX2 assembly (avx2, go).
var expectedPaths = []struct {
	env string
	got func() string
}{
	{"URISCAN_EXPECT_KERNEL", uriscan.Kernel},
	{"URISCAN_EXPECT_BATCH", uriscan.BatchPath},
	{"URISCAN_EXPECT_HINTS", normalize.HintsPath},
	{"URISCAN_EXPECT_HASH", urikey.HashPath},
}

// TestExpectedPaths fails when a URISCAN_EXPECT_* variable names another
// path than the one in use, so that no CI leg (arm64 under qemu, a GODEBUG
// leg, purego) passes on a scalar fallback by accident. Once one of them
// is set, all must be: a leg that forgets one fails instead of checking
// less.
func TestExpectedPaths(t *testing.T) {
	set := 0
	for _, c := range expectedPaths {
		if os.Getenv(c.env) != "" {
			set++
		}
	}
	if set == 0 {
		t.Skip("no URISCAN_EXPECT_* variable set (the Makefile's test legs set them)")
	}
	for _, c := range expectedPaths {
		want, got := os.Getenv(c.env), c.got()
		switch {
		case want == "":
			t.Errorf("%s not set (in use: %s): set every URISCAN_EXPECT_* variable or none", c.env, got)
		case got != want:
			t.Errorf("%s: in use %q, expected %q", c.env, got, want)
		default:
			t.Logf("%s: %s in use", c.env, got)
		}
	}
}
