//go:build race

package main

// raceEnabled: the race detector multiplies memory use.
const raceEnabled = true
