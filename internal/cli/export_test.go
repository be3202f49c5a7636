package cli

import "io"

// testStores are the Stores the tests' runs take (full.Stores: see
// stores_test.go, which cannot be imported here without a cycle).
var testStores Stores

// SetStores gives the tests' runs the Stores.
func SetStores(s Stores) { testStores = s }

// newTestEnv is newEnv with the tests' Stores.
func newTestEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	e := newEnv(stdin, stdout, stderr)
	e.stores = testStores
	return e
}

// run runs the command args give, as Main does, without the process's
// signals, with the tests' Stores.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newTestEnv(stdin, stdout, stderr).run(args)
}
