package testexec

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
)

// TestSelf starts this test binary again through Self and checks that the
// child ran (under the arm64 leg: through qemu, with no binfmt entry).
func TestSelf(t *testing.T) {
	if os.Getenv("TESTEXEC_CHILD") != "" {
		fmt.Println("child on", runtime.GOARCH)
		return
	}
	w, err := Wrapper()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper: %q", w)
	runChild(t, w)
	// The same without URISCAN_TEST_EXEC (which the arm64 leg sets): the
	// wrapper is found from the kernel's refusal alone.
	t.Setenv(EnvWrapper, "")
	w, err = find()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("wrapper found without %s: %q", EnvWrapper, w)
	runChild(t, w)
}

func runChild(t *testing.T, w []string) {
	t.Helper()
	cmd := command(w, []string{"-test.run=^TestSelf$", "-test.v"})
	cmd.Env = append(os.Environ(), "TESTEXEC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := "child on " + runtime.GOARCH; !strings.Contains(string(out), want) {
		t.Fatalf("child printed %q, want a line %q", out, want)
	}
}
