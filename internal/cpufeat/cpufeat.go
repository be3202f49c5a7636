// Package cpufeat is the one place uriscan reads CPU features and decides
// which assembly every package runs: the classify kernel (root package),
// the batch assembly (root), the normalizer's hints pass (normalize) and
// HighwayHash (internal/highway). `uriscan cpu` reports from here, so it
// lists the features exactly as dispatch sees them.
//
// The features come from golang.org/x/sys/cpu, which honours GODEBUG:
// cpu.avx2=off, cpu.avx512f=off, cpu.bmi2=off (and cpu.all=off) switch a
// feature off for every decision here and for the report. The build tag
// purego (noasm is accepted as its alias everywhere) compiles no assembly
// in any package: Asm is false and so is every decision.
//
// A decision says the CPU may run an assembly path; the root package's
// kernels must also pass their start-up self-check against the scalar
// reference before it offers them.
package cpufeat

import (
	"runtime"

	"golang.org/x/sys/cpu"
)

// The features uriscan's assembly needs, as GODEBUG leaves them.
var (
	// AVX2 is x86 AVX2.
	AVX2 = cpu.X86.HasAVX2
	// AVX512 is the AVX-512 set the classify kernel needs: F, BW
	// (byte-granular masks and VPMINUB on 64 bytes), VBMI (VPERMI2B,
	// VPERMB) and GFNI (VGF2P8AFFINEQB, the bit transpose; every CPU with
	// VBMI but Cannon Lake has it). It needs AVX2 too, so that
	// GODEBUG=cpu.avx2=off turns every SIMD path off.
	AVX512 = AVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512GFNI
	// BMI2 is x86 BMI1 and BMI2 (TZCNT, BLSR, SHRX, BZHI).
	BMI2 = cpu.X86.HasBMI1 && cpu.X86.HasBMI2
	// NEON is arm64 ASIMD (part of the arm64 baseline; GODEBUG=cpu.asimd=off
	// turns it off).
	NEON = cpu.ARM64.HasASIMD
)

const (
	amd64 = runtime.GOARCH == "amd64"
	arm64 = runtime.GOARCH == "arm64"
)

// The decisions, one per assembly path.
var (
	// ClassifyAVX512 and ClassifyAVX2 offer the amd64 classify kernels,
	// ClassifyNEON the arm64 one (each still self-checked at start-up).
	ClassifyAVX512 = Asm && amd64 && AVX512
	ClassifyAVX2   = Asm && amd64 && AVX2
	ClassifyNEON   = Asm && arm64 && NEON
	// BatchBMI2 runs the batch assembly of LineScanner.
	BatchBMI2 = Asm && amd64 && BMI2
	// HintsAVX2 runs the normalizer's one-pass AVX2 hints.
	HintsAVX2 = Asm && amd64 && AVX2 && BMI2
	// HighwayAVX2 runs HighwayHash's AVX2 assembly.
	HighwayAVX2 = Asm && amd64 && AVX2
)

// Feature is one CPU feature uriscan's dispatch reads.
type Feature struct {
	Name string // as GODEBUG spells it: "avx2", "avx512f", ...
	Has  bool   // the CPU has it and GODEBUG left it on
}

// Features lists the features dispatch reads on this architecture, as
// GODEBUG leaves them.
func Features() []Feature {
	switch {
	case amd64:
		return []Feature{
			{"avx2", cpu.X86.HasAVX2},
			{"avx512f", cpu.X86.HasAVX512F},
			{"avx512bw", cpu.X86.HasAVX512BW},
			{"avx512vbmi", cpu.X86.HasAVX512VBMI},
			{"avx512gfni", cpu.X86.HasAVX512GFNI},
			{"bmi1", cpu.X86.HasBMI1},
			{"bmi2", cpu.X86.HasBMI2},
		}
	case arm64:
		return []Feature{{"asimd", cpu.ARM64.HasASIMD}}
	}
	return nil
}
