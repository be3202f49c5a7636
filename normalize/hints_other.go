//go:build !amd64 || !gc || purego || noasm

package normalize

// hints reports what in s may need normalizing: see the hint bits.
func hints(s string, hostEnd, pathStart, pathEnd int) uint {
	return hintsGeneric(s, hostEnd, pathStart, pathEnd)
}
