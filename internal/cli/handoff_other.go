//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execStores runs uriscan-stores as a child with this process's standard
// streams, and exits with its exit status; it returns only an error
// starting it. (No exec(2) to replace this process with it here.)
func execStores(path string, argv, env []string) error {
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		os.Exit(0)
	case errors.As(err, &ee) && ee.Exited():
		os.Exit(ee.ExitCode())
	case errors.As(err, &ee):
		os.Exit(exitUsage) // (killed: the child's signal is not ours to take)
	}
	return err
}
