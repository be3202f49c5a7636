package seen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// heavy are the packages a program that keeps its set in memory must not
// link: the persistent stores' dependencies.
var heavy = []string{
	"github.com/cockroachdb/", "github.com/redis/go-redis", "google.golang.org/protobuf",
	"github.com/gogo/protobuf", "github.com/getsentry/", "github.com/prometheus/",
}

// TestDependencyRule: package seen imports nothing beyond the standard
// library and golang.org/x/sys, and a program that uses only seen.Memory
// and normalize.Hasher (testdata/memonly) links neither Pebble nor
// go-redis nor what they bring, and builds under 5 MB. The persistent
// stores are packages of their own (seen/disk, seen/redis).
func TestDependencyRule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		goCmd = "go"
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goCmd, args...)
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	for _, imp := range strings.Fields(run("list", "-f", `{{join .Imports " "}}`, ".")) {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !strings.HasPrefix(imp, "golang.org/x/sys/") {
			t.Errorf("package seen imports %s: only the standard library and golang.org/x/sys", imp)
		}
	}
	deps := strings.Fields(run("list", "-deps", "./testdata/memonly"))
	for _, d := range deps {
		for _, h := range heavy {
			if strings.HasPrefix(d, h) {
				t.Errorf("a program with seen.Memory and normalize.Hasher links %s", d)
			}
		}
	}
	bin := filepath.Join(t.TempDir(), "memonly")
	run("build", "-o", bin, "./testdata/memonly")
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= 5<<20 {
		t.Errorf("a program with seen.Memory and normalize.Hasher is %d bytes, want under 5 MiB", fi.Size())
	}
	t.Logf("seen.Memory + normalize.Hasher: %d packages, %d bytes", len(deps), fi.Size())
}
