// Package kerneltest lets the cross-package tests and fuzz targets in
// fuzz/ reach uriscan's classification kernels, which are unexported. The
// root package fills these in at init; nothing else may use them.
package kerneltest

// Kernels returns the names of the kernels this build and CPU can run,
// best first; "generic" (the scalar reference) is always last.
var Kernels func() []string

// Masks runs the named kernel over src and returns its masks, one
// [invalid, structural, newline, tail, delim] per 64-byte block.
var Masks func(kernel string, src []byte) [][5]uint64

// With runs f with the named kernel active for Parse and LineScanner, and
// restores the previous kernel afterwards. Not safe for concurrent use.
var With func(kernel string, f func())
