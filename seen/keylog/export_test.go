package keylog

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

// NoMap returns a copy of o (nil: the zero Options) that keeps the log
// in memory instead of mapping it (the path of systems that map nothing).
func NoMap(o *Options) *Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.noMap = true
	return &c
}

// Mapped reports whether s's log is mapped (not a copy in memory).
func Mapped(s *Set) bool { return s.mapped }
