// Package pebble is a seen-set kept on local disk in an embedded Pebble
// store (github.com/cockroachdb/pebble/v2), one directory per set, for
// sets larger than memory (the key log, seen/keylog, keeps an index in
// memory): it survives restarts, crashes and a full disk, and tells when
// its store was deleted, replaced or damaged. See Set. Earlier versions
// called it seen/disk; its stores are the same. uriscan's command links
// it only when built with the pebble tag.
package pebble

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/internal/store"
)

// Set is a seen.Set kept on local disk in an embedded Pebble store
// (github.com/cockroachdb/pebble/v2), one directory per set. It survives
// restarts: opening the same directory again gives back every key added
// before and the same Len.
//
// # Durability
//
// A key that Add or AddBatch reported as new, or that Insert was given, is
// durable before the call returns: the new keys of one call, together
// with the updated count, are written in one Pebble batch committed with
// pebble.Sync, that is appended to the write-ahead log and fsync'ed. So
// what was reported as new or inserted stays recorded through a crash of
// the process, of the operating system or a power loss (as far as the disk
// honours fsync). A call whose keys were all recorded before writes
// nothing and does not sync. InsertCommit (seen.Committer) puts its run's
// commit record into the same batch as its new keys, so that no crash
// leaves one of them without it, and writes and syncs a batch of the
// record alone when no key is new. A call that returns an error may or
// may not have recorded its keys; the batch is atomic, so either all of
// its new keys and the count are recorded or none, and Len stays exact:
// Insert too looks every key up first and counts only the ones it adds.
//
// The cost is one fsync per call that has at least one new key, typically
// from about 50 µs (a fast NVMe drive) to several milliseconds (network
// or rotating disks). Add is a batch of one and pays it for every new key,
// so bulk work should go through AddBatch with batches of hundreds to
// thousands of keys, which spreads one fsync over the whole batch.
// Options.NoSync trades the guarantee for speed: writes still go
// through the write-ahead log, so they survive a crash of the process but
// may be lost (all of them after some point, never a random subset) when
// the operating system crashes or power fails.
//
// # Identity, count and damage
//
// A set records, on its first use, a random identity (see seen.Stamp) beside
// its count and seen.Params, inside the store, and keeps a small file of its
// own in the directory, uriscan-seen.json, with the identity, a count
// the store held at least (written at open, at Close, and after a commit
// when the last one is a second old) and whether a process has the set
// open. Open checks the store against that file: a Pebble store that
// is gone (its MANIFEST marker deleted), that is another set, that holds
// fewer keys than the file records (a damaged or truncated write-ahead
// log, a copy restored from before) or whose file is gone while it holds
// keys is refused with a *seen.LostError (seen.ErrLost); a store Pebble cannot open
// (a damaged MANIFEST, a missing table) with an error that says it is
// damaged. After a process that did not close the set (a crash, kill -9),
// Open also counts the keys (a scan of the store, about 0.09 s per
// million keys here) and refuses a store whose count record disagrees
// with them. seen.Stamp and Check carry the same checks across runs for a
// caller that records a seen.Stamp (a checkpoint), which also sees a directory
// deleted and made anew. Close flushes the memtable to a table first, so a
// set closed cleanly needs no write-ahead log to be read back. Damage that
// no check can see is listed in docs/dedup.md's durability section.
//
// # Failures
//
// A failure of the store (a full disk, a failed flush or MANIFEST write,
// corruption found in a background compaction) never ends the process:
// Pebble's fatal errors, its background errors and its reports of data
// corruption stop the set instead. Every call that is running or made
// afterwards returns the error (wrapped in "seen: pebble set DIR: ..."),
// Close returns it without flushing, and the directory stays locked until
// the process ends. To achieve this, every call into Pebble runs on one
// goroutine of the set's own, which a fatal error ends, and the caller
// waits for either its answer or the failure, so a write stalled behind a
// flush that can never succeed returns too. A commit also stops the set,
// with nothing written, when the filesystem has less free space than a new
// write-ahead log needs (1.1 times the memtable size, plus 1 MiB): Pebble
// panics where it cannot make one, with its mutex released, which no
// recover can catch. That panic, on an I/O error of the write-ahead log as
// Pebble switches to a new one, and a panic inside one of Pebble's own
// background goroutines still end the process.
//
// The write-ahead log and memtables are sized to the data (4 MiB
// memtables by default, so about 5 MB of preallocated write-ahead log
// each), so a set's disk footprint is proportional to its keys, plus about
// 10-15 MB; see docs/performance.md for bytes per key.
//
// # Speed
//
// A key is looked up in the store at most once per batch, and a new key
// mostly not at all:
//   - The set keeps an in-memory Bloom filter of its keys
//     (github.com/bits-and-blooms/bloom, about 12.4 bits per key at its
//     fullest; see Options.FilterRate): a key it has not seen is known to
//     be new without touching Pebble. Close saves it beside the store
//     (uriscan-seen.bloom) and Open reads it back when it matches the
//     store; otherwise Open builds it from a scan of the store (about 0.1
//     s per million keys).
//   - The keys the filter may hold are looked up in key order with one
//     Pebble iterator per call, whose seeks move forward through the same
//     blocks and files.
//   - Insert (and InsertCommit) of keys the last Contains found absent (a
//     frontier's Contains then Insert of the new ones) looks none of them
//     up again, until the next commit of new keys.
//
// The README gives keys per second at 10^5 to 10^8 keys
// (BenchmarkFrontier in package seen/keylog, which runs this set beside
// the key log).
//
// # Concurrency
//
// A Set is safe for concurrent use. Add, AddBatch, Contains, Insert,
// InsertCommit and Committed are serialized by a mutex held across the
// look-ups and the synced commit (the check and the add must be one step
// for isNew and the count to be right), so concurrent callers get no more
// throughput than one caller with larger batches. Len may be called at any time and does not wait
// for a running call. Only one process may open a directory at a time:
// the set locks it (the file uriscan-seen.lock, before it reads or writes
// anything else there) and so does Pebble, and a second Open of the same
// directory, from another process or from this one, fails with an error
// wrapping ErrLocked.
//
// # Layout
//
// Each key is stored as the Pebble key 'k' followed by its 16 bytes, with
// an empty value. Records under other names hold a format marker
// ("m/format"), the number of keys ("m/count", 8 bytes, little-endian),
// rewritten in every batch that adds keys, so Len is restored on open by
// one read, the identity ("m/id", 32 hex digits; sets made before it
// existed get one on their next open), and the seen.Params the set was made
// with ("m/params", a JSON object; absent in sets made without seen.Params or
// by earlier versions), and, for each run that called InsertCommit, its
// commit record ("m/run/" and the run's 32 hex digits: the Seq of its last
// InsertCommit, 8 bytes, little-endian). Every record sorts after the keys
// ('m' > 'k'), outside the range the scans of keys read (Open's count,
// Verify, the filter's rebuild), so none is counted as a key. Tables have
// no Bloom filters: the set keeps its own, see "Speed". A closed set's
// directory also holds that filter (uriscan-seen.bloom).
type Set struct {
	mu     sync.Mutex
	db     *pebble.DB
	dir    string
	n      atomic.Int64 // number of keys, mirrors the count record
	id     string
	closed bool
	err    error // sticky: set when a commit failed

	noSync bool
	// The worker's scratch: a call abandoned after a failure (see
	// "Failures") may go on using it, never the caller's slices.
	kbuf    [keyLen]byte
	order   []int32 // indices of the current batch's keys, reused
	sortBuf []sortEntry
	probe   []int32    // indices of the keys lookupAll looks up in the store
	keys    []seen.Key // a copy of the batch's keys
	answers []bool     // has or isNew, copied out on success
	newN    int64      // the count after a successful commit

	w *diskWorker
	// The state file's count is refreshed after a commit when it is
	// stateEvery old (see "Identity, count and damage" on Set).
	stateAt    time.Time
	stateEvery time.Duration
	// reserve is the free space a commit needs on the set's filesystem
	// (see "Failures" on Set); fs is that filesystem, as Open found it
	// (a call abandoned after a failure may still check it after Close).
	reserve uint64
	fs      vfs.FS
	dirLock io.Closer // lockDir's, released by Close

	// filter holds every key of the store (nil: Options.FilterRate < 0);
	// see "The filter" in filter.go.
	filter     *filter
	filterRate float64
	// minFilterKeys is the smallest filter's capacity (Options.minFilterKeys).
	minFilterKeys uint64
	// absent holds, sorted, the keys the last Contains found absent,
	// until the next commit: Insert of them (a frontier inserts what
	// Contains found new) looks nothing up again.
	absent []seen.Key
	stats  lookupStats
}

// lookupStats counts how the set answered whether a key is stored (for
// the tests).
type lookupStats struct {
	store    int64 // looked up in Pebble
	filtered int64 // answered absent by the filter
	recalled int64 // answered absent by the last Contains (absent)
	rebuilt  int64 // filters built from a scan of the store
}

// stateEvery is how often a commit refreshes the state file's count.
const stateEvery = time.Second

// Options tunes Open. The zero value (or a nil *Options) is
// the recommended setting.
type Options struct {
	// CacheSize is the size in bytes of Pebble's block cache. Zero means
	// 64 MiB.
	CacheSize int64
	// MemTableSize is the size in bytes of one Pebble memtable (the
	// in-memory part of the store, written out to a file when full). The
	// write-ahead log preallocates 1.1 times this size per file. Zero
	// means one sized to the set at Open: 4 bytes per key its state file
	// records, rounded up to a power of two, from 4 MiB (sets up to a
	// million keys) to 64 MiB (16 million keys and more). Larger
	// memtables make each insert cost more but flushes and compactions
	// fewer: at 10 million keys, 64 MiB takes a new key about twice as
	// fast as 4 MiB (BenchmarkFrontier in seen/keylog), for about 70 MB more on disk.
	MemTableSize uint64
	// NoSync commits without waiting for fsync. Keys reported as new then
	// survive a crash of the process but not a crash of the operating
	// system or a power loss. See Set.
	NoSync bool
	// Logger receives Pebble's messages. Nil means errors go to the
	// standard log package and informational messages are dropped.
	// Fatalf is never passed on as such: a fatal error stops the set
	// (see Set) and is given to Logger.Errorf.
	Logger pebble.Logger
	// Params says how the set's keys are made (urikey.Hasher.Params):
	// recorded in a new set and checked against the record of an existing
	// one; see seen.Params. Open refuses nil Params unless AnyParams.
	Params seen.Params
	// AnyParams, with nil Params, opens the set whatever it records, and
	// records nothing in a new one: for tools that inspect a set, and for
	// keys that are not made by a hasher.
	AnyParams bool
	// Recover opens a set that fails the checks of "Identity, count and
	// damage" on Set (it lost keys, or is another set than the one its
	// directory recorded) instead of refusing it with a *seen.LostError: the
	// set is taken as it is, its count record corrected to the keys it
	// holds, and its identity and count become the reference of later
	// opens. For a caller about to add back what was lost (uriscan dedup
	// --rebuild re-adds the keys of its output file). A set that lost its
	// state file, or whose state file is unreadable or damaged (its
	// checksum does not match), is taken the same way, and the state file
	// written anew. A damaged store (ErrDamaged) is refused even so.
	Recover bool
	// MustExist refuses, with a *seen.LostError, a directory that is absent or
	// empty instead of making a new set there: for a caller that knows a
	// set was there (a checkpoint recorded its seen.Stamp), so that a deleted
	// set is not silently made anew.
	MustExist bool
	// FilterRate is the false-positive rate of the set's in-memory Bloom
	// filter when full (see "Speed" on Set): the share of new keys that
	// are looked up in the store all the same. Zero means 0.01: 1.55
	// bytes of memory per key at the filter's fullest, 6.2 just after it
	// grows (it is sized for four times the keys). A negative rate keeps
	// no filter, and every key is looked up in the store.
	FilterRate float64

	// For the tests (export_test.go): the filesystem Pebble uses (nil:
	// the real one), the state file refreshed on every commit, the
	// smallest filter (0: minFilterKeys).
	fs            vfs.FS
	stateAlways   bool
	minFilterKeys uint64
}

const (
	keyPrefix = 'k'
	keyLen    = 1 + len(seen.Key{})
	// diskFormat is the value of the format record.
	diskFormat = "uriscan/seen disk v1"
	// defaultMemTableSize is Options.MemTableSize's default.
	defaultMemTableSize = 4 << 20
)

var (
	formatRecord = []byte("m/format")
	countRecord  = []byte("m/count")
	paramsRecord = []byte("m/params")
	idRecord     = []byte("m/id")
	// runRecordPrefix and a run's identity name its commit record (see
	// "Layout" on Set): above every key ('k'), so no scan of the keys
	// meets it.
	runRecordPrefix = []byte("m/run/")
)

// ErrNotSet is returned (wrapped) by Open when the directory holds a
// Pebble store that is not a seen set, or files and no store at all.
var ErrNotSet = errors.New("seen: directory holds no seen set")

// ErrDamaged is wrapped by the error Open returns when the store is
// damaged: Pebble finds it corrupt, a file it needs is gone, or its state
// file records a set and no Pebble store is there. Nothing can open it;
// remove the directory and rebuild the set.
var ErrDamaged = errors.New("seen: pebble set is damaged")

// errCorrupt marks a failure Pebble reported as data corruption.
var errCorrupt = errors.New("data corruption")

// ErrLocked is wrapped by the error Open returns when the directory is
// in use: opened by another process, or already by this one, and not
// closed. The error's message is one line, "seen: pebble set DIR is in use
// by another process" (or "... is in use: already open in this process").
var ErrLocked = errors.New("seen: pebble set is in use")

// diskWorker runs the calls into Pebble on a goroutine of its own, so
// that a fatal error from Pebble can end that goroutine (runtime.Goexit)
// instead of the process, and stops the set (see "Failures" on Set).
type diskWorker struct {
	calls chan func()
	// reply carries the answer of the call in flight. One channel serves
	// every call because calls never overlap: Open makes them before
	// the set is handed out, the methods under Set.mu. A call abandoned
	// after a failure may still send a stale answer, which no one reads:
	// run returns at once once the set has stopped.
	reply chan error
	once  sync.Once
	stop  chan struct{} // closed on the first fatal error
	err   error         // that error, once stop is closed
	log   pebble.Logger // the caller's, or nil
}

func newDiskWorker(logger pebble.Logger) *diskWorker {
	w := &diskWorker{calls: make(chan func()), reply: make(chan error, 1), stop: make(chan struct{}), log: logger}
	go w.loop()
	return w
}

func (w *diskWorker) loop() {
	for fn := range w.calls {
		w.call(fn)
	}
}

// call runs fn; a panic in it stops the set. (A runtime.Goexit from
// fail passes through: recover returns nil then.)
func (w *diskWorker) call(fn func()) {
	defer func() {
		if p := recover(); p != nil {
			w.fail(fmt.Errorf("pebble panicked: %v", p))
			w.reply <- w.err
		}
	}()
	fn()
}

// run runs fn on the worker and returns its error, or the failure that
// stopped the set, whichever comes first.
func (w *diskWorker) run(fn func() error) error {
	if w.failed() {
		return w.err
	}
	select {
	case w.calls <- func() { w.reply <- fn() }:
	case <-w.stop:
		return w.err
	}
	select {
	case err := <-w.reply:
		return err
	case <-w.stop:
		return w.err
	}
}

func (w *diskWorker) failed() bool {
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// fail stops the set with err (the first error wins).
func (w *diskWorker) fail(err error) {
	w.once.Do(func() {
		w.err = err
		close(w.stop)
	})
}

// close ends the worker; the set must not be used afterwards.
func (w *diskWorker) close() { close(w.calls) }

// The logger and event listener given to Pebble: fatal errors, background
// errors and data corruption stop the set.
func (w *diskWorker) Infof(format string, args ...any) {
	if w.log != nil {
		w.log.Infof(format, args...)
	}
}

func (w *diskWorker) Errorf(format string, args ...any) {
	if w.log != nil {
		w.log.Errorf(format, args...)
		return
	}
	log.Printf("seen: pebble: "+format, args...)
}

// Fatalf stops the set and ends the calling goroutine: Pebble calls it
// where it cannot go on (a commit that failed, a MANIFEST that cannot be
// written), and the code after it assumes it does not return.
func (w *diskWorker) Fatalf(format string, args ...any) {
	err := fmt.Errorf("pebble: "+strings.TrimPrefix(format, "pebble: "), args...)
	if w.log != nil {
		w.log.Errorf("%v", err)
	}
	w.fail(err)
	runtime.Goexit()
}

func (w *diskWorker) events() *pebble.EventListener {
	return &pebble.EventListener{
		BackgroundError: func(err error) {
			w.fail(fmt.Errorf("pebble: background error: %w", err))
		},
		DataCorruption: func(info pebble.DataCorruptionInfo) {
			w.fail(fmt.Errorf("pebble: %w in %s: %v", errCorrupt, info.Path, info.Details))
		},
	}
}

// Open opens the set stored in dir, creating dir and an empty set if
// dir does not exist or is empty. opts may be nil. The returned Set must
// be closed to release the directory lock and flush Pebble's state; a Set
// that is never closed loses nothing that was reported as new (see Set),
// but the next Open replays the write-ahead log and counts the keys.
// Once it holds the directory's lock, Open removes the temporary files
// that a kill left of the state file and of the filter.
//
// Open fails with an error wrapping ErrLocked when dir is in use, with
// ErrNotSet when it holds another Pebble store or files that are not a
// store (it never writes into such a directory), with ErrDamaged when the
// store cannot be opened for damage, with a *seen.LostError when the set fails
// the checks described on Set (unless opts.Recover; among them a state
// file that is unreadable, or damaged: its checksum does not match its
// contents, and the error also wraps atomicfile.ErrSeal) or, with
// opts.MustExist, when dir holds no set, and,
// when opts.Params is not nil, with a *seen.ParamsError when the set was made
// with other seen.Params or an error wrapping seen.ErrNoParams when it holds keys
// but no seen.Params (see seen.Params).
func Open(dir string, opts *Options) (*Set, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	var params seen.Params
	if o.Params == nil && !o.AnyParams {
		return nil, fmt.Errorf("seen: open pebble set %s: %w", dir, store.ErrNilParams)
	}
	if o.Params != nil {
		var err error
		if params, err = store.WithFormat(o.Params, diskFormat); err != nil {
			return nil, fmt.Errorf("seen: open pebble set %s: %w", dir, err)
		}
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 64 << 20
	}
	if o.FilterRate == 0 {
		o.FilterRate = defaultFilterRate
	}
	if o.FilterRate >= 1 || o.FilterRate != o.FilterRate {
		return nil, fmt.Errorf("seen: open pebble set %s: FilterRate %g: want a rate under 1 (or negative: no filter)", dir, o.FilterRate)
	}
	// Nothing is written (not even the lock) into a directory that holds
	// no set and files that are neither a set's nor Pebble's. (A set's
	// directory may hold others: lost+found, .nfs*, .DS_Store.)
	if err := foreignDir(dir); err != nil {
		return nil, err
	}
	// The set's own lock, held until Close: the state file and a
	// half-made store are only ever looked at and changed under it.
	dirLock, err := lockDir(dir, o.MustExist)
	if err != nil {
		return nil, err
	}
	if err := removeStale(dir); err != nil {
		dirLock.Close()
		return nil, fmt.Errorf("seen: open pebble set %s: %w", dir, err)
	}
	state, exists, err := inspectDiskDir(dir, o.Recover, o.MustExist)
	if err != nil {
		dirLock.Close()
		var le *seen.LostError
		var de *damagedError
		if errors.As(err, &le) || errors.As(err, &de) || errors.Is(err, ErrNotSet) {
			return nil, err
		}
		return nil, fmt.Errorf("seen: open pebble set %s: %w", dir, err)
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = defaultMemTableSize
		if state != nil {
			o.MemTableSize = memTableFor(state.Count)
		}
	}
	w := newDiskWorker(o.Logger)
	cache := pebble.NewCache(o.CacheSize)
	defer cache.Unref()
	po := &pebble.Options{
		Cache:               cache,
		MemTableSize:        o.MemTableSize,
		MaxManifestFileSize: 4 << 20,
		Logger:              w,
		EventListener:       w.events(),
		// The directory recorded a set: Pebble must not make a new,
		// empty one where its files were.
		ErrorIfNotExists: exists,
		FS:               o.fs, // nil: the default
	}
	// Random keys: every flushed table overlaps the whole of the next
	// level, so a compaction rewrites it. Fewer, larger levels and
	// compactions on two cores keep a growing set from stalling its
	// writes behind L0 (Pebble stops them at 12 sublevels by default).
	po.L0StopWritesThreshold = 64
	po.L0CompactionThreshold = 8
	po.LBaseMaxBytes = 256 << 20
	po.CompactionConcurrencyRange = func() (int, int) { return 1, 2 }
	// No Bloom filters in the tables: keys are looked up with an iterator
	// (see lookupAll), which does not read them, after the set's own
	// filter. (Snappy stays: the keys are hashes, but their sequence
	// numbers compress, 26 bytes per key on disk instead of 37.)
	var db *pebble.DB
	err = w.run(func() (err error) { db, err = pebble.Open(dir, po); return err })
	if err != nil {
		w.close()
		dirLock.Close()
		if locked, here := isLockError(err); locked {
			msg := fmt.Sprintf("seen: pebble set %s is in use by another process", dir)
			if here {
				msg = fmt.Sprintf("seen: pebble set %s is in use: already open in this process", dir)
			}
			return nil, &store.Error{Msg: msg, Errs: []error{ErrLocked, err}}
		}
		return nil, openError(dir, err, w.failed())
	}
	d := &Set{db: db, dir: dir, dirLock: dirLock, noSync: o.NoSync, w: w, stateEvery: stateEvery, fs: cmp.Or(o.fs, vfs.Default),
		reserve: o.MemTableSize + o.MemTableSize/10 + 1<<20, filterRate: o.FilterRate,
		minFilterKeys: cmp.Or(o.minFilterKeys, minFilterKeys)}
	if o.stateAlways {
		d.stateEvery = 0
	}
	err = w.run(func() error { return d.load(params, state, o.Recover) })
	if err == nil {
		err = w.run(d.openFilter)
	}
	if err == nil {
		err = d.writeState(true)
		d.stateAt = time.Time{} // the first commit records its count
	}
	if err != nil {
		stopped := w.failed()
		if !stopped {
			w.run(db.Close)
		}
		w.close()
		dirLock.Close()
		var pe *seen.ParamsError
		var le *seen.LostError
		if errors.As(err, &pe) || errors.As(err, &le) || errors.Is(err, seen.ErrNoParams) {
			return nil, err // they name the set themselves
		}
		return nil, openError(dir, err, stopped)
	}
	return d, nil
}

// openError is the error of an Open that failed with err; stopped
// says Pebble stopped the set (see "Failures" on Set). Only corruption
// and a missing file are damage: a full disk or an I/O error is not, and
// the set may open once it is fixed.
func openError(dir string, err error, stopped bool) error {
	if pebble.IsCorruptionError(err) || errors.Is(err, errCorrupt) || errors.Is(err, os.ErrNotExist) {
		return &damagedError{dir, err}
	}
	if stopped {
		return fmt.Errorf("seen: open pebble set %s: the store stopped: %w (free space or fix the disk, and open it again)", dir, err)
	}
	return fmt.Errorf("seen: open pebble set %s: %w", dir, err)
}

// damagedError is the error of an Open whose store is damaged.
type damagedError struct {
	dir string
	err error
}

func (e *damagedError) Error() string {
	return fmt.Sprintf("seen: pebble set %s is damaged and cannot be opened: %v; remove the directory and rebuild the set (see docs/dedup.md, Durability)", e.dir, e.err)
}

func (e *damagedError) Unwrap() []error { return []error{ErrDamaged, e.err} }

// inspectDiskDir looks at dir before Pebble opens it: its state file (see
// Set), and whether it holds a set. A directory that is absent or empty
// gets a new set (exists false), unless mustExist. One that has files but
// neither a state file nor a Pebble store is not written into
// (ErrNotSet); one whose state file says a set was there and has no
// Pebble store is damaged. An unreadable state file is refused unless
// recover, which takes the store as if it had none.
func inspectDiskDir(dir string, recover, mustExist bool) (state *diskState, exists bool, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) || err == nil && onlyStateTemps(entries) {
		if mustExist {
			return nil, false, &seen.LostError{Store: "pebble set " + dir, Count: -1,
				Why: "the directory is absent or empty: the set was deleted or moved"}
		}
		// A new set: its state file first, so that a kill while Pebble
		// makes its files leaves a directory that says whose they are.
		state = &diskState{Format: diskFormat, ID: store.NewID(), Open: true}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, false, err
		}
		if err := writeDiskState(dir, *state); err != nil {
			return nil, false, err
		}
		return state, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	state, err = readDiskState(dir)
	switch {
	case errors.Is(err, ErrNotSet):
		return nil, false, err
	case err != nil && !recover:
		// (A sealed state file whose checksum does not match says "its
		// state file ... is damaged"; the error wraps atomicfile.ErrSeal.)
		lost := &seen.LostError{Store: "pebble set " + dir, Count: -1,
			Why: fmt.Sprintf("%v, so nothing can say whether the store lost keys; if the store is intact, open it with Recover (uriscan dedup --rebuild)", err)}
		return nil, false, &store.Error{Msg: lost.Error(), Errs: []error{lost, err}}
	case err != nil:
		state = nil // Recover: as if there were none
	}
	desc, err := pebble.Peek(dir, vfs.Default)
	if err != nil {
		return nil, false, err
	}
	switch {
	case desc.Exists:
		return state, true, nil
	case state != nil && state.Count == 0 && pebbleLeftovers(dir, entries):
		// A set whose making was cut short (a kill while Pebble made its
		// first files): no key ever recorded; made again, same identity.
		if err := removeLeftovers(dir, entries); err != nil {
			return nil, false, err
		}
		return state, false, nil
	case state != nil:
		return nil, false, &damagedError{dir, fmt.Errorf("%s records the set %s with %d keys, but the directory holds no Pebble store (its MANIFEST or the marker naming it is gone)", diskStateFile, state.ID, state.Count)}
	}
	return nil, false, fmt.Errorf("%w: %s is not empty and holds no seen set (no Pebble store): not writing into it; name an empty or new directory", ErrNotSet, dir)
}

// removeStale removes the temporary files that writes of the state file
// and of the filter left in dir when a kill came before their rename
// (atomicfile.Write). Open calls it with dir locked, so no other
// process's write is under way there.
func removeStale(dir string) error {
	if err := store.RemoveStaleState(dir); err != nil {
		return fmt.Errorf("removing the temporary files a kill left of its state file %s: %w", diskStateFile, err)
	}
	if _, err := atomicfile.RemoveStale(filepath.Join(dir, filterFile)); err != nil {
		return fmt.Errorf("removing the temporary files a kill left of its filter %s: %w", filterFile, err)
	}
	return nil
}

// onlyStateTemps reports whether entries, a directory's, are at most its
// lock and temporary files of a state file a kill left (which removeStale
// removed before, but for one that is not a regular file): a directory
// in which nothing was made yet.
func onlyStateTemps(entries []os.DirEntry) bool {
	for _, e := range entries {
		if e.Name() != lockFileName && e.Name() != "lost+found" && !strings.HasPrefix(e.Name(), diskStateFile+".tmp") {
			return false
		}
	}
	return true
}

// foreignDir returns ErrNotSet (wrapped) for a directory that holds
// neither a state file nor a Pebble store, and files that are neither a
// set's nor Pebble's (lost+found aside).
func foreignDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // absent, or Open says why
	}
	var stranger string
	for _, e := range entries {
		switch name := e.Name(); {
		case name == diskStateFile || strings.HasPrefix(name, "marker.manifest."):
			return nil // a set's, or a Pebble store
		case name == "lost+found", ourFile(name), pebbleFile(name):
		default:
			if stranger == "" {
				stranger = name
			}
		}
	}
	if stranger == "" {
		return nil
	}
	return fmt.Errorf("%w: %s holds no seen set and files that are not a set's (%s): not writing into it; name an empty or new directory", ErrNotSet, dir, stranger)
}

// ourFile reports whether name is one of a set's own files in its
// directory; pebbleFile whether it is one Pebble makes.
func ourFile(name string) bool {
	return name == diskStateFile || name == lockFileName || strings.HasPrefix(name, diskStateFile+".tmp") ||
		name == filterFile || strings.HasPrefix(name, filterFile+".tmp")
}

func pebbleFile(name string) bool {
	if name == "LOCK" || name == "CURRENT" {
		return true
	}
	for _, p := range []string{"OPTIONS-", "MANIFEST-", "marker."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	// Numbered files: 000123.log, 000456.sst, 000789.blob, temporaries.
	base, ext, ok := strings.Cut(name, ".")
	if !ok || base == "" || strings.Trim(base, "0123456789") != "" {
		return false
	}
	return ext == "log" || ext == "sst" || ext == "blob" || ext == "dbtmp"
}

// lockFileName is the file a Set locks in its directory.
const lockFileName = "uriscan-seen.lock"

// lockDir takes the lock of a set's directory (making the directory
// unless mustExist), or fails with an error wrapping ErrLocked.
func lockDir(dir string, mustExist bool) (io.Closer, error) {
	if !mustExist {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("seen: open pebble set %s: %w", dir, err)
		}
	} else if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return nil, &seen.LostError{Store: "pebble set " + dir, Count: -1,
			Why: "the directory is absent or empty: the set was deleted or moved"}
	}
	l, err := vfs.Default.Lock(filepath.Join(dir, lockFileName))
	if err == nil {
		return l, nil
	}
	if locked, here := isLockError(err); locked {
		msg := fmt.Sprintf("seen: pebble set %s is in use by another process", dir)
		if here {
			msg = fmt.Sprintf("seen: pebble set %s is in use: already open in this process", dir)
		}
		return nil, &store.Error{Msg: msg, Errs: []error{ErrLocked, err}}
	}
	return nil, fmt.Errorf("seen: open pebble set %s: %w", dir, err)
}

// pebbleLeftovers reports whether entries are only what Pebble makes
// first in a new store, besides the state file: no table, no write-ahead
// log that holds more than its header.
func pebbleLeftovers(dir string, entries []os.DirEntry) bool {
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "lost+found":
		case strings.HasSuffix(name, ".sst"), strings.HasSuffix(name, ".blob"), !ourFile(name) && !pebbleFile(name):
			return false // a table, or a file that is neither a set's nor Pebble's
		case strings.HasSuffix(name, ".log"):
			if fi, err := e.Info(); err != nil || fi.Size() > 4096 {
				return false
			}
		}
	}
	return true
}

// removeLeftovers removes what pebbleLeftovers found, but the state file.
func removeLeftovers(dir string, entries []os.DirEntry) error {
	for _, e := range entries {
		if e.Name() != diskStateFile && e.Name() != lockFileName && e.Name() != "lost+found" {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// load reads the format, count and identity records, or writes them into
// an empty store, records or checks params (with "format"; nil: neither),
// and checks the store against its state file (nil: none). It runs on
// the worker.
func (d *Set) load(params seen.Params, state *diskState, recover bool) error {
	name := "pebble set " + d.dir
	format, err := d.get(formatRecord)
	if err != nil {
		return err
	}
	if format == nil {
		// A new store, unless it holds anything at all.
		it, err := d.db.NewIter(nil)
		if err != nil {
			return err
		}
		nonEmpty := it.First()
		if err := errors.Join(it.Error(), it.Close()); err != nil {
			return err
		}
		if nonEmpty {
			return fmt.Errorf("%w: %s holds a Pebble store that is not a seen set", ErrNotSet, d.dir)
		}
		switch {
		case state != nil && state.Count == 0:
			d.id = state.ID // a new set: its state file was written first
		case state != nil && !recover:
			// The state file says a set with keys was here; the store is
			// empty.
			return store.CheckStamp(name, seen.Stamp{ID: state.ID, Count: state.Count}, "", 0)
		default:
			d.id = store.NewID()
		}
		b := d.db.NewBatch()
		defer b.Close()
		var zero [8]byte
		b.Set(formatRecord, []byte(diskFormat), nil)
		b.Set(countRecord, zero[:], nil)
		b.Set(idRecord, []byte(d.id), nil)
		if params != nil {
			b.Set(paramsRecord, store.EncodeParams(params), nil)
		}
		return b.Commit(pebble.Sync)
	}
	if string(format) != diskFormat {
		return fmt.Errorf("%w (format %q, want %q)", ErrNotSet, format, diskFormat)
	}
	count, err := d.get(countRecord)
	if err != nil {
		return err
	}
	if len(count) != 8 {
		return fmt.Errorf("seen: pebble set: count record is %d bytes, want 8", len(count))
	}
	d.n.Store(int64(binary.LittleEndian.Uint64(count)))
	id, err := d.get(idRecord)
	if err != nil {
		return err
	}
	d.id = string(id)
	if d.id != "" && state == nil && d.n.Load() > 0 && !recover {
		// A set with an identity wrote its state file when it was made.
		return &seen.LostError{Store: name, Want: seen.Stamp{ID: d.id}, ID: d.id, Count: d.n.Load(),
			Why: fmt.Sprintf("its state file %s is gone, so nothing can say whether the store lost keys since it was last closed; if the store is intact, open it once with Recover (uriscan dedup --rebuild)", diskStateFile)}
	}
	if d.id == "" {
		// Made before sets had an identity: it gets one now.
		d.id = store.NewID()
		if err := d.db.Set(idRecord, []byte(d.id), pebble.Sync); err != nil {
			return err
		}
	}
	if err := d.checkState(name, state, recover); err != nil {
		return err
	}
	if params == nil {
		return nil
	}
	rec, err := d.get(paramsRecord)
	if err != nil {
		return err
	}
	if rec == nil {
		if n := d.n.Load(); n > 0 {
			return store.NoParamsError(name, n, params)
		}
		// An empty set made without seen.Params: it takes these.
		return d.db.Set(paramsRecord, store.EncodeParams(params), pebble.Sync)
	}
	stored, err := store.DecodeParams(rec)
	if err != nil {
		return err
	}
	return store.CheckParams(name, stored, params)
}

// checkState compares the store with its state file: the same identity,
// at least the count of the last Close, and, after a process that did not
// close it, a count record that agrees with the keys. With recover, the
// store is taken as it is and the count record set to its keys.
func (d *Set) checkState(name string, state *diskState, recover bool) error {
	scan := recover // Recover always counts the keys
	if state != nil {
		// (None: a set made before the state file, nothing to compare.)
		if lost := store.CheckStamp(name, seen.Stamp{ID: state.ID, Count: state.Count}, d.id, d.n.Load()); lost != nil && !recover {
			return lost
		}
		scan = scan || state.Open
	}
	if !scan {
		return nil
	}
	var f *filter
	if d.filterRate > 0 {
		f = newFilter(d.n.Load(), d.filterRate, d.minFilterKeys)
	}
	keys, err := d.countKeys(f)
	if err != nil {
		return err
	}
	d.filter = f
	if f != nil {
		d.stats.rebuilt++
	}
	if n := d.n.Load(); keys != n {
		if !recover {
			return d.miscount(n, keys)
		}
		var count [8]byte
		binary.LittleEndian.PutUint64(count[:], uint64(keys))
		if err := d.db.Set(countRecord, count[:], pebble.Sync); err != nil {
			return err
		}
		d.n.Store(keys)
	}
	return nil
}

// miscount is the error of a store whose count record says n keys where
// a scan found keys.
func (d *Set) miscount(n, keys int64) *seen.LostError {
	return &seen.LostError{Store: "pebble set " + d.dir, Want: seen.Stamp{ID: d.id, Count: n}, ID: d.id, Count: keys,
		Why: fmt.Sprintf("its count record says %d keys but it holds %d (a write-ahead log or a table of the store was lost or damaged)", n, keys)}
}

// countKeys counts the keys in the store with a scan, and adds them to
// f unless it is nil. It runs on the worker.
func (d *Set) countKeys(f *filter) (int64, error) {
	it, err := d.db.NewIter(&pebble.IterOptions{LowerBound: []byte{keyPrefix}, UpperBound: []byte{keyPrefix + 1}})
	if err != nil {
		return 0, err
	}
	var n int64
	var k seen.Key
	for valid := it.First(); valid; valid = it.Next() {
		n++
		if f != nil && len(it.Key()) == keyLen {
			copy(k[:], it.Key()[1:])
			f.add(&k)
		}
	}
	return n, errors.Join(it.Error(), it.Close())
}

// openFilter gives a set just loaded its filter: the one checkState built
// from its scan, else the one Close wrote if it matches the store, else
// one built from a scan; then it removes the filter's file, which only a
// closed set has (see "The filter"). It runs on the worker.
func (d *Set) openFilter() error {
	if d.filterRate > 0 && d.filter == nil {
		d.filter = loadFilter(d.dir, d.id, d.n.Load(), d.filterRate)
		if d.filter == nil {
			if err := d.rebuildFilter(d.n.Load()); err != nil {
				return err
			}
		}
	}
	if err := os.Remove(filepath.Join(d.dir, filterFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the filter file of the closed set: %w", err)
	}
	return nil
}

// rebuildFilter builds a filter for the store's n keys (see newFilter)
// from a scan of the store, and returns a *seen.LostError if the store
// holds another number of keys. It runs on the worker.
func (d *Set) rebuildFilter(n int64) error {
	f := newFilter(n, d.filterRate, d.minFilterKeys)
	keys, err := d.countKeys(f)
	if err != nil {
		return err
	}
	if keys != n {
		return d.miscount(n, keys)
	}
	d.filter = f
	d.stats.rebuilt++
	return nil
}

// Verify counts the keys of the set with a scan of the whole store (which
// also reads and checksums every block of its tables) and returns a
// *seen.LostError if the count record disagrees. Open does the same after a
// process that did not close the set; Verify is for a caller that wants
// the check at another time. It holds the set's mutex while it scans.
func (d *Set) Verify() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return seen.ErrClosed
	}
	var keys int64
	err := d.w.run(func() (err error) { keys, err = d.countKeys(nil); return err })
	if err != nil {
		return d.wrapErr("verify", err)
	}
	if n := d.n.Load(); keys != n {
		return d.miscount(n, keys)
	}
	return nil
}

// Stamp returns the set's identity and its number of keys.
func (d *Set) Stamp() seen.Stamp { return seen.Stamp{ID: d.id, Count: d.n.Load()} }

// Check returns a *seen.LostError if the set is not the one s was taken of, or
// holds fewer keys than s.Count: it was deleted and made again, replaced,
// or lost writes since.
func (d *Set) Check(s seen.Stamp) error {
	return store.CheckStamp("pebble set "+d.dir, s, d.id, d.n.Load())
}

// get returns a copy of the value of key, or nil if there is none.
func (d *Set) get(key []byte) ([]byte, error) {
	v, closer, err := d.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	v = append([]byte{}, v...)
	return v, closer.Close()
}

// lookupAll sets ans[i] (cleared by scratch) to whether keys[i] is
// stored, for the first occurrence i of each key in order (keys' indexes sorted by key; sorted).
// A key is absent without a look-up in the store where the filter says
// so, or, with recall, where the last Contains found it absent (absent);
// the others are looked up in key order with one iterator, whose seeks
// then move forward through the same blocks and files. It runs on the
// worker.
func (d *Set) lookupAll(keys []seen.Key, order []int32, ans []bool, recall bool) error {
	probe := d.probe[:0]
	var absent []seen.Key
	if recall {
		absent = d.absent // sorted, like order's keys
	}
	prev := int32(-1)
	for _, i := range order {
		k := &keys[i]
		if prev >= 0 && keys[prev] == *k {
			continue
		}
		prev = i
		for len(absent) > 0 && bytes.Compare(absent[0][:], k[:]) < 0 {
			absent = absent[1:]
		}
		switch {
		case len(absent) > 0 && absent[0] == *k:
			d.stats.recalled++
		case d.filter != nil && !d.filter.mayHave(k):
			d.stats.filtered++
		default:
			probe = append(probe, i)
		}
	}
	d.probe = probe
	if len(probe) == 0 {
		return nil
	}
	d.stats.store += int64(len(probe))
	it, err := d.db.NewIter(&pebble.IterOptions{LowerBound: []byte{keyPrefix}, UpperBound: []byte{keyPrefix + 1}})
	if err != nil {
		return err
	}
	d.kbuf[0] = keyPrefix
	for _, i := range probe {
		copy(d.kbuf[1:], keys[i][:])
		ans[i] = it.SeekGE(d.kbuf[:]) && bytes.Equal(it.Key(), d.kbuf[:])
	}
	return errors.Join(it.Error(), it.Close())
}

// Add records k and reports whether it was new; a new k is durable when
// Add returns (see Set). It is AddBatch of one key.
func (d *Set) Add(k seen.Key) (bool, error) {
	keys := [1]seen.Key{k}
	var isNew [1]bool
	err := d.AddBatch(keys[:], isNew[:])
	return isNew[0], err
}

// AddBatch records keys and sets isNew[i] as a sequence of Add(keys[i])
// would. It looks every key up, then writes the new ones and the updated
// count in one Pebble batch committed with pebble.Sync (unless NoSync), so
// the keys reported new are durable when it returns; a batch with no new
// key writes nothing. It returns seen.ErrShortBatch if len(isNew) < len(keys),
// seen.ErrClosed after Close, and otherwise an error from Pebble, after which
// the keys of this batch may or may not be recorded and every later call
// returns the same error (Len may then lag behind the store until the set
// is reopened).
func (d *Set) AddBatch(keys []seen.Key, isNew []bool) error {
	if len(isNew) < len(keys) {
		return seen.ErrShortBatch
	}
	return d.add(keys, isNew[:len(keys)], nil)
}

// Insert records keys: AddBatch without the answers, with the same
// durability (one synced batch of the keys not recorded yet and the
// updated count) and errors. Keys already recorded, and repeats within
// keys, are looked up and not written, so Len stays exact and calling
// Insert again with the same keys, after an error or a crash, is
// harmless.
func (d *Set) Insert(keys []seen.Key) error {
	return d.add(keys, nil, nil)
}

// InsertCommit records c, the commit record of c.Run (see
// seen.Committer), and inserts keys as Insert does, in the same Pebble
// batch as the new keys and the count, committed with pebble.Sync (unless
// NoSync): one atomic write, so no crash leaves a key of keys recorded
// without c. The record is written even when no key is new, or keys is
// empty (a batch of the record alone, synced the same), and replaces the
// run's earlier one. It is no key: Len, Stamp, Verify and the count
// record leave it out. It returns an error wrapping seen.ErrRunID when
// c.Run is not a run identity (seen.ValidRunID), one for a c.Seq below
// 1, and otherwise the errors of Insert.
func (d *Set) InsertCommit(c seen.Commit, keys []seen.Key) error {
	if !seen.ValidRunID(c.Run) {
		return fmt.Errorf("seen: pebble set %s: the commit record of run %q: %w", d.dir, c.Run, seen.ErrRunID)
	}
	if c.Seq < 1 {
		return fmt.Errorf("seen: pebble set %s: the commit record of run %s: its Seq is %d, not a batch number (from 1)", d.dir, c.Run, c.Seq)
	}
	return d.add(keys, nil, &c)
}

// Committed returns the Seq that the last InsertCommit of run recorded, 0
// when none did. It returns an error wrapping seen.ErrRunID when run is not
// a run identity (seen.ValidRunID), seen.ErrClosed after Close, the error of
// an earlier failed write (see AddBatch), and otherwise an error from
// Pebble or for a record that is not 8 bytes.
func (d *Set) Committed(run string) (int64, error) {
	if !seen.ValidRunID(run) {
		return 0, fmt.Errorf("seen: pebble set %s: the commit record of run %q: %w", d.dir, run, seen.ErrRunID)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return 0, err
	}
	var v []byte
	err := d.w.run(func() (err error) { v, err = d.get(runRecord(run)); return err })
	if err != nil {
		return 0, d.wrapErr("reading the commit record of run "+run, err)
	}
	if v == nil {
		return 0, nil
	}
	if len(v) != 8 || binary.LittleEndian.Uint64(v) > math.MaxInt64 {
		return 0, fmt.Errorf("seen: pebble set %s: the commit record of run %s is %x, not a batch number (8 bytes, little-endian): the store is damaged", d.dir, run, v)
	}
	return int64(binary.LittleEndian.Uint64(v)), nil
}

// runRecord is the name of run's commit record (see "Layout" on Set).
func runRecord(run string) []byte {
	return append(append(make([]byte, 0, len(runRecordPrefix)+len(run)), runRecordPrefix...), run...)
}

// Contains sets has[i] to whether keys[i] is recorded and writes nothing.
// It looks the keys up in key order, like AddBatch, under the same mutex.
// It returns seen.ErrShortBatch if len(has) < len(keys), seen.ErrClosed after
// Close, the error of an earlier failed write (see AddBatch), and
// otherwise an error from Pebble.
func (d *Set) Contains(keys []seen.Key, has []bool) error {
	if len(has) < len(keys) {
		return seen.ErrShortBatch
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	keys, ans := d.scratch(keys)
	err := d.w.run(func() error {
		order := d.sorted(keys)
		d.absent = d.absent[:0]
		if err := d.lookupAll(keys, order, ans, false); err != nil {
			return err
		}
		prev := int32(-1)
		for _, i := range order {
			if prev >= 0 && keys[prev] == keys[i] {
				ans[i] = ans[prev]
				continue
			}
			prev = i
			if !ans[i] {
				d.absent = append(d.absent, keys[i])
			}
		}
		return nil
	})
	if err != nil {
		return d.wrapErr("look-up", err)
	}
	copy(has, ans)
	return nil
}

// scratch copies keys into the set's own buffer and returns it with a
// cleared answer slice of the same length (see Set.keys).
func (d *Set) scratch(keys []seen.Key) ([]seen.Key, []bool) {
	d.keys = append(d.keys[:0], keys...)
	if cap(d.answers) < len(keys) {
		d.answers = make([]bool, len(keys))
	}
	d.answers = d.answers[:len(keys)]
	clear(d.answers)
	return d.keys, d.answers
}

// commitError marks an error of add's commit (after which the store's
// state is unknown) from one of its look-ups.
type commitError struct{ err error }

func (e commitError) Error() string { return e.err.Error() }
func (e commitError) Unwrap() error { return e.err }

// wrapErr names the set and the step in an error from Pebble; a failure
// that stopped the set (see "Failures" on Set) becomes sticky.
func (d *Set) wrapErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case d.w.failed():
		if d.err == nil {
			d.err = fmt.Errorf("seen: pebble set %s: stopped: %w", d.dir, d.w.err)
		}
		return d.err
	}
	return fmt.Errorf("seen: pebble set %s: %s: %w", d.dir, what, err)
}

// sorted returns the indexes of keys sorted by (key, index), in d.order.
//
// Looking the keys up in key order makes consecutive look-ups share the
// upper part of their search paths in the memtable and in the sstables'
// indexes, which the caches keep warm, and puts the new keys into the
// batch sorted, which Pebble inserts faster. Sorting by (key, index) also
// puts the repeats of a key right after its first occurrence.
func (d *Set) sorted(keys []seen.Key) []int32 {
	// Sorted as two big-endian words (the bytes' order) and the index:
	// four times faster than bytes.Compare through the indexes.
	ents := d.sortBuf[:0]
	for i := range keys {
		k := &keys[i]
		ents = append(ents, sortEntry{binary.BigEndian.Uint64(k[:8]), binary.BigEndian.Uint64(k[8:]), int32(i)})
	}
	slices.SortFunc(ents, func(a, b sortEntry) int {
		if a.hi != b.hi {
			return cmp.Compare(a.hi, b.hi)
		}
		if a.lo != b.lo {
			return cmp.Compare(a.lo, b.lo)
		}
		return cmp.Compare(a.i, b.i)
	})
	order := d.order[:0]
	for _, e := range ents {
		order = append(order, e.i)
	}
	d.sortBuf, d.order = ents, order
	return order
}

// sortEntry is a key as two big-endian words and its index, for sorted.
type sortEntry struct {
	hi, lo uint64
	i      int32
}

// usable returns seen.ErrClosed after Close and the error of an earlier
// failed write (see AddBatch); d.mu must be held.
func (d *Set) usable() error {
	if d.closed {
		return seen.ErrClosed
	}
	return d.err
}

// add is AddBatch (isNew of len(keys)) and Insert (isNew nil); with c
// not nil, InsertCommit: c's record goes into the batch of the new keys,
// or into a batch of its own when none is new.
func (d *Set) add(keys []seen.Key, isNew []bool, c *seen.Commit) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.usable(); err != nil {
		return err
	}
	if len(keys) == 0 && c == nil {
		return nil
	}
	clear(isNew)
	keys, ans := d.scratch(keys)
	var rec, seq []byte // c's record, and its value
	if c != nil {
		rec = runRecord(c.Run)
		seq = binary.LittleEndian.AppendUint64(nil, uint64(c.Seq))
	}
	committed := false
	err := d.w.run(func() error {
		order := d.sorted(keys)
		if err := d.lookupAll(keys, order, ans, true); err != nil {
			return err
		}
		// Only the first occurrence of a key can be new; ans becomes isNew.
		fresh := order[:0] // overwrites order behind the read position
		prev := int32(-1)
		for _, i := range order {
			if prev >= 0 && keys[prev] == keys[i] {
				continue
			}
			prev = i
			ans[i] = !ans[i]
			if ans[i] {
				fresh = append(fresh, i)
			}
		}
		d.newN = -1
		if len(fresh) == 0 && c == nil {
			return nil
		}
		if err := d.checkSpace(); err != nil {
			return err
		}
		b := d.db.NewBatchWithSize(len(fresh)*(keyLen+8) + len(rec) + 64)
		defer b.Close()
		if c != nil {
			// First, though the batch is atomic anyway.
			if err := b.Set(rec, seq, nil); err != nil {
				return commitError{err}
			}
		}
		if len(fresh) > 0 {
			if err := d.addFresh(b, keys, fresh); err != nil {
				return err
			}
		}
		wo := pebble.Sync
		if d.noSync {
			wo = pebble.NoSync
		}
		if err := b.Commit(wo); err != nil {
			return commitError{err}
		}
		if d.newN >= 0 && d.filter != nil && d.filter.full() {
			// A larger one; on failure the full one, still right, stays.
			if err := d.rebuildFilter(d.newN); err != nil {
				d.w.Errorf("seen: pebble set %s: rebuilding its filter: %v", d.dir, err)
			}
		}
		return nil
	})
	if err != nil {
		var ce commitError
		if errors.Is(err, syscall.ENOSPC) && !d.w.failed() {
			// checkSpace: nothing written, and nothing more will be.
			d.err = fmt.Errorf("seen: pebble set %s: stopped: %w", d.dir, err)
			return d.err
		}
		if errors.As(err, &ce) || d.w.failed() {
			// The store's state is unknown from here on.
			d.err = d.wrapErr("write failed", err)
			return d.err
		}
		return d.wrapErr("look-up", err)
	}
	copy(isNew, ans) // (nil for Insert)
	if n := d.newN; n >= 0 {
		committed = true
		d.n.Store(n)
	}
	// With NoSync the count is not durable yet: the state file keeps the
	// one of the last open or Close.
	if committed && !d.noSync {
		if now := time.Now(); now.Sub(d.stateAt) >= d.stateEvery {
			if err := d.writeState(true); err != nil {
				d.err = fmt.Errorf("seen: pebble set %s: %w", d.dir, err)
				return d.err
			}
		}
	}
	return nil
}

// addFresh puts the keys of keys at fresh (new, distinct) and the updated
// count into b, sets d.newN to that count, forgets what Contains found
// absent (the store changes) and adds the keys to the filter before the
// store has them (a failed commit leaves it false positives only). It runs
// on the worker, in add.
func (d *Set) addFresh(b *pebble.Batch, keys []seen.Key, fresh []int32) error {
	d.absent = d.absent[:0]
	if d.filter != nil {
		for _, i := range fresh {
			d.filter.add(&keys[i])
		}
	}
	for _, i := range fresh {
		d.kbuf[0] = keyPrefix
		copy(d.kbuf[1:], keys[i][:])
		if err := b.Set(d.kbuf[:], nil, nil); err != nil {
			return commitError{err}
		}
	}
	newN := d.n.Load() + int64(len(fresh))
	var count [8]byte
	binary.LittleEndian.PutUint64(count[:], uint64(newN))
	if err := b.Set(countRecord, count[:], nil); err != nil {
		return commitError{err}
	}
	d.newN = newN
	return nil
}

// memTableFor is Options.MemTableSize's default for a set of n keys.
func memTableFor(n int64) uint64 {
	size := uint64(defaultMemTableSize)
	for size < 64<<20 && int64(size) < 4*n {
		size *= 2
	}
	return size
}

// checkSpace refuses a commit when the set's filesystem has less free
// space than d.reserve: a commit may make Pebble start a new write-ahead
// log (1.1 times the memtable size, preallocated), and Pebble panics,
// beyond recovery, where it cannot. A filesystem that does not tell its
// free space is not checked.
func (d *Set) checkSpace() error {
	du, err := d.fs.GetDiskUsage(d.dir)
	if err != nil || du.TotalBytes == 0 || du.AvailBytes >= d.reserve {
		return nil
	}
	return fmt.Errorf("its filesystem has %d bytes free, under the %d a commit may need (a new write-ahead log), so nothing was written: %w; free space and open the set again", du.AvailBytes, d.reserve, syscall.ENOSPC)
}

// writeState records the set's identity and count in its state file.
func (d *Set) writeState(open bool) error {
	d.stateAt = time.Now()
	return writeDiskState(d.dir, diskState{Format: diskFormat, ID: d.id, Count: d.n.Load(), Open: open})
}

// Len returns the number of distinct keys recorded; after Close, the
// number recorded before it.
func (d *Set) Len() int64 { return d.n.Load() }

// Close flushes the memtable, closes the store, records the count in the
// directory's state file and releases the directory. Add, AddBatch,
// Contains, Insert, InsertCommit and Committed then return
// seen.ErrClosed; a second Close returns seen.ErrClosed. A set stopped by
// a failure (see "Failures" on Set) is not flushed: Close returns the
// failure, and the directory stays locked until the process ends.
func (d *Set) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return seen.ErrClosed
	}
	d.closed = true
	if d.w.failed() {
		// (The worker may still be in an abandoned call: its scratch is
		// left to it.)
		d.w.close()
		return fmt.Errorf("seen: close pebble set %s: not closed, the store stopped: %w", d.dir, d.w.err)
	}
	d.order, d.keys, d.answers, d.absent, d.sortBuf = nil, nil, nil, nil, nil
	err := d.w.run(func() error {
		// Flushed, the set needs no write-ahead log to be read back; the
		// state file says it was closed while the lock is still held, so
		// that a process that opens the set next finds its own state.
		err := d.db.Flush()
		if err == nil && d.filter != nil && d.err == nil {
			// Only saves a rebuild at the next Open: a failure is logged.
			if ferr := saveFilter(d.dir, d.filter, d.id, d.n.Load()); ferr != nil {
				d.w.Errorf("seen: pebble set %s: not saving its filter: %v", d.dir, ferr)
			}
		}
		d.filter = nil
		if err == nil {
			err = d.writeState(false)
		}
		return errors.Join(err, d.db.Close())
	})
	d.w.close()
	err = errors.Join(err, d.dirLock.Close())
	if err == nil && d.err != nil {
		// Stopped before a commit (a full filesystem), or a commit failed:
		// closed cleanly, but the caller learns again that it stopped.
		err = d.err
	}
	if err != nil {
		return fmt.Errorf("seen: close pebble set %s: %w", d.dir, err)
	}
	return nil
}

var (
	_ seen.Set       = (*Set)(nil)
	_ seen.Stamped   = (*Set)(nil)
	_ seen.Committer = (*Set)(nil)
)
