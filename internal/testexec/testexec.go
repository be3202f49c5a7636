// Package testexec starts a test binary again as a child process (a crash
// test's victim, say) the way the go command started the test binary
// itself, so that such tests also run where the binary is for another
// architecture and runs under an emulator.
//
// `go test -exec qemu-aarch64-static` runs the arm64 test binary through
// qemu, but a child started with exec.Command(os.Args[0]) is handed to the
// kernel directly, which runs it only where binfmt_misc has qemu-aarch64
// registered (a machine set up by hand). Self runs the child through the
// same wrapper instead:
//
//   - URISCAN_TEST_EXEC, when set, is the wrapper command (split at
//     spaces), as given to go test -exec (the Makefile's arm64 leg sets it);
//   - otherwise, when the kernel refuses to execute the test binary
//     (ENOEXEC: no binfmt entry for its architecture), the wrapper is
//     qemu-ARCH-static, or qemu-ARCH, found on PATH;
//   - otherwise the binary runs directly.
package testexec

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// EnvWrapper names the variable that gives the wrapper explicitly.
const EnvWrapper = "URISCAN_TEST_EXEC"

// qemuArch maps GOARCH to the name QEMU's user-mode emulator uses.
var qemuArch = map[string]string{
	"arm64": "aarch64", "arm": "arm", "amd64": "x86_64", "386": "i386",
	"ppc64le": "ppc64le", "ppc64": "ppc64", "s390x": "s390x", "riscv64": "riscv64",
	"mips64le": "mips64el", "mips64": "mips64", "loong64": "loongarch64",
}

var (
	once    sync.Once
	wrapper []string
	wrapErr error
)

// Wrapper returns the command that the test binary must be run through
// (nil: run it directly), or why none could be found.
func Wrapper() ([]string, error) {
	once.Do(func() { wrapper, wrapErr = find() })
	return wrapper, wrapErr
}

func find() ([]string, error) {
	if w := strings.Fields(os.Getenv(EnvWrapper)); len(w) > 0 {
		return w, nil
	}
	// Can the kernel execute this binary? Start it with a pattern that
	// matches no test and stop it at once: only Start's error matters.
	probe := exec.Command(os.Args[0], "-test.run=^$")
	err := probe.Start()
	if err == nil {
		probe.Process.Kill()
		probe.Wait()
		return nil, nil
	}
	if !errors.Is(err, syscall.ENOEXEC) {
		return nil, fmt.Errorf("testexec: cannot start the test binary %s: %w", os.Args[0], err)
	}
	arch := qemuArch[runtime.GOARCH]
	for _, name := range []string{"qemu-" + arch + "-static", "qemu-" + arch} {
		if path, lerr := exec.LookPath(name); lerr == nil {
			return []string{path}, nil
		}
	}
	return nil, fmt.Errorf("testexec: the kernel cannot execute this %s test binary (%v), no qemu-%s-static on PATH, and %s is not set to the command go test -exec used",
		runtime.GOARCH, err, arch, EnvWrapper)
}

// Self returns a command that runs the test binary (os.Args[0]) again with
// args, through the wrapper when one is needed.
func Self(args ...string) (*exec.Cmd, error) {
	w, err := Wrapper()
	if err != nil {
		return nil, err
	}
	return command(w, args), nil
}

func command(w []string, args []string) *exec.Cmd {
	if len(w) == 0 {
		return exec.Command(os.Args[0], args...)
	}
	argv := append(append(w[1:len(w):len(w)], os.Args[0]), args...)
	return exec.Command(w[0], argv...)
}

// Child is a test binary started again to run one test (a crash test's
// victim): its standard output to read as it writes, its standard error
// kept for the parent's messages.
type Child struct {
	Cmd    *exec.Cmd
	Stdout io.ReadCloser
	Stderr *strings.Builder
}

// Start starts this test binary again (Self) running only the test named
// test, with the environment of this process and env ("NAME=value"), and
// fails tb if it cannot.
func Start(tb testing.TB, test string, env ...string) *Child {
	tb.Helper()
	cmd, err := Self("-test.run=^" + test + "$")
	if err != nil {
		tb.Fatal(err)
	}
	cmd.Env = append(os.Environ(), env...)
	c := &Child{Cmd: cmd, Stderr: new(strings.Builder)}
	cmd.Stderr = c.Stderr
	if c.Stdout, err = cmd.StdoutPipe(); err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	return c
}
