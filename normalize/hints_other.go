//go:build !amd64 || !gc || purego || noasm

package normalize

import "github.com/uriscan/uriscan/internal/pathstats"

// HintsPath reports how Normalizer (and so urikey.Hasher) finds out
// whether a URI may need normalizing: here always "go" (the scalar
// searches).
func HintsPath() string { return "go" }

// hints reports what in s may need normalizing: see the hint bits.
func hints(s string, hostEnd, pathStart, pathEnd int) uint {
	pathstats.Add(pathstats.HintsGo, 1)
	return hintsGeneric(s, hostEnd, pathStart, pathEnd)
}
