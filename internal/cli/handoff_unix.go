//go:build unix

package cli

import "syscall"

// execStores replaces this process with uriscan-stores; it returns only
// an error.
func execStores(path string, argv, env []string) error {
	return syscall.Exec(path, argv, env)
}
