package uriscan

import "github.com/uriscan/uriscan/internal/kerneltest"

// The hooks of internal/kerneltest, for the fuzz targets in fuzz/.
func init() {
	byName := func(name string) kernelID {
		for _, k := range availableKernels() {
			if k.String() == name {
				return k
			}
		}
		panic("uriscan: kernel " + name + " not available")
	}
	kerneltest.Kernels = func() []string {
		var names []string
		for _, k := range availableKernels() {
			names = append(names, k.String())
		}
		return names
	}
	kerneltest.With = func(name string, f func()) {
		defer useKernel(byName(name))()
		f()
	}
	kerneltest.Masks = func(name string, src []byte) [][5]uint64 {
		dst := make([]blockMasks, (len(src)+blockSize-1)/blockSize)
		kerneltest.With(name, func() { classifyBlocks(dst, src) })
		out := make([][5]uint64, len(dst))
		for i, m := range dst {
			out[i] = [5]uint64{m.invalid, m.structural, m.newline, m.tail, m.delim}
		}
		return out
	}
}
