//go:build gc && !purego && !noasm

package normalize

import (
	"github.com/uriscan/uriscan/internal/cpufeat"
	"github.com/uriscan/uriscan/internal/pathstats"
)

var hintsUseAVX2 = cpufeat.HintsAVX2 // internal/cpufeat decides

// HintsPath reports how Normalizer (and so urikey.Hasher) finds out
// whether a URI may need normalizing: "avx2" (one AVX2 pass, amd64 with
// AVX2 and BMI2; GODEBUG=cpu.avx2=off or cpu.bmi2=off turns it off) or
// "go".
func HintsPath() string {
	if hintsUseAVX2 {
		return "avx2"
	}
	return "go"
}

// hintsAVX2 is hintsGeneric 32 bytes at a time. It reads whole 32-byte
// blocks only where they cannot cross into a page s does not touch.
//
//go:noescape
func hintsAVX2(p *byte, n, hostEnd, pathStart, pathEnd int) uint

// hints reports what in s may need normalizing: see the hint bits.
func hints(s string, hostEnd, pathStart, pathEnd int) uint {
	if !hintsUseAVX2 || len(s) == 0 {
		pathstats.Add(pathstats.HintsGo, 1)
		return hintsGeneric(s, hostEnd, pathStart, pathEnd)
	}
	pathstats.Add(pathstats.HintsAVX2, 1)
	return hintsAVX2(stringData(s), len(s), hostEnd, pathStart, pathEnd)
}
