package cli

import (
	"flag"
	"os"
	"runtime"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/cpufeat"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

// setupCPU: "uriscan cpu" reports the CPU and the kernel uriscan chose.
func setupCPU(fs *flag.FlagSet) func(*env, []string) int {
	return func(e *env, args []string) int {
		if len(args) > 0 {
			e.errw.WriteString("uriscan: cpu takes no arguments\n")
			return exitUsage
		}
		w := e.out
		line := func(k, v string) {
			w.WriteString(k)
			w.WriteString(":")
			w.WriteString(strings.Repeat(" ", max(1, 12-len(k))))
			w.WriteString(v)
			w.WriteByte('\n')
		}
		linked.CPU(line)
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
		return exitOK
	}
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
