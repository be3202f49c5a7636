//go:build !race

package seen

// raceDetector: built with -race (see own).
const raceDetector = false
