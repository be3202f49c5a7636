// Package gotool runs the go command for the tests that check what a
// program links (go list -deps) or run the binaries it builds.
package gotool

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// Run runs the go command of the toolchain that built the test (the one
// on PATH if that is gone) with args, in the test's directory, and
// returns its combined output; an error fails the test.
func Run(t testing.TB, args ...string) string {
	t.Helper()
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	cmd := exec.Command(goCmd, args...)
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// Linked returns the packages pkg links (go list -deps) whose import
// paths start with one of prefixes, and how many it links in all.
func Linked(t testing.TB, pkg string, prefixes ...string) (matched []string, all int) {
	t.Helper()
	deps := strings.Fields(Run(t, "list", "-deps", pkg))
	for _, d := range deps {
		for _, p := range prefixes {
			if strings.HasPrefix(d, p) {
				matched = append(matched, d)
				break
			}
		}
	}
	return matched, len(deps)
}
