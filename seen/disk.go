package seen

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"log"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
)

// Disk is a Set kept on local disk in an embedded Pebble store
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
// nothing and does not sync. A call that returns an error may or may not
// have recorded its keys; the batch is atomic, so either all of its new
// keys and the count are recorded or none, and Len stays exact: Insert
// too looks every key up first and counts only the ones it adds.
//
// The cost is one fsync per call that has at least one new key, typically
// from about 50 µs (a fast NVMe drive) to several milliseconds (network
// or rotating disks). Add is a batch of one and pays it for every new key,
// so bulk work should go through AddBatch with batches of hundreds to
// thousands of keys, which spreads one fsync over the whole batch.
// DiskOptions.NoSync trades the guarantee for speed: writes still go
// through the write-ahead log, so they survive a crash of the process but
// may be lost (all of them after some point, never a random subset) when
// the operating system crashes or power fails.
//
// # Concurrency
//
// Disk is safe for concurrent use. Add, AddBatch, Contains and Insert are
// serialized by a mutex held across the look-ups and the synced commit
// (the check and the add must be one step for isNew and the count to be
// right), so concurrent callers get no more throughput than one caller
// with larger batches. Len may be called at any time and does not wait
// for a running call. Only one process may open a directory at a time:
// Pebble locks it, and a second OpenDisk of the same directory, from
// another process or from this one, fails with an error wrapping
// ErrLocked.
//
// # Layout
//
// Each key is stored as the Pebble key 'k' followed by its 16 bytes, with
// an empty value. Records under other names hold a format marker
// ("m/format"), the number of keys ("m/count", 8 bytes, little-endian),
// rewritten in every batch that adds keys, so Len is restored on open by
// one read, and the Params the set was made with ("m/params", a JSON
// object; absent in sets made without Params or by earlier versions).
// Bloom filters (10 bits per key) on every level let a look-up of a new
// key skip most files without reading them.
type Disk struct {
	mu     sync.Mutex
	db     *pebble.DB
	n      atomic.Int64 // number of keys, mirrors the count record
	closed bool
	err    error // sticky: set when a commit failed

	noSync bool
	kbuf   [keyLen]byte
	order  []int32 // indices of the current batch's keys, reused
}

// DiskOptions tunes OpenDisk. The zero value (or a nil *DiskOptions) is
// the recommended setting.
type DiskOptions struct {
	// CacheSize is the size in bytes of Pebble's block cache. Zero means
	// 64 MiB.
	CacheSize int64
	// MemTableSize is the size in bytes of one Pebble memtable (the
	// in-memory part of the store, written out to a file when full). Zero
	// means 64 MiB.
	MemTableSize uint64
	// NoSync commits without waiting for fsync. Keys reported as new then
	// survive a crash of the process but not a crash of the operating
	// system or a power loss. See Disk.
	NoSync bool
	// Logger receives Pebble's messages. Nil means errors go to the
	// standard log package and informational messages are dropped.
	Logger pebble.Logger
	// Params, when not nil, is recorded in a new set and checked against
	// the record of an existing one; see Params. Nil records and checks
	// nothing.
	Params Params
}

const (
	keyPrefix = 'k'
	keyLen    = 1 + len(Key{})
	// diskFormat is the value of the format record.
	diskFormat = "uriscan/seen disk v1"
)

var (
	formatRecord = []byte("m/format")
	countRecord  = []byte("m/count")
	paramsRecord = []byte("m/params")
)

// ErrNotDiskSet is returned (wrapped) by OpenDisk when the directory holds a
// Pebble store that is not a Disk set.
var ErrNotDiskSet = errors.New("seen: directory holds a Pebble store that is not a seen set")

// ErrLocked is wrapped by the error OpenDisk returns when the directory is
// in use: opened by another process, or already by this one, and not
// closed. The error's message is one line, "seen: disk set DIR is in use
// by another process" (or "... is in use: already open in this process").
var ErrLocked = errors.New("seen: disk set is in use")

// quietLogger drops Pebble's informational messages.
type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	log.Printf("seen: pebble: "+format, args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	log.Fatalf("seen: pebble: "+format, args...)
}

// OpenDisk opens the set stored in dir, creating dir and an empty set if
// dir does not exist or is empty. opts may be nil. The returned Disk must
// be closed to release the directory lock and flush Pebble's state; a Disk
// that is never closed loses nothing that was reported as new (see Disk),
// but the next OpenDisk replays the write-ahead log.
//
// OpenDisk fails with an error wrapping ErrLocked when dir is in use, with
// ErrNotDiskSet when it holds another Pebble store, and, when opts.Params
// is not nil, with a *ParamsError when the set was made with other Params
// or an error wrapping ErrNoParams when it holds keys but no Params (see
// Params).
func OpenDisk(dir string, opts *DiskOptions) (*Disk, error) {
	var o DiskOptions
	if opts != nil {
		o = *opts
	}
	var params Params
	if o.Params != nil {
		var err error
		if params, err = o.Params.withFormat(diskFormat); err != nil {
			return nil, fmt.Errorf("seen: open disk set %s: %w", dir, err)
		}
	}
	if o.CacheSize <= 0 {
		o.CacheSize = 64 << 20
	}
	if o.MemTableSize == 0 {
		o.MemTableSize = 64 << 20
	}
	if o.Logger == nil {
		o.Logger = quietLogger{}
	}
	cache := pebble.NewCache(o.CacheSize)
	defer cache.Unref()
	po := &pebble.Options{
		Cache:        cache,
		MemTableSize: o.MemTableSize,
		Logger:       o.Logger,
	}
	for i := range po.Levels {
		po.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
	}
	db, err := pebble.Open(dir, po)
	if err != nil {
		if locked, here := isLockError(err); locked {
			msg := fmt.Sprintf("seen: disk set %s is in use by another process", dir)
			if here {
				msg = fmt.Sprintf("seen: disk set %s is in use: already open in this process", dir)
			}
			return nil, &wrapped{msg: msg, errs: []error{ErrLocked, err}}
		}
		return nil, fmt.Errorf("seen: open disk set %s: %w", dir, err)
	}
	d := &Disk{db: db, noSync: o.NoSync}
	if err := d.load(dir, params); err != nil {
		db.Close()
		var pe *ParamsError
		if errors.As(err, &pe) || errors.Is(err, ErrNoParams) {
			return nil, err // they name the set themselves
		}
		return nil, fmt.Errorf("seen: open disk set %s: %w", dir, err)
	}
	return d, nil
}

// load reads the format and count records, or writes them into an empty
// store, and records or checks params (with "format"; nil: neither).
func (d *Disk) load(dir string, params Params) error {
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
			return ErrNotDiskSet
		}
		b := d.db.NewBatch()
		defer b.Close()
		var zero [8]byte
		b.Set(formatRecord, []byte(diskFormat), nil)
		b.Set(countRecord, zero[:], nil)
		if params != nil {
			b.Set(paramsRecord, encodeParams(params), nil)
		}
		return b.Commit(pebble.Sync)
	}
	if string(format) != diskFormat {
		return fmt.Errorf("%w (format %q, want %q)", ErrNotDiskSet, format, diskFormat)
	}
	count, err := d.get(countRecord)
	if err != nil {
		return err
	}
	if len(count) != 8 {
		return fmt.Errorf("seen: disk set: count record is %d bytes, want 8", len(count))
	}
	d.n.Store(int64(binary.LittleEndian.Uint64(count)))
	if params == nil {
		return nil
	}
	store := "disk set " + dir
	rec, err := d.get(paramsRecord)
	if err != nil {
		return err
	}
	if rec == nil {
		if n := d.n.Load(); n > 0 {
			return noParamsError(store, n, params)
		}
		// An empty set made without Params: it takes these.
		return d.db.Set(paramsRecord, encodeParams(params), pebble.Sync)
	}
	stored, err := decodeParams(rec)
	if err != nil {
		return err
	}
	return checkParams(store, stored, params)
}

// get returns a copy of the value of key, or nil if there is none.
func (d *Disk) get(key []byte) ([]byte, error) {
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

// has reports whether k is stored.
func (d *Disk) has(k *Key) (bool, error) {
	d.kbuf[0] = keyPrefix
	copy(d.kbuf[1:], k[:])
	_, closer, err := d.db.Get(d.kbuf[:])
	if errors.Is(err, pebble.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, closer.Close()
}

// Add records k and reports whether it was new; a new k is durable when
// Add returns (see Disk). It is AddBatch of one key.
func (d *Disk) Add(k Key) (bool, error) {
	keys := [1]Key{k}
	var isNew [1]bool
	err := d.AddBatch(keys[:], isNew[:])
	return isNew[0], err
}

// AddBatch records keys and sets isNew[i] as a sequence of Add(keys[i])
// would. It looks every key up, then writes the new ones and the updated
// count in one Pebble batch committed with pebble.Sync (unless NoSync), so
// the keys reported new are durable when it returns; a batch with no new
// key writes nothing. It returns ErrShortBatch if len(isNew) < len(keys),
// ErrClosed after Close, and otherwise an error from Pebble, after which
// the keys of this batch may or may not be recorded and every later call
// returns the same error (Len may then lag behind the store until the set
// is reopened).
func (d *Disk) AddBatch(keys []Key, isNew []bool) error {
	if len(isNew) < len(keys) {
		return ErrShortBatch
	}
	return d.add(keys, isNew[:len(keys)])
}

// Insert records keys: AddBatch without the answers, with the same
// durability (one synced batch of the keys not recorded yet and the
// updated count) and errors. Keys already recorded, and repeats within
// keys, are looked up and not written, so Len stays exact and calling
// Insert again with the same keys, after an error or a crash, is
// harmless.
func (d *Disk) Insert(keys []Key) error {
	return d.add(keys, nil)
}

// Contains sets has[i] to whether keys[i] is recorded and writes nothing.
// It looks the keys up in key order, like AddBatch, under the same mutex.
// It returns ErrShortBatch if len(has) < len(keys), ErrClosed after
// Close, the error of an earlier failed write (see AddBatch), and
// otherwise an error from Pebble.
func (d *Disk) Contains(keys []Key, has []bool) error {
	if len(has) < len(keys) {
		return ErrShortBatch
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if d.err != nil {
		return d.err
	}
	prev := int32(-1)
	for _, i := range d.sorted(keys) {
		k := &keys[i]
		if prev >= 0 && keys[prev] == *k {
			has[i] = has[prev]
			continue
		}
		prev = i
		found, err := d.has(k)
		if err != nil {
			return fmt.Errorf("seen: disk set: look-up: %w", err)
		}
		has[i] = found
	}
	return nil
}

// sorted returns the indexes of keys sorted by (key, index), in d.order.
//
// Looking the keys up in key order makes consecutive look-ups share the
// upper part of their search paths in the memtable and in the sstables'
// indexes, which the caches keep warm, and puts the new keys into the
// batch sorted, which Pebble inserts faster. Sorting by (key, index) also
// puts the repeats of a key right after its first occurrence.
func (d *Disk) sorted(keys []Key) []int32 {
	order := d.order[:0]
	for i := range keys {
		order = append(order, int32(i))
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := bytes.Compare(keys[a][:], keys[b][:]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	d.order = order
	return order
}

// add is AddBatch (isNew of len(keys)) and Insert (isNew nil).
func (d *Disk) add(keys []Key, isNew []bool) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	if d.err != nil {
		return d.err
	}
	if len(keys) == 0 {
		return nil
	}
	clear(isNew)
	order := d.sorted(keys)
	// Only the first occurrence of a key can be new.
	fresh := order[:0] // overwrites order behind the read position
	prev := int32(-1)
	for _, i := range order {
		k := &keys[i]
		if prev >= 0 && keys[prev] == *k {
			continue
		}
		prev = i
		found, err := d.has(k)
		if err != nil {
			return fmt.Errorf("seen: disk set: look-up: %w", err)
		}
		if !found {
			if isNew != nil {
				isNew[i] = true
			}
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		return nil
	}
	b := d.db.NewBatchWithSize(len(fresh)*(keyLen+8) + 64)
	defer b.Close()
	for _, i := range fresh {
		d.kbuf[0] = keyPrefix
		copy(d.kbuf[1:], keys[i][:])
		if err := b.Set(d.kbuf[:], nil, nil); err != nil {
			return d.fail(err)
		}
	}
	n := d.n.Load() + int64(len(fresh))
	var count [8]byte
	binary.LittleEndian.PutUint64(count[:], uint64(n))
	if err := b.Set(countRecord, count[:], nil); err != nil {
		return d.fail(err)
	}
	wo := pebble.Sync
	if d.noSync {
		wo = pebble.NoSync
	}
	if err := b.Commit(wo); err != nil {
		return d.fail(err)
	}
	d.n.Store(n)
	return nil
}

// fail records a write error: the store's state is unknown from here on.
func (d *Disk) fail(err error) error {
	d.err = fmt.Errorf("seen: disk set: write failed: %w", err)
	return d.err
}

// Len returns the number of distinct keys recorded; after Close, the
// number recorded before it.
func (d *Disk) Len() int64 { return d.n.Load() }

// Close closes the store and releases the directory. Add, AddBatch,
// Contains and Insert then return ErrClosed; a second Close returns
// ErrClosed.
func (d *Disk) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return ErrClosed
	}
	d.closed = true
	d.order = nil
	if err := d.db.Close(); err != nil {
		return fmt.Errorf("seen: close disk set: %w", err)
	}
	return nil
}

var _ Set = (*Disk)(nil)
