package keylog

import "time"

// IndexBytes is the memory of s's index.
func IndexBytes(s *Set) int64 {
	n := int64(len(s.x.slots)) * 8
	if s.old != nil {
		n += int64(len(s.old.slots)) * 8
	}
	return n
}

// Dir is the directory s was opened in, as given.
func Dir(s *Set) string { return s.dir }

// Migrating reports whether s is moving keys from an old index.
func Migrating(s *Set) bool { return s.old != nil }

// Confirmed is the number of fingerprint matches s read back from its log.
func Confirmed(s *Set) int64 { return s.stats.confirmed }

// Rebuilt is the number of times s built its index.
func Rebuilt(s *Set) int64 { return s.stats.rebuilt }

// SetStateEvery sets how often commits refresh the state file (for the
// tests), returning a function that restores it.
func SetStateEvery(d time.Duration) func() {
	old := stateEvery
	stateEvery = d
	return func() { stateEvery = old }
}

// SetNoMap makes the sets opened from now on keep a copy of their log in
// memory instead of mapping it (the path of systems that map nothing),
// returning a function that restores the default.
func SetNoMap() func() {
	noMap = true
	return func() { noMap = false }
}
