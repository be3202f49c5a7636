//go:build gc && !purego && !noasm

package normalize

import "golang.org/x/sys/cpu"

var hintsUseAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// hintsAVX2 is hintsGeneric 32 bytes at a time. It reads whole 32-byte
// blocks only where they cannot cross into a page s does not touch.
//
//go:noescape
func hintsAVX2(p *byte, n, hostEnd, pathStart, pathEnd int) uint

// hints reports what in s may need normalizing: see the hint bits.
func hints(s string, hostEnd, pathStart, pathEnd int) uint {
	if !hintsUseAVX2 || len(s) == 0 {
		return hintsGeneric(s, hostEnd, pathStart, pathEnd)
	}
	return hintsAVX2(stringData(s), len(s), hostEnd, pathStart, pathEnd)
}
