package cli

import (
	"flag"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/klauspost/cpuid/v2"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
)

// setupCPU: "uriscan cpu" reports the CPU and the kernel uriscan chose.
func setupCPU(fs *flag.FlagSet) func(*env, []string) int {
	return func(e *env, args []string) int {
		if len(args) > 0 {
			e.errw.WriteString("uriscan: cpu takes no arguments\n")
			return exitUsage
		}
		c := cpuid.CPU
		w := e.out
		line := func(k, v string) {
			w.WriteString(k)
			w.WriteString(":")
			w.WriteString(strings.Repeat(" ", max(1, 12-len(k))))
			w.WriteString(v)
			w.WriteByte('\n')
		}
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
		line("arch", runtime.GOOS+"/"+runtime.GOARCH+", "+runtime.Version())
		k := uriscan.Kernel()
		if v := os.Getenv("GODEBUG"); strings.Contains(v, "cpu.") {
			k += " (GODEBUG=" + v + ")"
		}
		line("kernel", k)
		line("batch", uriscan.BatchPath())
		line("hints", normalize.HintsPath())
		line("hash", normalize.HashPath())
		return exitOK
	}
}
