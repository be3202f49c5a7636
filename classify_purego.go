//go:build (!amd64 && !arm64) || !gc || purego || noasm

package uriscan

func bestKernel() kernelID { return kernelGeneric }

// availableKernels lists the kernels this build and CPU can run.
func availableKernels() []kernelID { return []kernelID{kernelGeneric} }

// classifyBlocks runs the active kernel: here always the scalar one.
func classifyBlocks(dst []blockMasks, src []byte) { classifyGeneric(dst, src) }
