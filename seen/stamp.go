package seen

import (
	"errors"
	"fmt"
)

// Stamp is what a persistent set (seen/disk, seen/redis) says about itself at one
// moment: who it is and how many keys it held at least. A caller that
// records what it did with a set (a checkpoint) records a Stamp with it,
// and hands it to Check when it comes back, so that a set that was
// emptied, replaced or lost writes in between is noticed instead of
// answering "new" for keys it had recorded.
type Stamp struct {
	// ID is the set's identity: 32 random hex digits recorded in the
	// store on its first use, beside its Params. A store made again
	// (deleted and created anew, a Redis server restarted empty) gets
	// another one.
	ID string `json:"id"`
	// Count is a lower bound of the number of keys in the set: for a
	// disk set the exact count, for a Redis set the count when it was opened plus
	// the keys this process added since (other writers may have added
	// more).
	Count int64 `json:"count"`
}

// Stamped is a Set that keeps an identity and a count of its keys: the
// disk and Redis sets. Stamp costs no round trip; Check compares the store as it is
// now with a Stamp taken before, and returns nil or a *LostError.
type Stamped interface {
	Set
	Stamp() Stamp
	Check(s Stamp) error
}

// ErrLost is wrapped by the errors that report a store that lost keys it
// had recorded, or that is not the store it was: a *LostError.
var ErrLost = errors.New("seen: the store lost keys it had recorded")

// LostError reports a persistent set that is not what it was: its
// identity changed or vanished (the store was deleted, emptied or
// replaced), or it holds fewer keys than it recorded before (it lost
// writes: a Redis server restarted from an old snapshot or without
// persistence, keys evicted or deleted, a damaged disk store). It wraps
// ErrLost.
type LostError struct {
	// Store names the set, for example "disk set /var/lib/seen".
	Store string
	// Want is what the set was known to be: its identity and at least
	// that many keys.
	Want Stamp
	// ID is the identity the store records now ("" for none), Count the
	// keys it holds now (-1 when not counted).
	ID    string
	Count int64
	// Why says in a few words what was found.
	Why string
}

func (e *LostError) Error() string {
	return fmt.Sprintf("seen: %s lost keys it had recorded: %s", e.Store, e.Why)
}

func (e *LostError) Unwrap() error { return ErrLost }
