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
	cmd, err := Self("-test.run=^TestSelf$", "-test.v")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "TESTEXEC_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if want := "child on " + runtime.GOARCH; !strings.Contains(string(out), want) {
		t.Fatalf("child printed %q, want a line %q", out, want)
	}
	w, _ := Wrapper()
	t.Logf("wrapper: %q", w)
}
