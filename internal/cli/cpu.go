package cli

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/cpufeat"
	"github.com/uriscan/uriscan/internal/cpuinfo"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

// cpuCommand is uriscan cpu.
var cpuCommand = command{
	name:     "cpu",
	synopsis: "",
	summary:  "report the CPU and the classification kernel in use",
	doc: `Prints the CPU (brand, family, cores, cache sizes), the instruction set
extensions uriscan can use, and the kernel it chose: avx512, avx2, neon or
generic. GODEBUG=cpu.avx2=off or cpu.avx512f=off turns kernels off; the
purego build tag builds without assembly.`,
	example: `GODEBUG=cpu.avx512f=off uriscan cpu`,
	takes:   0,
	setup:   setupCPU,
}

// setupCPU: "uriscan cpu" reports the CPU and the kernel uriscan chose.
func setupCPU(fs *flagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		if len(args) > 0 {
			return errors.New("cpu takes no arguments")
		}
		w := e.out
		line := func(k, v string) {
			w.WriteString(k)
			w.WriteString(":")
			w.WriteString(strings.Repeat(" ", max(1, 12-len(k))))
			w.WriteString(v)
			w.WriteByte('\n')
		}
		cpuLines(cpuinfo.Read(), line)
		line("arch", runtime.GOOS+"/"+runtime.GOARCH+", "+runtime.Version())
		line("features", features())
		k := uriscan.Kernel()
		if v := os.Getenv("GODEBUG"); strings.Contains(v, "cpu.") {
			k += " (GODEBUG=" + v + ")"
		}
		line("kernel", k)
		line("batch", uriscan.BatchPath())
		line("hints", normalize.HintsPath())
		line("hash", urikey.HashPath())
		return nil
	}
}

// cpuLines writes what the system says of the CPU (package cpuinfo), a
// line each; "unknown" for what it does not say.
func cpuLines(c cpuinfo.Info, line func(k, v string)) {
	str := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	num := func(n int) string {
		if n <= 0 {
			return "unknown"
		}
		return strconv.Itoa(n)
	}
	kb := func(n int) string {
		if n <= 0 {
			return "unknown"
		}
		return strconv.Itoa(n>>10) + " KiB"
	}
	line("cpu", str(c.Brand))
	line("vendor", str(c.Vendor))
	line("family", str(c.Family)+" model "+str(c.Model)+" stepping "+str(c.Stepping))
	line("cores", num(c.Physical)+" physical, "+num(c.Logical)+" logical, GOMAXPROCS "+strconv.Itoa(runtime.GOMAXPROCS(0)))
	line("cache", "L1d "+kb(c.L1D)+", L2 "+kb(c.L2)+", L3 "+kb(c.L3)+", line "+num(c.LineSize)+" B")
}

// features lists the CPU features dispatch reads (internal/cpufeat), as
// GODEBUG leaves them: the ones it switched off, or the CPU lacks, after
// "without". The kernel, batch, hints and hash lines say what dispatch
// chose from them.
func features() string {
	var on, off []string
	for _, f := range cpufeat.Features() {
		if f.Has {
			on = append(on, f.Name)
		} else {
			off = append(off, f.Name)
		}
	}
	s := strings.Join(on, " ")
	if len(on) == 0 {
		s = "none of the ones uriscan uses"
	}
	if len(off) > 0 {
		s += " (without " + strings.Join(off, " ") + ")"
	}
	if !cpufeat.Asm {
		s += "; this build has no assembly (purego)"
	}
	return s
}
