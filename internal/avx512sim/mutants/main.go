// Command mutants shows that the interpreted AVX-512 kernel test is not
// vacuous: it copies the module, breaks classify_avx512_amd64.s in one way per
// mutant (the ways a real mistake would take), runs the interpreter tests
// on each copy, and fails unless every mutant makes them fail while the
// unchanged copy passes. `make test-avx512-mutants` runs it (CI too).
//
//	go run ./internal/avx512sim/mutants [-v]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

const (
	kernelFile = "classify_avx512_amd64.s"
	testRun    = "^TestAVX512Interpreted"
)

// mutants are single edits of the kernel. Each must change exactly one
// place of kernelFile.
var mutants = []struct{ name, old, new string }{
	{"swap the VPERMI2B tables (block loop)", "\tVPERMI2B       Z31, Z30, Z0\n", "\tVPERMI2B       Z30, Z31, Z0\n"},
	{"swap the VPERMI2B tables (tail)", "\tVPERMI2B.Z     Z31, Z30, K5, Z0\n", "\tVPERMI2B.Z     Z30, Z31, K5, Z0\n"},
	{"drop the VPMINUB that maps bytes >= 0x80 to DEL (block loop)", "\tVPMINUB        (SI), Z29, Z0\n", "\tVMOVDQU8       (SI), Z0\n"},
	{"drop the VPMINUB (tail)", "\tVPMINUB        Z29, Z0, Z0\n", ""},
	{"drop the bit reversal (block loop)", "\tVPERMI2B       Z31, Z30, Z0\n\tVGF2P8AFFINEQB $0, Z0, Z28, Z0\n\tVGF2P8AFFINEQB $0, Z28, Z0, Z0\n", "\tVPERMI2B       Z31, Z30, Z0\n\tVGF2P8AFFINEQB $0, Z0, Z28, Z0\n"},
	{"swap matrix and vector of the transpose (block loop)", "\tVPERMI2B       Z31, Z30, Z0\n\tVGF2P8AFFINEQB $0, Z0, Z28, Z0\n", "\tVPERMI2B       Z31, Z30, Z0\n\tVGF2P8AFFINEQB $0, Z28, Z0, Z0\n"},
	{"XOR a constant into the transpose (tail)", "\tVPERMI2B.Z     Z31, Z30, K5, Z0\n\tVGF2P8AFFINEQB $0, Z0, Z28, Z0\n", "\tVPERMI2B.Z     Z31, Z30, K5, Z0\n\tVGF2P8AFFINEQB $1, Z0, Z28, Z0\n"},
	{"gather with the wrong indices (tail)", "\tVPERMB         Z0, Z27, Z0\n\tVMOVDQU64      Z0, K4, (DI)\n\ndone:", "\tVPERMB         Z0, Z28, Z0\n\tVMOVDQU64      Z0, K4, (DI)\n\ndone:"},
	{"keep the classes past the tail (unmasked lookup)", "\tVPERMI2B.Z     Z31, Z30, K5, Z0\n", "\tVPERMI2B       Z31, Z30, Z0\n"},
	{"make the tail load unmasked", "\tVMOVDQU8.Z     (SI), K5, Z0\n", "\tVMOVDQU8       (SI), Z0\n"},
	{"store six qwords, past the last blockMasks", "$((1<<(blockMasks__size/8))-1)", "$((1<<(blockMasks__size/8+1))-1)"},
	{"read the last block one byte further (tail mask 1<<(n+1)-1)", "\tSHLQ  CX, AX\n\tNOTQ  AX\n", "\tSHLQ  CX, AX\n\tSHLQ  $1, AX\n\tNOTQ  AX\n"},
}

var failLine = regexp.MustCompile(`(?m)^\s+classify_avx512sim_test\.go:\d+: (.*)$`)

func main() {
	verbose := flag.Bool("v", false, "print each mutant's test output")
	flag.Parse()
	root, err := moduleRoot()
	if err != nil {
		fatal(err)
	}
	orig, err := os.ReadFile(filepath.Join(root, kernelFile))
	if err != nil {
		fatal(err)
	}
	failed := false
	// The unchanged kernel first: the tests must pass on a plain copy.
	out, ok, err := runCopy(root, kernelFile, orig)
	if err != nil {
		fatal(err)
	}
	if !ok {
		fmt.Printf("FAIL  control (unchanged kernel): the tests fail on an unmutated copy\n%s\n", out)
		os.Exit(1)
	}
	fmt.Println("ok    control: the unchanged kernel passes")
	for _, m := range mutants {
		if n := bytes.Count(orig, []byte(m.old)); n != 1 {
			fmt.Printf("FAIL  %s: the text to change occurs %d times in %s (want 1): update the mutant\n", m.name, n, kernelFile)
			failed = true
			continue
		}
		src := bytes.Replace(orig, []byte(m.old), []byte(m.new), 1)
		start := time.Now()
		out, ok, err := runCopy(root, kernelFile, src)
		if err != nil {
			fatal(err)
		}
		switch {
		case ok:
			fmt.Printf("FAIL  %s: the mutant SURVIVED (the interpreter tests passed)\n", m.name)
			failed = true
		case !strings.Contains(out, "--- FAIL: TestAVX512Interpreted"):
			fmt.Printf("FAIL  %s: go test failed, but not in the interpreter tests (build error?)\n%s\n", m.name, out)
			failed = true
		default:
			why := "(no message)"
			for _, mm := range failLine.FindAllStringSubmatch(out, -1) {
				if !strings.Contains(mm[1], " instructions at ") { // the log line
					why = mm[1]
					break
				}
			}
			if len(why) > 200 {
				why = why[:200] + "..."
			}
			fmt.Printf("ok    %s: killed in %.0fs: %s\n", m.name, time.Since(start).Seconds(), why)
		}
		if *verbose {
			fmt.Println(out)
		}
	}
	if failed {
		os.Exit(1)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mutants:", err)
	os.Exit(2)
}

// moduleRoot is the directory of the uriscan go.mod, from the working
// directory up.
func moduleRoot() (string, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/uriscan/uriscan\n")) {
			return d, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", fmt.Errorf("not inside the uriscan module")
		}
		d = up
	}
}

// runCopy copies the module (without .git and the bench module) to a
// temporary directory, writes file with content, and runs the
// interpreter tests there. It reports their output and whether they passed.
func runCopy(root, file string, content []byte) (string, bool, error) {
	tmp, err := os.MkdirTemp("", "uriscan-mutant")
	if err != nil {
		return "", false, err
	}
	defer os.RemoveAll(tmp)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			if rel == ".git" || rel == "bench" || strings.HasPrefix(d.Name(), ".") && rel != "." {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(tmp, rel), 0o755)
		}
		if !d.Type().IsRegular() || !(strings.HasSuffix(p, ".go") || strings.HasSuffix(p, ".s") || strings.HasSuffix(p, ".h") || rel == "go.mod" || rel == "go.sum") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(tmp, rel), b, 0o644)
	})
	if err != nil {
		return "", false, err
	}
	if err := os.WriteFile(filepath.Join(tmp, file), content, 0o644); err != nil {
		return "", false, err
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", testRun, ".")
	cmd.Dir = tmp
	out, err := cmd.CombinedOutput()
	if _, isExit := err.(*exec.ExitError); err != nil && !isExit {
		return "", false, err
	}
	return string(out), err == nil, nil
}
