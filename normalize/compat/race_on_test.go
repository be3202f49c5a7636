//go:build race

package compat

// raceEnabled: under the race detector sync.Pool drops what is put in it
// at random, so allocation counts that rely on a pool do not hold.
const raceEnabled = true
