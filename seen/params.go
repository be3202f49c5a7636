package seen

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Params is the caller's description of how the keys of a persistent set
// (Disk, Redis) are made, recorded in the store by the first writer and
// checked by every later one, so that runs that would make different keys
// for the same URI cannot mix them in one set. The names and values are
// the caller's; uriscan records, for example,
//
//	"key"   a fingerprint of the HighwayHash key (never the key itself)
//	"level" the normalization level
//
// Package seen adds its own entry "format", the store's layout version
// (for example "uriscan/seen disk v1"); a caller's Params must not contain
// that name.
//
// On open (DiskOptions.Params, RedisOptions.Params), with non-nil Params:
//
//   - a store with no parameter record that holds no key gets the given
//     Params (plus "format") recorded;
//   - a store whose record equals the given Params plus "format" opens;
//   - a store whose record differs is refused with a *ParamsError that
//     names every entry that differs;
//   - a store that holds keys but no parameter record (made by an earlier
//     version of package seen, or by a caller that gave nil Params) is
//     refused with an error wrapping ErrNoParams: nothing says how its keys
//     were made.
//
// Nil Params means neither record nor check: for callers that do not care,
// and to open a store whatever it records. An empty non-nil Params is
// recorded and checked like any other (it then records only "format").
type Params map[string]string

// ParamsFormat is the name of the entry package seen adds to Params: the
// store's layout version.
const ParamsFormat = "format"

// ErrNoParams is wrapped by the error OpenDisk and OpenRedis return when
// they are given Params and the store already holds keys but records no
// parameters.
var ErrNoParams = errors.New("seen: the store records no parameters")

// ParamsError is the error OpenDisk and OpenRedis return when the store
// was made with other Params than the ones given.
type ParamsError struct {
	// Store names the store, for example "disk set /var/lib/seen".
	Store string
	// Stored is the store's record, Given the Params this run asked for;
	// both include the "format" entry.
	Stored, Given Params
}

// Error names every entry that differs, sorted by name, in one line:
//
//	seen: disk set /d was made with key=1a2b, level=scheme; this run asks for key=9f8e, level=crawler
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
	return fmt.Sprintf("seen: %s was made with %s; this run asks for %s",
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

// withFormat returns a copy of p with the "format" entry set to format, or
// an error if p sets it itself.
func (p Params) withFormat(format string) (Params, error) {
	if _, ok := p[ParamsFormat]; ok {
		return nil, fmt.Errorf("seen: Params: the entry %q is reserved for package seen", ParamsFormat)
	}
	q := maps.Clone(p)
	if q == nil {
		q = Params{}
	}
	q[ParamsFormat] = format
	return q, nil
}

// encodeParams is the stored form of p: a JSON object with sorted names.
func encodeParams(p Params) []byte {
	b, err := json.Marshal(map[string]string(p))
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return b
}

// decodeParams parses a stored parameter record.
func decodeParams(b []byte) (Params, error) {
	var p map[string]string
	if err := json.Unmarshal(b, &p); err != nil || p == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("the parameter record %.80q is not a JSON object of strings: %v", b, err)
	}
	return p, nil
}

// checkParams compares a store's record with the given Params (both with
// "format").
func checkParams(store string, stored, given Params) error {
	if maps.Equal(stored, given) {
		return nil
	}
	return &ParamsError{Store: store, Stored: stored, Given: given}
}

// noParamsError is the error for a store that holds n keys and no record.
func noParamsError(store string, n int64, given Params) error {
	return &wrapped{
		msg: fmt.Sprintf("seen: %s holds %d keys but records no parameters (made by an earlier version, or opened without Params), so nothing says its keys were made like this run's (%s); use a new store, or open it without Params",
			store, n, paramsText(given)),
		errs: []error{ErrNoParams},
	}
}

// wrapped is an error with a message of its own that wraps errs, for
// errors.Is and errors.As.
type wrapped struct {
	msg  string
	errs []error
}

func (e *wrapped) Error() string   { return e.msg }
func (e *wrapped) Unwrap() []error { return e.errs }

// paramsText is p as sorted name=value pairs.
func paramsText(p Params) string {
	names := slices.Sorted(maps.Keys(p))
	parts := make([]string, len(names))
	for i, name := range names {
		parts[i] = paramEntry(p, name)
	}
	return strings.Join(parts, ", ")
}
