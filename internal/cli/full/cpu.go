package full

import (
	"runtime"
	"strconv"

	"github.com/klauspost/cpuid/v2"
)

// cpuLines writes what uriscan cpu says of the CPU, a line each: what it
// is. Its features come from internal/cpufeat, as dispatch sees them
// (cpuid would list one GODEBUG switched off).
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
}
