//go:build gc && !purego && !noasm

package uriscan

import (
	"testing"

	"github.com/uriscan/uriscan/internal/cpufeat"
)

// TestKernelsOffered fails when a kernel this CPU can run was dropped by
// its start-up self-check (kernelAgrees): a broken kernel must not leave
// the suite green by vanishing from availableKernels, which every kernel
// test iterates.
func TestKernelsOffered(t *testing.T) {
	for _, k := range []struct {
		name        string
		cpu, agrees bool
	}{
		{"avx512", cpufeat.ClassifyAVX512, hasAVX512},
		{"avx2", cpufeat.ClassifyAVX2, hasAVX2},
	} {
		switch {
		case k.cpu && !k.agrees:
			t.Errorf("the %s kernel disagrees with the scalar reference on kernelAgrees's input and was dropped", k.name)
		case !k.cpu:
			t.Logf("the %s kernel is not offered on this CPU or build", k.name)
		}
	}
}
