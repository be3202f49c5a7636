// Package store holds what the persistent seen-sets (seen/keylog,
// seen/pebble, seen/redis) share: the stored form of their Params, the
// checks of their Params and Stamps, and the disk sets' state file.
package store

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"github.com/uriscan/uriscan/seen"
)

// ErrNilParams is the error of a store opened with nil Params and without
// AnyParams.
var ErrNilParams = errors.New("no Params: a set kept across runs must record how its keys are made (urikey.Hasher.Params, which refuses a hash key drawn at random), or be opened with AnyParams to take it whatever it records")

// WithFormat returns a copy of p with the "format" entry set to format, or
// an error if p sets it itself.
func WithFormat(p seen.Params, format string) (seen.Params, error) {
	if _, ok := p[seen.ParamsFormat]; ok {
		return nil, fmt.Errorf("seen: Params: the entry %q is reserved for package seen", seen.ParamsFormat)
	}
	q := maps.Clone(p)
	if q == nil {
		q = seen.Params{}
	}
	q[seen.ParamsFormat] = format
	return q, nil
}

// EncodeParams is the stored form of p: a JSON object with sorted names.
func EncodeParams(p seen.Params) []byte {
	b, err := json.Marshal(map[string]string(p))
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return b
}

// DecodeParams parses a stored parameter record.
func DecodeParams(b []byte) (seen.Params, error) {
	var p map[string]string
	if err := json.Unmarshal(b, &p); err != nil || p == nil {
		if err == nil {
			err = errors.New("null")
		}
		return nil, fmt.Errorf("the parameter record %.80q is not a JSON object of strings: %v", b, err)
	}
	return p, nil
}

// CheckParams compares a store's record with the given Params (both with
// "format").
func CheckParams(store string, stored, given seen.Params) error {
	if maps.Equal(stored, given) {
		return nil
	}
	return &seen.ParamsError{Store: store, Stored: stored, Given: given}
}

// NoParamsError is the error for a store that holds n keys and no record.
func NoParamsError(store string, n int64, given seen.Params) error {
	return &Error{
		Msg: fmt.Sprintf("seen: %s holds %d keys but records no parameters (made by an earlier version, or opened without Params), so nothing says its keys were made like this run's (%s); use a new store, or open it with AnyParams to take it as it is",
			store, n, given),
		Errs: []error{seen.ErrNoParams},
	}
}

// Error is an error with a message of its own that wraps Errs, for
// errors.Is and errors.As.
type Error struct {
	Msg  string
	Errs []error
}

func (e *Error) Error() string   { return e.Msg }
func (e *Error) Unwrap() []error { return e.Errs }

// CheckStamp compares what a store holds now (id, count; -1: not
// counted) with want, and returns nil or a *seen.LostError.
func CheckStamp(store string, want seen.Stamp, id string, count int64) error {
	e := &seen.LostError{Store: store, Want: want, ID: id, Count: count}
	switch {
	case id == "" && want.ID != "":
		holds := ""
		if count >= 0 {
			holds = fmt.Sprintf(" and it holds %d keys", count)
		}
		e.Why = fmt.Sprintf("its identity record is gone%s, where %s was recorded with at least %d keys (the store was emptied, flushed, deleted or lost its data)", holds, want.ID, want.Count)
	case id != want.ID:
		e.Why = fmt.Sprintf("it is another store: its identity is %s, where %s was recorded (the store was deleted and made again, or replaced)", id, want.ID)
	case count >= 0 && count < want.Count:
		e.Why = fmt.Sprintf("it holds %d keys, where at least %d were recorded (it lost writes: restored from an older copy, restarted without persistence, keys deleted or evicted, or damaged)", count, want.Count)
	default:
		return nil
	}
	return e
}

// NewID returns a fresh store identity: 128 random bits in hex.
func NewID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b[:])
}
