// Package seen records which URIs a crawler has already met: a set of
// 128-bit keys that answers "is this one new?" and remembers it in the
// same step (Add, AddBatch), or in two steps for callers that must persist
// something in between (Contains, then Insert).
//
// # Keys
//
// A Key is the 128-bit keyed hash of a URI's canonical form (HighwayHash-128
// with a 32-byte key, see package urikey). Equal keys stand for
// equivalent URIs, up to a 2^-128 chance of collision. Because the hash is
// keyed, keys are uniformly distributed even for adversarial input, so the
// sets use key bits directly as table positions and shard numbers without
// hashing them again. Keys that are not uniformly distributed still work,
// only slower.
//
// # Implementations
//
// Every implementation satisfies Set and passes the shared test suite in
// package seen/settest:
//
//   - Memory (NewMemory), here: an open-addressing hash table in one
//     process. The fastest, and lost when the process ends. A caller that
//     knows about how many keys come sizes it for them (NewMemory's hint,
//     Grow): the table is then made once, on Linux in huge pages, instead
//     of doubling as keys come.
//   - package seen/keylog: on local disk, a log of the keys appended and
//     synced once per call, with an index in memory (10-21 bytes a key):
//     it survives restarts and crashes (a key once reported as new stays
//     recorded) at millions of keys a second.
//   - package seen/pebble: an embedded key-value store (CockroachDB's Pebble)
//     on local disk, with the same guarantees, for sets larger than
//     memory: a few bytes of memory a key, a few hundred thousand keys a
//     second.
//   - package seen/redis: a Redis or Valkey server, or a Redis Cluster,
//     shared by many machines through go-redis, with an atomic
//     check-and-add per key, keys spread over many hash slots, and
//     pipelined batches.
//
// Package seen imports nothing beyond the standard library, so a program
// that keeps its set in memory links neither Pebble nor go-redis; each
// persistent store is a package of its own, imported by those that use it.
//
// Persistent and shared sets only agree across runs and machines when every
// writer hashes with the same fixed HighwayHash key (and normalizes URIs
// the same way). Such a set records how its keys were made (Params,
// given as the Options.Params of seen/keylog, seen/pebble or seen/redis) and
// then refuses a run that would make them differently.
//
// # Two steps
//
// A caller that writes the new URIs somewhere must not lose any when it
// is killed between recording a key and writing its URI. Contains (look
// up, change nothing) and Insert (record, idempotent) let it write first
// and record after: look the batch up, write and sync the new lines, note
// a checkpoint, then Insert the keys; after a crash it redoes the last
// batch from the checkpoint, and Insert of keys already recorded is
// harmless. Package frontier does exactly this, over any Set: each URI's
// first occurrence written to a file exactly once across kills. A Redis set retries Contains and Insert on transient errors (they
// are idempotent) and never Add or AddBatch.
//
// # A store that forgets
//
// The two steps protect a caller against its own crash, not against a
// store that loses what it recorded: a Redis server restarted without
// persistence, a directory deleted or put back from an older copy, a
// damaged write-ahead log. The disk and Redis sets therefore keep an identity and
// a count of their keys (Stamped): Stamp is what the caller records with
// its checkpoint, and Check, when it comes back, returns a *LostError
// (ErrLost) if the store is not that one or holds fewer keys. Each store
// also checks itself where it can: a disk set against a state file in its
// directory, a Redis set in every pipeline and after every reconnect. See
// packages seen/keylog, seen/pebble and seen/redis.
//
// # Memory layout
//
// Memory keeps its keys in a power-of-two slice of 16-byte slots (two
// uint64 words, the key's bytes read little-endian), with no per-key
// allocation and no pointers for the garbage collector to scan. A key's
// home slot is its low 64 bits masked by the table size; collisions are
// resolved by linear probing (the next slot, wrapping around), so a probe
// sequence runs along cache lines of four slots. An all-zero slot is empty;
// the all-zero key itself is recorded in a separate flag. The table holds at
// most 3/4 of its slots, so it takes between 21.3 and 42.7 bytes per key
// (26.8 bytes per key at 10 million keys, in a table of 2^24 slots).
//
// When the table is full it is not rehashed all at once: Memory allocates
// the doubled table and then, on each following Add, moves 256 old slots
// into it, looking a key up in both tables meanwhile (the old table is
// only read, so its probe sequences stay intact). No single Add moves more
// than 256 keys, so growing a table of millions of keys causes no long
// pause; the Add that doubles the table also pays for allocating it (a
// make of up to hundreds of megabytes, which the Go runtime serves from
// zeroed pages). The old table is released when its last slot has moved,
// after 1/256 of its size in Adds, well before the new table fills up.
// While both tables exist the set uses up to 64 bytes per key.
//
// AddBatch is the fast path for large sets: it reads the home slots of 32
// keys before adding them, so their cache misses overlap instead of
// following one another; Contains and Insert do the same. Contains only
// reads: while the table migrates it looks a key up in both tables and
// moves nothing.
package seen

import "errors"

// Key is a 128-bit keyed hash of a canonical URI (HighwayHash-128). Every
// value, including the all-zero key, is a valid member.
type Key [16]byte

// ErrClosed is returned (possibly wrapped; test with errors.Is) by every
// operation on a Set after Close.
var ErrClosed = errors.New("seen: set is closed")

// ErrShortBatch is returned by AddBatch and Contains when their answer
// slice (isNew, has) is shorter than keys; nothing is added or looked up.
var ErrShortBatch = errors.New("seen: answer slice (isNew or has) shorter than keys")

// Set is a set of keys that only grows.
//
// Add records k and reports whether it was absent before (isNew). AddBatch
// is the same for many keys at once, for throughput: it sets isNew[i] for
// keys[i] exactly as a sequence of Add calls in order would, so a key that
// appears twice in one batch is new only at its first occurrence (if it was
// not already in the set). isNew must be at least len(keys) long, otherwise
// AddBatch returns ErrShortBatch and adds nothing. When Add or AddBatch
// returns any other error, the outcome for the keys involved is unknown:
// they may or may not have been recorded, and isNew is unspecified.
//
// Contains and Insert split AddBatch in two steps, for a caller that must
// make something durable between the check and the add (write its output,
// record a checkpoint) so that a crash at any point loses nothing:
//
//   - Contains sets has[i] to whether keys[i] is recorded, and changes
//     nothing. A key repeated in keys gets the same answer at each
//     occurrence. has must be at least len(keys) long, otherwise Contains
//     returns ErrShortBatch; elements of has past len(keys) are left
//     alone. After any other error has is unspecified.
//   - Insert records keys, answering nothing. It is idempotent: inserting
//     keys that are already recorded (all of them, some, or the same key
//     twice in one batch) changes nothing, and Len counts each distinct
//     key once. So after an error, or a crash in the middle of an Insert,
//     calling it again with the same keys is harmless and completes it.
//
// Both are safe to retry. Unlike AddBatch, the pair is not one atomic
// step: two writers that share a set (Redis) may both find a key absent
// and both insert it; which of them reports it new is theirs to settle.
//
// Len returns the number of distinct keys recorded. Close releases the set's
// resources; afterwards Add, AddBatch, Contains and Insert return ErrClosed,
// Len must not panic, and a second Close returns nil or ErrClosed.
//
// Concurrency is the implementation's to document. Memory is not safe for
// concurrent use: no method may run at the same time as another on the same
// Memory, Len included. To use several cores, shard keys over one Memory per
// goroutine (any key bits make a uniform shard number).
type Set interface {
	Add(k Key) (isNew bool, err error)
	AddBatch(keys []Key, isNew []bool) error
	Contains(keys []Key, has []bool) error
	Insert(keys []Key) error
	Len() int64
	Close() error
}
