//go:build gc && !purego && !noasm

package uriscan

import (
	"testing"

	"github.com/uriscan/uriscan/internal/cpufeat"
)

// TestKernelsOffered fails when the NEON kernel, which this CPU can run,
// was dropped by its start-up self-check (kernelAgrees): a broken kernel
// must not leave the suite green by vanishing from availableKernels.
func TestKernelsOffered(t *testing.T) {
	if cpufeat.ClassifyNEON && !hasNEON {
		t.Error("the NEON kernel disagrees with the scalar reference on kernelAgrees's input and was dropped")
	}
	if !cpufeat.ClassifyNEON {
		t.Log("the NEON kernel is not offered on this CPU or build")
	}
}
