package cpufeat

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"

	"github.com/uriscan/uriscan/internal/testexec"
)

// decisions renders every decision, for the child of TestGODEBUG.
func decisions() string {
	return fmt.Sprintf("asm=%v avx2=%v avx512=%v bmi2=%v neon=%v classify-avx512=%v classify-avx2=%v classify-neon=%v batch=%v hints=%v highway=%v",
		Asm, AVX2, AVX512, BMI2, NEON, ClassifyAVX512, ClassifyAVX2, ClassifyNEON, BatchBMI2, HintsAVX2, HighwayAVX2)
}

// TestDecisions: each decision follows from the features and the build as
// the package documents, and Features reports what x/sys/cpu has.
func TestDecisions(t *testing.T) {
	x86 := runtime.GOARCH == "amd64"
	want := map[string][2]bool{
		"ClassifyAVX512": {ClassifyAVX512, Asm && x86 && cpu.X86.HasAVX2 && cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI && cpu.X86.HasAVX512GFNI},
		"ClassifyAVX2":   {ClassifyAVX2, Asm && x86 && cpu.X86.HasAVX2},
		"ClassifyNEON":   {ClassifyNEON, Asm && runtime.GOARCH == "arm64" && cpu.ARM64.HasASIMD},
		"BatchBMI2":      {BatchBMI2, Asm && x86 && cpu.X86.HasBMI1 && cpu.X86.HasBMI2},
		"HintsAVX2":      {HintsAVX2, Asm && x86 && cpu.X86.HasAVX2 && cpu.X86.HasBMI2},
		"HighwayAVX2":    {HighwayAVX2, Asm && x86 && cpu.X86.HasAVX2},
	}
	for name, v := range want {
		if v[0] != v[1] {
			t.Errorf("%s = %v, want %v", name, v[0], v[1])
		}
	}
	fs := Features()
	if x86 || runtime.GOARCH == "arm64" {
		if len(fs) == 0 {
			t.Fatal("no features listed")
		}
	}
	for _, f := range fs {
		if f.Name == "avx2" && f.Has != cpu.X86.HasAVX2 || f.Name == "bmi2" && f.Has != cpu.X86.HasBMI2 {
			t.Errorf("Features: %+v, x/sys/cpu says otherwise", f)
		}
	}
	t.Log(decisions())
}

// TestGODEBUG: a feature GODEBUG switches off is off for every decision
// that needs it, in a child started with it.
func TestGODEBUG(t *testing.T) {
	if os.Getenv("CPUFEAT_CHILD") != "" {
		fmt.Println("decisions:", decisions())
		return
	}
	run := func(godebug string) string {
		cmd, err := testexec.Self("-test.run", "^TestGODEBUG$")
		if err != nil {
			t.Skip(err)
		}
		cmd.Env = append(os.Environ(), "CPUFEAT_CHILD=1", "GODEBUG="+godebug)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		_, line, ok := strings.Cut(string(out), "decisions: ")
		if !ok {
			t.Fatalf("child said %q", out)
		}
		return strings.SplitN(line, "\n", 2)[0]
	}
	switch runtime.GOARCH {
	case "amd64":
		got := run("cpu.avx2=off")
		for _, d := range []string{"avx2", "avx512", "classify-avx512", "classify-avx2", "hints", "highway"} {
			if !strings.Contains(got, " "+d+"=false") {
				t.Errorf("GODEBUG=cpu.avx2=off: %s is on (%s)", d, got)
			}
		}
		if got := run("cpu.bmi2=off"); !strings.Contains(got, " batch=false") || !strings.Contains(got, " hints=false") {
			t.Errorf("GODEBUG=cpu.bmi2=off: %s", got)
		}
	case "arm64":
		if got := run("cpu.asimd=off"); !strings.Contains(got, " classify-neon=false") {
			t.Errorf("GODEBUG=cpu.asimd=off: %s", got)
		}
	default:
		t.Skip("no assembly on " + runtime.GOARCH)
	}
}
