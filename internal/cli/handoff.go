package cli

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// storesName is the binary with the Stores linked in (cmd/uriscan-stores).
const storesName = "uriscan-stores"

// envStores, when set, is the path of uriscan-stores.
const envStores = "URISCAN_STORES"

// envHandedOff is set in the environment of a run handed off, so that a
// uriscan-stores that is a lean uriscan after all is an error, not a loop.
const envHandedOff = "URISCAN_HANDED_OFF"

// handOff passes a run that needs what this binary does not link (what:
// "dedup --store disk:...", "cpu") to uriscan-stores, the same command
// with the Stores linked in, with the same arguments, environment and
// standard streams: on unix it replaces this process (execve), elsewhere
// it runs as a child whose exit status this process exits with. It
// returns only when that cannot be done, with exit status 2 and the
// reason on standard error. The lean binary calls it once its flags
// have parsed and before it reads any input, so that usage errors are
// its own; uriscan-stores never calls it.
func (e *env) handOff(what string) int {
	if !e.process || e.stopped() {
		// (A test's in-process run links the Stores, so only a real
		// process gets here; a signal before the hand-off stops it.)
		return e.storesMissing(what, errors.New("this is not the uriscan process"))
	}
	path, err := findStores()
	if err == nil && os.Getenv(envHandedOff) != "" {
		err = errors.New(path + " does not link them either: it is a uriscan, not a uriscan-stores")
	}
	if err != nil {
		return e.storesMissing(what, err)
	}
	e.prog.finish() // (its goroutine; a bar drawn is cleared)
	e.prog = nil
	err = execStores(path, os.Args, append(os.Environ(), envHandedOff+"=1"))
	return e.storesMissing(what, errors.New("running "+path+": "+err.Error()))
}

// findStores returns the path of uriscan-stores: $URISCAN_STORES if set,
// else the one beside this executable (symbolic links resolved), else
// the one on $PATH.
func findStores() (string, error) {
	if p := os.Getenv(envStores); p != "" {
		if _, err := os.Stat(p); err != nil {
			var pe *os.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return "", errors.New("$" + envStores + " is " + p + ": " + err.Error())
		}
		return p, nil
	}
	name := storesName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	beside := ""
	if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		beside = filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(storesName); err == nil {
		return p, nil
	}
	if beside != "" {
		return "", errors.New("it is neither beside this uriscan (" + beside + ") nor on $PATH")
	}
	return "", errors.New("it is not on $PATH")
}

// storesMissing reports that what needs uriscan-stores and err stopped
// it from running, with how to install it, and returns exitUsage.
func (e *env) storesMissing(what string, err error) int {
	e.errw.WriteString("uriscan: " + what + " needs " + storesName + " (uriscan with the disk and Redis stores and the CPU report linked in), and " + err.Error() + "\n" +
		"uriscan: install it beside uriscan (from a clone: make install, or go install ./cmd/...; once the module is published: go install github.com/uriscan/uriscan/cmd/" + storesName + "@latest), or set $" + envStores + " to its path\n")
	return exitUsage
}
