package full

import (
	"runtime"
	"strconv"
	"strings"

	"github.com/klauspost/cpuid/v2"
)

// cpuLines writes what uriscan cpu says of the CPU, a line each.
func cpuLines(line func(k, v string)) {
	c := cpuid.CPU
	kb := func(n int) string {
		if n <= 0 {
			return "unknown"
		}
		return strconv.Itoa(n>>10) + " KiB"
	}
	brand := c.BrandName
	if brand == "" {
		brand = "unknown"
	}
	line("cpu", brand)
	line("vendor", c.VendorString)
	line("family", strconv.Itoa(c.Family)+" model "+strconv.Itoa(c.Model)+" stepping "+strconv.Itoa(c.Stepping))
	line("cores", strconv.Itoa(c.PhysicalCores)+" physical, "+strconv.Itoa(c.LogicalCores)+" logical, GOMAXPROCS "+strconv.Itoa(runtime.GOMAXPROCS(0)))
	line("cache", "L1d "+kb(c.Cache.L1D)+", L2 "+kb(c.Cache.L2)+", L3 "+kb(c.Cache.L3)+", line "+strconv.Itoa(c.CacheLine)+" B")
	var feats []string
	for _, f := range []struct {
		name string
		id   cpuid.FeatureID
	}{
		{"SSE4.2", cpuid.SSE42}, {"AVX", cpuid.AVX}, {"AVX2", cpuid.AVX2}, {"BMI2", cpuid.BMI2},
		{"AVX512F", cpuid.AVX512F}, {"AVX512BW", cpuid.AVX512BW}, {"AVX512VL", cpuid.AVX512VL},
		{"AVX512VBMI", cpuid.AVX512VBMI}, {"ASIMD", cpuid.ASIMD},
	} {
		if c.Supports(f.id) {
			feats = append(feats, f.name)
		}
	}
	if len(feats) == 0 {
		feats = []string{"none of the ones uriscan uses"}
	}
	line("features", strings.Join(feats, " "))
}
