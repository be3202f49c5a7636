package seen

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
)

// Stamp is what a persistent set (seen/pebble, seen/redis) says about itself at one
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
	// Store names the set, for example "key log /var/lib/seen".
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

// Commit is how far a run that writes into a persistent set has gone: a
// frontier.Log's run (its checkpoint names it) and the number of its last
// batch that began to insert keys. The runs that fill one set in turn, or
// share it (Redis), each have their own.
type Commit struct {
	// Run is the run's identity: 32 lowercase hex digits (NewRunID).
	Run string
	// Seq is the number of the run's batch, from 1, counting only the
	// batches that insert keys.
	Seq int64
}

// NewRunID returns a fresh run identity: 128 random bits in hex.
func NewRunID() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand, Go 1.24+)
	return hex.EncodeToString(b[:])
}

// ValidRunID reports whether id is a run identity: 32 lowercase hex
// digits.
func ValidRunID(id string) bool {
	if len(id) != 32 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// ErrRunID is wrapped by the error of InsertCommit and Committed for a
// Commit.Run that is not 32 lowercase hex digits.
var ErrRunID = errors.New("seen: a run identity is 32 lowercase hex digits")

// Committer is a Stamped set that keeps, for each run that writes into it
// through a checkpoint (package frontier), the number of the run's last
// batch that began to insert keys. A checkpoint records that number too,
// so that a checkpoint put back from an older copy (or a store put back
// from one) is told apart from a kill between the checkpoint and the
// insert: see frontier's package doc. Every persistent set of this
// module (seen/keylog, seen/pebble, seen/redis) is one.
type Committer interface {
	Stamped
	// InsertCommit records c, then inserts keys as Insert does (none is
	// fine): whatever a crash interrupts, when any of keys is recorded
	// so is c. A later InsertCommit of the same run replaces its number
	// (the caller never lowers it). The record is not a key: Len and
	// Stamp do not count it.
	InsertCommit(c Commit, keys []Key) error
	// Committed returns the Seq recorded last for run, 0 when none.
	Committed(run string) (int64, error)
}
