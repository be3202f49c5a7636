package seen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/gotool"
)

// heavy are the packages a program that keeps its set in memory must not
// link: the persistent stores' dependencies.
var heavy = []string{
	"github.com/cockroachdb/", "github.com/redis/go-redis", "google.golang.org/protobuf",
	"github.com/gogo/protobuf", "github.com/getsentry/", "github.com/prometheus/",
}

// TestDependencyRule: package seen imports nothing beyond the standard
// library and golang.org/x/sys, and a program that uses only seen.Memory
// and urikey.Hasher (testdata/memonly) links neither Pebble nor
// go-redis nor what they bring, and builds under 5 MB; nor does package
// seen/keylog. The persistent stores are packages of their own
// (seen/keylog, seen/pebble, seen/redis).
func TestDependencyRule(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	for _, imp := range strings.Fields(gotool.Run(t, "list", "-f", `{{join .Imports " "}}`, ".")) {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") && !strings.HasPrefix(imp, "golang.org/x/sys/") {
			t.Errorf("package seen imports %s: only the standard library and golang.org/x/sys", imp)
		}
	}
	linked, deps := gotool.Linked(t, "./testdata/memonly", heavy...)
	for _, d := range linked {
		t.Errorf("a program with seen.Memory and urikey.Hasher links %s", d)
	}
	bin := filepath.Join(t.TempDir(), "memonly")
	gotool.Run(t, "build", "-o", bin, "./testdata/memonly")
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= 5<<20 {
		t.Errorf("a program with seen.Memory and urikey.Hasher is %d bytes, want under 5 MiB", fi.Size())
	}
	t.Logf("seen.Memory + urikey.Hasher: %d packages, %d bytes", deps, fi.Size())
	// The key log, a disk set, links none of them either.
	linked, deps = gotool.Linked(t, "./keylog", heavy...)
	for _, d := range linked {
		t.Errorf("package seen/keylog links %s", d)
	}
	t.Logf("seen/keylog: %d packages", deps)
}
