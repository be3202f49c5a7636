//go:build !race

package cli

// raceEnabled: the race detector multiplies memory use.
const raceEnabled = false
