//go:build (!amd64 && !arm64) || !gc || purego || noasm

package uriscan

func bestKernel() kernelID { return kernelGeneric }

// availableKernels lists the kernels this build and CPU can run.
func availableKernels() []kernelID { return []kernelID{kernelGeneric} }

// classifyBlocks runs kernel k: here always the scalar one (the only one
// availableKernels offers).
func classifyBlocks(dst []blockMasks, src []byte, k kernelID) { classifyGeneric(dst, src) }
