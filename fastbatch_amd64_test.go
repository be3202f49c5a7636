//go:build amd64 && gc && !purego && !noasm

package uriscan

import (
	"testing"

	"golang.org/x/sys/cpu"
)

// TestBatchAsmEnabled fails when the CPU (as GODEBUG leaves it) has BMI1
// and BMI2 but the batch assembly is off, so that TestFastPathDirect, which
// checks the assembly only where it runs, cannot pass in a plain go test
// because it was switched off.
func TestBatchAsmEnabled(t *testing.T) {
	if want := cpu.X86.HasBMI1 && cpu.X86.HasBMI2; dispatch.fastBatch != want {
		t.Fatalf("dispatch.fastBatch %v, but the CPU has BMI1 and BMI2: %v", dispatch.fastBatch, want)
	}
}
