package domain

import (
	"hash/maphash"
	"strings"
)

// cacheSize is how many hosts a Cache remembers (direct-mapped: a host
// replaces the one in its slot).
const cacheSize = 4096

// A Cache is Split with a memory of the hosts it split: a host seen before
// (and not since pushed out of its slot by another) costs a hash and a
// compare, and no allocation. Log lines and crawl frontiers repeat hosts
// far more than they add new ones. A Cache is for one goroutine; the zero
// Cache is not ready: use NewCache.
type Cache struct {
	rules Rules
	seed  maphash.Seed
	slots [cacheSize]cacheSlot
}

type cacheSlot struct {
	host string // as given to Split, trailing dot removed; "" when free
	n    int32  // its public suffix's length; -1: not a domain name
}

// NewCache returns an empty Cache that splits under rules.
func NewCache(rules Rules) *Cache {
	return &Cache{rules: rules, seed: maphash.MakeSeed()}
}

// Split is Split(host, rules) for the Cache's rules.
func (c *Cache) Split(host string) (Parts, bool) {
	h := host
	if n := len(h); n > 0 && h[n-1] == '.' {
		h = h[:n-1]
	}
	if h == "" || h[len(h)-1] == '.' {
		return Parts{}, false // (Split strips one dot only)
	}
	e := &c.slots[maphash.String(c.seed, h)%cacheSize]
	if e.host != h {
		e.host, e.n = strings.Clone(h), -1
		if p, _ := Split(h, c.rules); p.Suffix != "" {
			e.n = int32(len(p.Suffix))
		}
	}
	if e.n < 0 {
		return Parts{}, false
	}
	return cut(h, int(e.n))
}

// NewSplitFunc returns the Split of a new Cache under rules as a function
// (format.SplitFunc's signature): one per goroutine.
func NewSplitFunc(rules Rules) func(host string) (subdomain, registrable, suffix string, ok bool) {
	c := NewCache(rules)
	return func(host string) (string, string, string, bool) {
		p, ok := c.Split(host)
		return p.Subdomain, p.Registrable, p.Suffix, ok
	}
}
