//go:build gc && !purego && !noasm

package cpufeat

// Asm is whether this build compiles uriscan's assembly: gc, and neither
// the purego tag nor its alias noasm.
const Asm = true
