package seen

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Params describes how the keys of a persistent set (packages seen/pebble
// and seen/redis) are made. The first writer records it in the store and
// every later one must give the same, so that runs that would make
// different keys for the same URI cannot mix them in one set. Make it with
// urikey.Hasher.Params, which names everything that changes a key; the
// command uriscan dedup records exactly that, so a set written by either
// is accepted by the other. Its entries are, for example,
//
//	"key-fingerprint"  a keyed hash of a fixed string, never the key itself
//	"level"            the normalization level ("scheme", "crawler", ...)
//	"passwords"        "redacted": keys of URIs with their password redacted
//	"heuristics", "strip-params", "dot-segments", "idna", "ipv6", "grammar"
//
// The stores add their own entry "format", their layout version (for
// example "uriscan/seen disk v1"); a caller's Params must not contain that
// name.
//
// When a store is opened with non-nil Params:
//
//   - a store with no parameter record that holds no key gets the given
//     Params (plus "format") recorded;
//   - a store whose record equals the given Params plus "format" opens;
//   - a store whose record differs is refused with a *ParamsError that
//     names every entry that differs;
//   - a store that holds keys but no parameter record (made by an earlier
//     version, or opened without Params) is refused with an error wrapping
//     ErrNoParams: nothing says how its keys were made.
//
// The stores refuse nil Params unless their options say AnyParams: a set
// that records nothing cannot tell a run whose keys differ (another hash
// key, a random one, another level) from its own. An empty non-nil Params
// is recorded and checked like any other (it then records only "format").
type Params map[string]string

// ParamsFormat is the name of the entry package seen adds to Params: the
// store's layout version.
const ParamsFormat = "format"

// ErrNoParams is wrapped by the error a store's Open returns when it is
// given Params and the store already holds keys but records no parameters.
var ErrNoParams = errors.New("seen: the store records no parameters")

// ParamsError is the error a store's Open returns when the store was made
// with other Params than the ones given.
type ParamsError struct {
	// Store names the store, for example "key log /var/lib/seen".
	Store string
	// Stored is the store's record, Given the Params this run asked for;
	// both include the "format" entry.
	Stored, Given Params
}

// Error names every entry that differs, sorted by name, in one line:
//
//	seen: key log /d was made with key-fingerprint=1a2b, level=scheme; this run asks for key-fingerprint=9f8e, level=crawler: open it with what it was made with, or use another set
//
// An entry present on one side only is written "name unset" on the other.
// Values with spaces, quotes or punctuation other than . / : - _ are
// quoted (Go syntax).
func (e *ParamsError) Error() string {
	var stored, given []string
	for _, name := range diffNames(e.Stored, e.Given) {
		stored = append(stored, paramEntry(e.Stored, name))
		given = append(given, paramEntry(e.Given, name))
	}
	if len(stored) == 0 {
		return fmt.Sprintf("seen: %s was made with other parameters", e.Store)
	}
	return fmt.Sprintf("seen: %s was made with %s; this run asks for %s: open it with what it was made with, or use another set",
		e.Store, strings.Join(stored, ", "), strings.Join(given, ", "))
}

// diffNames returns the sorted names whose entries differ between a and b.
func diffNames(a, b Params) []string {
	var names []string
	for name, v := range a {
		if w, ok := b[name]; !ok || w != v {
			names = append(names, name)
		}
	}
	for name := range b {
		if _, ok := a[name]; !ok {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

func paramEntry(p Params, name string) string {
	v, ok := p[name]
	if !ok {
		return paramText(name) + " unset"
	}
	return paramText(name) + "=" + paramText(v)
}

// paramText quotes s unless it is made only of letters, digits and . / : - _.
func paramText(s string) string {
	plain := s != ""
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("./:-_", c)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return strconv.Quote(s)
}

// String is p as sorted name=value pairs, comma-separated; values with
// spaces, quotes or punctuation other than . / : - _ are quoted (Go
// syntax).
func (p Params) String() string {
	names := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = paramEntry(p, name)
	}
	return strings.Join(parts, ", ")
}
