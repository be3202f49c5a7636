// Package keylog is a seen-set kept on local disk as a log of its keys,
// appended and synced once per call, with a compact index of the keys in
// memory: at millions of keys a second on one core, new or not, where a
// set in an LSM store (seen/pebble, Pebble) takes a few hundred thousand.
// See Set.
//
// A set is a seen.Committer: InsertCommit records a run's batch number in
// the log with the batch's keys, and Rewind cuts the log back to one.
// Commit records are a kind of record that earlier versions of uriscan do
// not know: a log that holds them is refused as damaged by such a version
// (one whose only commit records come after its last keys, it opens and
// drops them). Logs written before read as they did.
package keylog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/internal/store"
)

// Set is a seen.Set kept on local disk, one directory per set: the file
// keys.log holds every key once, in the order they were added, and an
// index in memory says where. It survives restarts: opening the same
// directory again gives back every key added before and the same Len.
//
// # Durability
//
// A key that Add or AddBatch reported as new, or that Insert or
// InsertCommit was given, is durable before the call returns: the new
// keys of one call are appended to the log as one record, with its
// checksum, in one write, and the log is synced (fdatasync) before the
// call returns. So what was reported as
// new or inserted stays recorded through a crash of the process (kill -9),
// of the operating system or a power loss (as far as the disk honours
// fsync). A call whose keys were all recorded before writes nothing and
// does not sync. A call that returns an error may or may not have
// recorded its keys, all of them or none (a record that a crash cut short
// fails its checksum and is dropped at the next Open), and Len stays
// exact.
//
// The cost is one fsync per call that has at least one new key (about
// 50 µs on a fast NVMe drive to several milliseconds on network or
// rotating disks), so bulk work should go through AddBatch, Contains and
// Insert with batches of thousands of keys. Options.NoSync trades the
// guarantee for speed: keys then survive a crash of the process but not of
// the operating system, and after one the log may even be refused as
// damaged (the system may write a later record before an earlier one);
// the log is synced at Close and before each refresh of the state file's
// count, so that count is never ahead of the disk.
//
// # Identity, count and damage
//
// A set records a random identity (see seen.Stamp) and the seen.Params it
// was made with in the log's header, and keeps a small file of its own in
// the directory, uriscan-seen.json, with the identity, a count the log
// held at least (written at Open, at Close and after a commit when the
// last is a second old) and whether a process has the set open. Open
// reads the whole log and checks it against that file: a log that is gone,
// that is another set's, that holds fewer keys than the file records (cut
// short, or restored from an older copy) or whose file is gone while it
// holds keys is refused with a *seen.LostError (seen.ErrLost), unless
// Options.Recover. A record that fails its checksum is a write that a
// crash cut short when no valid record follows it (it is dropped: it was
// never reported); when one does, the log is damaged, and Open refuses it
// with an error wrapping ErrDamaged that gives the byte offset. Open
// verifies every record's checksum (Verify does it again at any time).
//
// # Commits
//
// InsertCommit writes a commit record, a seen.Commit (a run's identity
// and batch number), in front of the record of its new keys, in the same
// write and under the same sync: a crash that cuts the write short keeps
// a prefix of it, so a log that holds any of the keys holds the commit
// record, and InsertCommit costs what Insert does. Open reads the commit
// records with the keys (the same checksums, the same rules for a torn
// write and for damage) and keeps each run's last Seq in memory
// (Committed). Rewind cuts the log back to before a run's batch: see
// there.
//
// # Failures
//
// A write or a sync that fails (a full disk, an I/O error) stops the set:
// that call and every later one return the error (wrapped in "seen: key
// log DIR: ..."), and Close releases the directory. Nothing the failed
// call did is reported; what it wrote, if anything, is dropped or kept
// whole at the next Open. The log is read through a read-only memory
// mapping on Unix systems: a log truncated by another program under an
// open set stops the set too (the fault is caught), instead of ending the
// process.
//
// # Memory, disk and speed
//
// On disk, a key takes 16 bytes, plus 16 per call that added keys and 48
// per commit record (InsertCommit). In
// memory, the index takes 8 bytes per slot, between 10.7 and 21 bytes per
// key (it is rebuilt twice as large from the log when three quarters
// full); the log itself is read through the page cache. A key is looked up
// with one probe of the index; a new key is almost never read back from
// the log (its 32-bit fingerprint matches no slot), a recorded one once.
// Open reads the whole log (sequentially) and builds the index: about
// 0.1 s per million keys. The README gives keys per second at 10^5 to
// 10^8 keys (BenchmarkFrontier), beside seen.Memory, seen/pebble (Pebble)
// and Redis.
//
// # Concurrency
//
// A Set is safe for concurrent use: the calls are serialized by a mutex
// held across the look-ups and the synced write. Len may be called at
// any time. Only one Set may have a directory open at a time, in this
// process or any other (the set flocks uriscan-seen.lock on Unix systems;
// elsewhere only this process is kept out): a second Open fails with an
// error wrapping ErrLocked.
type Set struct {
	mu     sync.Mutex
	dir    string // as given, for messages
	path   string // dir made absolute at Open: the files are under it
	f      *os.File
	lockF  *os.File
	data   []byte // the log: a read-only mapping (mapped), or a copy
	mapped bool
	start  int64 // the unit where records begin
	end    int64 // units written: where the next record goes
	n      atomic.Int64
	id     string
	noSync bool
	closed bool
	err    error // sticky: the failure that stopped the set

	x index
	// old is the index x replaced while its keys move to x (nil when
	// none): the records from unit migNext up to migEnd are in old only.
	// See "Growth" in index.go.
	old             *index
	migNext, migEnd int64
	// buf is the write being made: bufHead bytes (room for a commit
	// record, then the keys record's header unit), then the keys.
	buf     []byte
	scratch []bool // Insert's answers, not returned
	// commits is the Seq of each run's last commit record in the log.
	commits map[string]int64

	stateAt    time.Time
	stateEvery time.Duration
	noMap      bool // Options.noMap
	stats      stats
}

// stats counts what the set did (for the tests and benchmarks).
type stats struct {
	confirmed int64 // fingerprint matches: keys read back to compare
	rebuilt   int64 // index builds
}

// Options tunes Open. The zero value (or nil) is the recommended setting,
// but for Params.
type Options struct {
	// NoSync writes without waiting for fsync: keys reported as new then
	// survive a crash of the process but not a crash of the operating
	// system or a power loss, after which the set may be refused as
	// damaged. See "Durability" on Set.
	NoSync bool
	// Params says how the set's keys are made (urikey.Hasher.Params):
	// recorded in a new set and checked against the record of an existing
	// one; see seen.Params. Open refuses nil Params unless AnyParams.
	Params seen.Params
	// AnyParams, with nil Params, opens the set whatever it records, and
	// records nothing in a new one.
	AnyParams bool
	// Recover opens a set that fails the checks of "Identity, count and
	// damage" on Set (it lost keys, or is another set than the one its
	// directory recorded, or its state file is gone or unreadable)
	// instead of refusing it with a *seen.LostError: the log is taken as
	// it is, and its identity and count become the reference of later
	// opens. A damaged log (ErrDamaged) is refused even so.
	Recover bool
	// MustExist refuses, with a *seen.LostError, a directory that is
	// absent or holds no log instead of making a new set there: for a
	// caller that knows a set was there (a checkpoint recorded its
	// seen.Stamp).
	MustExist bool

	// noMap keeps a copy of the log in memory instead of mapping it, as
	// on systems that map nothing (the tests of that path set it).
	noMap bool
}

var _ seen.Committer = (*Set)(nil)

// ErrNotSet is wrapped by the error Open returns for a directory that
// holds files and no key log: another program's, or a seen/pebble (Pebble)
// set.
var ErrNotSet = errors.New("seen: directory holds no key log set")

// ErrDamaged is wrapped by the error Open returns for a log that fails its
// checks other than by a crash's torn write: remove the directory and
// rebuild the set.
var ErrDamaged = errors.New("seen: key log is damaged")

// ErrLocked is wrapped by the error Open returns when the directory is
// in use by another Set, in this process or another.
var ErrLocked = errors.New("seen: key log set is in use")

// ErrRewindOthers is wrapped by the error of Rewind when commit records
// of other runs follow the point to cut back to: cutting would drop their
// keys too, so nothing is cut.
var ErrRewindOthers = errors.New("seen: other runs wrote to the key log after the point to cut back to")

var errLockHeld = errors.New("lock held")

// openDirs are the directories this process has open, to tell "already
// open in this process" from "in use by another process".
var openDirs sync.Map

// stateEvery is how often a commit refreshes the state file's count.
const stateEvery = time.Second

// Open opens the set stored in dir, creating dir and an empty set if dir
// does not exist or is empty. The Set must be closed to release the
// directory; a Set that is never closed loses nothing that was reported
// as new. Once it holds the directory's lock, Open removes the temporary
// files that a process killed while it replaced the state file (or made
// the log) left there.
//
// Open fails with an error wrapping ErrLocked when dir is in use, with
// ErrNotSet when it holds files that are not a set's, with ErrDamaged when
// the log is damaged, with a *seen.LostError when the set fails the checks
// described on Set (unless opts.Recover) or, with opts.MustExist, when dir
// holds no set, and, when opts.Params is not nil, with a *seen.ParamsError
// when the set was made with other seen.Params or an error wrapping
// seen.ErrNoParams when it holds keys but no seen.Params.
func Open(dir string, opts *Options) (*Set, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Params == nil && !o.AnyParams {
		return nil, fmt.Errorf("seen: open key log %s: %w", dir, store.ErrNilParams)
	}
	var params seen.Params
	if o.Params != nil {
		var err error
		if params, err = store.WithFormat(o.Params, format); err != nil {
			return nil, fmt.Errorf("seen: open key log %s: %w", dir, err)
		}
	}
	if err := checkDir(dir, o.MustExist); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("seen: open key log %s: %w", dir, err)
	}
	s := &Set{dir: dir, path: abs, noSync: o.NoSync, stateEvery: stateEvery, noMap: o.noMap}
	if err := s.lockDir(); err != nil {
		return nil, err
	}
	if err := removeStale(s.path); err != nil {
		s.release()
		return nil, fmt.Errorf("seen: open key log %s: removing the temporary files a killed process left: %w", dir, err)
	}
	if err := s.loadGuarded(params, o.Recover); err != nil {
		s.release()
		var pe *seen.ParamsError
		var le *seen.LostError
		var se *store.Error
		if errors.As(err, &pe) || errors.As(err, &le) || errors.As(err, &se) || errors.Is(err, ErrDamaged) || errors.Is(err, ErrNotSet) {
			return nil, err
		}
		return nil, fmt.Errorf("seen: open key log %s: %w", dir, err)
	}
	return s, nil
}

// IsPebbleFile reports whether a file of a directory's is one that marks
// a Pebble store (seen/pebble's): its CURRENT, a MANIFEST-* or a marker.*
// file. A key log is never opened, or made, where one is.
func IsPebbleFile(name string) bool {
	return name == "CURRENT" || strings.HasPrefix(name, "MANIFEST-") || strings.HasPrefix(name, "marker.")
}

// checkDir refuses a directory that holds files and no set (ErrNotSet)
// and, with mustExist, one that holds no log.
func checkDir(dir string, mustExist bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("seen: open key log %s: %w", dir, err)
	}
	hasLog := false
	for _, e := range entries {
		switch name := e.Name(); {
		case name == logName:
			hasLog = true
		case name == stateFile, name == lockFile, strings.HasPrefix(name, stateFile+".tmp"),
			strings.HasPrefix(name, logName+".tmp"), name == "lost+found", strings.HasPrefix(name, "."):
		case IsPebbleFile(name):
			return fmt.Errorf("%w: %s holds a Pebble store (a seen/pebble set): open it with package seen/pebble (uriscan dedup: --store pebble:DIR, in a uriscan built with -tags pebble)", ErrNotSet, dir)
		default:
			return fmt.Errorf("%w: %s is not empty and holds no key log (%s): not writing into it; name an empty or new directory", ErrNotSet, dir, name)
		}
	}
	if mustExist && !hasLog {
		return &seen.LostError{Store: "key log " + dir, Count: -1,
			Why: "the directory is absent or empty (no key log): the set was deleted or moved"}
	}
	return nil
}

// lockDir makes dir and takes its lock.
func (s *Set) lockDir() error {
	if err := os.MkdirAll(s.path, 0o755); err != nil {
		return fmt.Errorf("seen: open key log %s: %w", s.dir, err)
	}
	if _, loaded := openDirs.LoadOrStore(s.path, true); loaded {
		return &store.Error{Msg: fmt.Sprintf("seen: key log %s is in use: already open in this process", s.dir), Errs: []error{ErrLocked}}
	}
	f, err := os.OpenFile(filepath.Join(s.path, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err == nil {
		if err = lockFd(f); err != nil {
			f.Close()
		}
	}
	if err != nil {
		openDirs.Delete(s.path)
		if errors.Is(err, errLockHeld) {
			return &store.Error{Msg: fmt.Sprintf("seen: key log %s is in use by another process", s.dir), Errs: []error{ErrLocked}}
		}
		return fmt.Errorf("seen: open key log %s: %w", s.dir, err)
	}
	s.lockF = f
	return nil
}

// removeStale removes the temporary files of the state file and of the
// log that a process killed while it wrote them left in dir (whose lock
// the caller holds: no one else writes them).
func removeStale(dir string) error {
	if err := store.RemoveStaleState(dir); err != nil {
		return err
	}
	_, err := atomicfile.RemoveStale(filepath.Join(dir, logName))
	return err
}

// release gives back what Open took: the log, the lock.
func (s *Set) release() error {
	err := s.closeLog()
	if s.lockF != nil {
		err = errors.Join(err, s.lockF.Close()) // (closing it drops the flock)
		s.lockF = nil
		openDirs.Delete(s.path)
	}
	return err
}

// closeLog unmaps and closes the log.
func (s *Set) closeLog() error {
	var errs []error
	if s.mapped {
		errs = append(errs, unmapLog(s.data))
	}
	s.data, s.mapped = nil, false
	if s.f != nil {
		errs = append(errs, s.f.Close())
		s.f = nil
	}
	return errors.Join(errs...)
}

func (s *Set) name() string { return "key log " + s.dir }

// loadGuarded is load, with a fault while reading the mapped log (a log
// cut short under it) an error.
func (s *Set) loadGuarded(params seen.Params, recover bool) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.guard(&err)
	return s.load(params, recover)
}

// load opens or makes the log and the index, checks them against the
// state file and writes it.
func (s *Set) load(params seen.Params, recover bool) error {
	st, err := readState(s.path)
	switch {
	case errors.Is(err, ErrNotSet):
		return err
	case err != nil && !recover:
		return &seen.LostError{Store: s.name(), Count: -1,
			Why: fmt.Sprintf("%v, so nothing can say whether the log lost keys; if it is intact, open it with Recover (uriscan dedup --rebuild)", err)}
	case err != nil:
		st = nil // Recover: as if there were none
	}
	path := filepath.Join(s.path, logName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if st != nil && st.Count > 0 && !recover {
			return store.CheckStamp(s.name(), seen.Stamp{ID: st.ID, Count: st.Count}, "", 0)
		}
		id := store.NewID()
		if st != nil && st.Count == 0 {
			id = st.ID // a new set whose making a kill cut short
		}
		if err := makeLog(s.path, id, params); err != nil {
			return err
		}
	}
	if s.f, err = os.OpenFile(path, os.O_RDWR, 0); err != nil {
		return err
	}
	size, err := s.f.Seek(0, 2)
	if err != nil {
		return err
	}
	if size > maxUnits*int64(unit) {
		return fmt.Errorf("%w: %s is %d bytes, more than a key log holds (%d)", ErrDamaged, path, size, maxUnits*int64(unit))
	}
	if err := s.mapFor(size); err != nil {
		return err
	}
	id, stored, start, err := decodeHeader(s.data[:size])
	if errors.Is(err, errNotLog) {
		return fmt.Errorf("%w: %s does not begin with a key log's header", ErrDamaged, path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.id, s.start = id, start
	// Every record's checksum, every time (CRC-32C in hardware: a few
	// percent of the index's build). The index is sized from the keys
	// the record headers count, not from the file's size.
	counted := countKeys(s.data[:size], start)
	res, err := s.rebuild(s.data[:size], slotsFor(counted), true)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.end = res.end
	s.n.Store(res.keys)
	if err := s.checkState(st, recover); err != nil {
		return err
	}
	if remade, err := s.checkParams(params, stored, recover); remade || err != nil {
		return err
	}
	if res.torn > 0 {
		// A record a crash cut short: never reported, dropped (only once
		// the set is taken: a refused one is left as it was found).
		if err := s.f.Truncate(res.end * int64(unit)); err != nil {
			return err
		}
		if err := syncData(s.f); err != nil {
			return err
		}
	}
	if !s.mapped {
		s.data = s.data[:s.end*int64(unit)]
	}
	s.buf = make([]byte, bufHead, 64*unit)
	return writeState(s.path, state{Format: format, ID: s.id, Count: s.n.Load(), Open: true})
}

// rebuild makes the index and the commits of the records of data (the
// log up to where the set takes it) from unit s.start on, with an index
// of slots slots; with check, it verifies every record and that no key
// repeats (a log this set did not write).
func (s *Set) rebuild(data []byte, slots int, check bool) (scanResult, error) {
	s.old = nil
	s.x.reset(slots)
	s.commits = map[string]int64{}
	var log []byte
	if check {
		log = s.data
	}
	res, err := scanLog(data, s.start, check, func(r logRecord) error {
		if r.tag == commitTag {
			s.commits[r.run] = r.seq
			return nil
		}
		return s.x.insertRecord(uint32(r.u+1), r.body, log)
	})
	s.stats.rebuilt++
	return res, err
}

// checkState compares the log with the state file st (nil: none).
func (s *Set) checkState(st *state, recover bool) error {
	n := s.n.Load()
	if st == nil {
		if n > 0 && !recover {
			return &seen.LostError{Store: s.name(), Want: seen.Stamp{ID: s.id}, ID: s.id, Count: n,
				Why: fmt.Sprintf("its state file %s is gone, so nothing can say whether the log lost keys since it was last closed; if it is intact, open it once with Recover (uriscan dedup --rebuild)", stateFile)}
		}
		return nil
	}
	if recover {
		return nil
	}
	return store.CheckStamp(s.name(), seen.Stamp{ID: st.ID, Count: st.Count}, s.id, n)
}

// checkParams compares the Params the log records (stored, encoded; nil:
// none) with the caller's (nil: any). An empty set made without Params
// takes the caller's: its log is made again with them, under the lock,
// and loaded again (remade).
func (s *Set) checkParams(params seen.Params, stored []byte, recover bool) (remade bool, err error) {
	if params == nil {
		return false, nil
	}
	if stored == nil {
		if n := s.n.Load(); n > 0 {
			return false, store.NoParamsError(s.name(), n, params)
		}
		if err := s.closeLog(); err != nil {
			return false, err
		}
		if err := makeLog(s.path, s.id, params); err != nil {
			return false, err
		}
		return true, s.load(params, recover)
	}
	p, err := store.DecodeParams(stored)
	if err != nil {
		return false, fmt.Errorf("%w: %v", ErrDamaged, err)
	}
	return false, store.CheckParams(s.name(), p, params)
}

// makeLog writes an empty log for identity id and params into dir,
// replacing any: a whole file, synced, renamed into place, the directory
// synced.
func makeLog(dir, id string, params seen.Params) error {
	var enc []byte
	if params != nil {
		enc = store.EncodeParams(params)
	}
	f, err := os.CreateTemp(dir, logName+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(encodeHeader(id, enc))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, logName))
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	return atomicfile.SyncDir(dir)
}

// mapFor makes s.data cover at least size bytes of the log: a mapping
// with room to grow, or a copy where the system maps nothing.
func (s *Set) mapFor(size int64) error {
	if s.data != nil && int64(len(s.data)) >= size {
		return nil
	}
	if !s.mapped && s.data != nil {
		return nil // a copy grows by append
	}
	room := max(1<<30, 2*size)
	room = (room + 1<<21 - 1) &^ (1<<21 - 1)
	var m []byte
	if !s.noMap {
		var err error
		if m, err = mapLog(s.f, room); err != nil {
			return fmt.Errorf("mapping %s: %w", logName, err)
		}
	}
	if m == nil {
		b := make([]byte, size)
		if _, err := s.f.ReadAt(b, 0); err != nil {
			return err
		}
		s.data = b
		return nil
	}
	if s.mapped {
		if err := unmapLog(s.data); err != nil {
			unmapLog(m)
			return err
		}
	}
	s.data, s.mapped = m, true
	return nil
}

// usable returns the error that keeps the set from being used, if any.
func (s *Set) usable() error {
	if s.closed {
		return seen.ErrClosed
	}
	return s.err
}

// stop stops the set with err (see "Failures" on Set).
func (s *Set) stop(what string, err error) error {
	s.err = fmt.Errorf("seen: %s: %s: %w (the set is stopped)", s.name(), what, err)
	return s.err
}

// guard turns a memory fault while reading the mapped log (a log
// truncated under the set) into a stopped set; deferred by the calls
// that read it.
func (s *Set) guard(err *error) {
	p := recover()
	if p == nil {
		return
	}
	_, fault := p.(interface{ Addr() uintptr })
	if re, ok := p.(runtime.Error); ok && strings.Contains(re.Error(), "invalid memory address") {
		fault = true // (where the fault's address is not known: qemu-user)
	}
	if !fault {
		panic(p)
	}
	*err = s.stop("reading the log", fmt.Errorf("%v (was the file truncated?)", p))
}

// Add records k and reports whether it was new.
func (s *Set) Add(k seen.Key) (bool, error) {
	var isNew [1]bool
	err := s.AddBatch([]seen.Key{k}, isNew[:])
	return isNew[0], err
}

// AddBatch records keys and sets isNew[i] to whether keys[i] was new, as
// Add would in order; the new keys are durable when it returns (see
// "Durability" on Set).
func (s *Set) AddBatch(keys []seen.Key, isNew []bool) error {
	if len(isNew) < len(keys) {
		return seen.ErrShortBatch
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.add(keys, isNew[:len(keys)], nil)
}

// Insert records keys (see seen.Set).
func (s *Set) Insert(keys []seen.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if cap(s.scratch) < len(keys) {
		s.scratch = make([]bool, len(keys))
	}
	return s.add(keys, s.scratch[:len(keys)], nil)
}

// InsertCommit records c, then inserts keys as Insert does (see
// seen.Committer): the commit record and the keys record of the new keys
// go to the log in one write, the commit record first, and one sync, so
// a log that holds any of the keys holds c. With no new key (or none
// given) the commit record is written alone, and synced, unless the run's
// last commit record already says c.Seq: then nothing is written. The
// commit record takes 48 bytes of the log; it is not a key.
//
// A c.Run that is not a run identity is an error wrapping seen.ErrRunID,
// a c.Seq under 1 an error; neither stops the set.
func (s *Set) InsertCommit(c seen.Commit, keys []seen.Key) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	if !seen.ValidRunID(c.Run) {
		return fmt.Errorf("seen: %s: commit of run %q: %w", s.name(), c.Run, seen.ErrRunID)
	}
	if c.Seq < 1 {
		return fmt.Errorf("seen: %s: commit of run %s: its Seq is %d, not a batch number (from 1)", s.name(), c.Run, c.Seq)
	}
	if cap(s.scratch) < len(keys) {
		s.scratch = make([]bool, len(keys))
	}
	return s.add(keys, s.scratch[:len(keys)], &c)
}

// Committed returns the Seq of run's last commit record, 0 when it has
// none (see seen.Committer). A run that is not a run identity is an
// error wrapping seen.ErrRunID.
func (s *Set) Committed(run string) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return 0, err
	}
	if !seen.ValidRunID(run) {
		return 0, fmt.Errorf("seen: %s: commits of run %q: %w", s.name(), run, seen.ErrRunID)
	}
	return s.commits[run], nil
}

// Contains sets has[i] to whether keys[i] is recorded.
func (s *Set) Contains(keys []seen.Key, has []bool) (err error) {
	if len(has) < len(keys) {
		return seen.ErrShortBatch
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.guard(&err)
	s.probeAll(keys, has, false, 0)
	return nil
}

// group is how many keys probeAll loads the home slots of before it
// probes them, so that their cache misses overlap.
const group = 32

// bufHead is the room in front of the keys in s.buf: a commit record,
// then the keys record's header unit.
const bufHead = (commitUnits + 1) * unit

// probeAll sets found[i] to whether keys[i] is recorded. With insert,
// it also gives each key it does not find a position in the record being
// made (s.buf) and the index, so a key repeated later in keys is found;
// pre is the number of units written before that record's header (a
// commit record's, or 0).
func (s *Set) probeAll(keys []seen.Key, found []bool, insert bool, pre int64) {
	base := s.end + pre + 1 // the position of the record's first key
	var homes [group]int
	var fps [group]uint32
	var sink uint64
	for g := 0; g < len(keys); g += group {
		ks := keys[g:min(g+group, len(keys))]
		sl := s.x.slots
		for j := range ks {
			h, fp := split(&ks[j])
			homes[j], fps[j] = s.x.home(h), fp
			sink += sl[homes[j]] // a load that starts the miss
		}
		// The key in the log that a home slot's fingerprint points to, so
		// that a recorded key's read of the log overlaps too.
		for j := range ks {
			if v := sl[homes[j]]; v != 0 && uint32(v>>32) == fps[j] && int64(uint32(v)) < base {
				sink += uint64(s.data[int64(uint32(v))*int64(unit)])
			}
		}
		for j := range ks {
			k := &ks[j]
			i, fp := homes[j], fps[j]
			hit := false
			for {
				v := sl[i]
				if v == 0 {
					break
				}
				if uint32(v>>32) == fp {
					s.stats.confirmed++
					if s.keyAt(int64(uint32(v)), base) == *k {
						hit = true
						break
					}
				}
				if i++; i == len(sl) {
					i = 0
				}
			}
			if !hit && s.old != nil {
				hit = s.inOld(k)
			}
			found[g+j] = hit
			if !hit && insert {
				sl[i] = uint64(fp)<<32 | uint64(base+int64((len(s.buf)-bufHead)/unit))
				s.x.n++
				s.buf = append(s.buf, k[:]...)
			}
		}
	}
	s.x.sink += sink // keeps the loads
}

// inOld reports whether k is in the old index (whose keys are all in
// the log).
func (s *Set) inOld(k *seen.Key) bool {
	h, fp := split(k)
	sl := s.old.slots
	for i := s.old.home(h); ; {
		v := sl[i]
		if v == 0 {
			return false
		}
		if uint32(v>>32) == fp {
			s.stats.confirmed++
			if seen.Key(s.data[int64(uint32(v))*int64(unit):]) == *k {
				return true
			}
		}
		if i++; i == len(sl) {
			i = 0
		}
	}
}

// keyAt returns the key at position pos: in the log, or at and past base
// in the record being made.
func (s *Set) keyAt(pos, base int64) seen.Key {
	if pos >= base {
		return seen.Key(s.buf[int64(bufHead)+(pos-base)*int64(unit):])
	}
	return seen.Key(s.data[pos*int64(unit):])
}

// add is AddBatch, under s.mu, and with c (not nil) InsertCommit's
// commit record in the same write.
func (s *Set) add(keys []seen.Key, isNew []bool, c *seen.Commit) (err error) {
	if err := s.usable(); err != nil {
		return err
	}
	if len(keys) == 0 && c == nil {
		return nil
	}
	var pre int64
	if c != nil {
		pre = commitUnits
	}
	if s.end+pre+1+int64(len(keys)) > maxUnits {
		// (Not a failure of the store: the set goes on answering.)
		return fmt.Errorf("seen: %s: the log is full (%d units of 16 bytes; a log holds at most %d)", s.name(), s.end, int64(maxUnits))
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.guard(&err)
	if total := s.n.Load() + int64(len(keys)); total*loadDen > int64(len(s.x.slots))*loadNum {
		s.grow(total)
	}
	s.migrate(max(4*len(keys), migrateMin))
	s.buf = s.buf[:bufHead]
	s.probeAll(keys, isNew, true, pre)
	m := (len(s.buf) - bufHead) / unit
	for i := range isNew {
		isNew[i] = !isNew[i]
	}
	if m == 0 {
		if c == nil {
			return nil
		}
		if seq, ok := s.commits[c.Run]; ok && seq == c.Seq {
			return nil // recorded already, last of its run
		}
	}
	return s.commit(m, c)
}

// migrateMin is the fewest keys a call moves from the old index to the
// new one (see "Growth" in index.go).
const migrateMin = 1 << 16

// grow replaces the index with one for total keys: empty, while the
// keys of the one it replaces move to it a few calls at a time (migrate).
// A migration still going is finished first.
func (s *Set) grow(total int64) {
	s.migrate(math.MaxInt)
	old := s.x
	s.x = index{}
	s.x.reset(slotsFor(total))
	s.stats.rebuilt++
	if old.n > 0 {
		s.old, s.migNext, s.migEnd = &old, s.start, s.end
	}
}

// migrate moves the keys of at least budget keys' records (all, if
// fewer remain) from the old index to the new one, reading them from the
// log, and drops the old index when none remain.
func (s *Set) migrate(budget int) {
	for s.old != nil && budget > 0 && s.migNext < s.migEnd {
		u := s.migNext
		h := s.data[u*int64(unit):]
		n := int64(binary.LittleEndian.Uint32(h[4:]))
		if binary.LittleEndian.Uint32(h) == recordTag {
			s.x.insertRecord(uint32(u+1), s.data[(u+1)*int64(unit):(u+1+n)*int64(unit)], nil)
			budget -= int(n)
		}
		s.migNext = u + 1 + n
	}
	if s.old != nil && s.migNext >= s.migEnd {
		s.old = nil
	}
}

// commit writes, in one write, and syncs the commit record of c (if not
// nil) and the keys record of the m keys in s.buf (if any).
func (s *Set) commit(m int, c *seen.Commit) error {
	const keysAt = commitUnits * unit // the keys record's header in s.buf
	w := s.buf[keysAt:]
	if m > 0 {
		putRecordHeader(s.buf[keysAt:bufHead], s.buf[bufHead:])
	}
	if c != nil {
		putCommit(s.buf[:keysAt], c.Run, c.Seq)
		w = s.buf
		if m == 0 {
			w = s.buf[:keysAt]
		}
	}
	if _, err := s.f.WriteAt(w, s.end*int64(unit)); err != nil {
		return s.stop("writing the log", err)
	}
	if !s.noSync {
		if err := syncData(s.f); err != nil {
			return s.stop("syncing the log", err)
		}
	}
	s.end += int64(len(w) / unit)
	n := s.n.Add(int64(m))
	if c != nil {
		s.commits[c.Run] = c.Seq
	}
	if s.mapped {
		if err := s.mapFor(s.end * int64(unit)); err != nil {
			return s.stop("mapping the log", err)
		}
	} else {
		s.data = append(s.data, w...)
	}
	if now := time.Now(); now.Sub(s.stateAt) >= s.stateEvery {
		s.stateAt = now
		if s.noSync {
			// The count recorded is never ahead of what is on disk.
			if err := syncData(s.f); err != nil {
				return s.stop("syncing the log", err)
			}
		}
		if err := writeState(s.path, state{Format: format, ID: s.id, Count: n, Open: true}); err != nil {
			return s.stop("refreshing the state file", err)
		}
	}
	return nil
}

// Rewind cuts the log back to just before the first commit record of run
// whose Seq is above seq, and returns the number of keys dropped: every
// record from there on goes, the run's later commit records and the keys
// written with them, and the records of Add, AddBatch and Insert that
// follow them (they name no run: they go silently). It is how a set that
// is ahead of a checkpoint put back from an older copy is cut back to it
// (frontier's Options.Rewind): the keys of the batches after the
// checkpoint, whose lines the restored output no longer holds, must go.
// Afterwards Committed(run) is the Seq of the run's last commit record
// before the cut (at most seq; 0 for none), and the set stays open.
//
// When the run has no commit record with a Seq above seq, Rewind changes
// nothing and returns 0. When a commit record of another run follows the
// cut, it changes nothing and returns an error wrapping ErrRewindOthers
// that names those runs.
//
// Rewind reads the record headers of the log, writes the state file with
// the lower count, truncates the log and syncs it, then builds the index
// again from the log (about 0.1 s per million keys), holding the set's
// mutex. A crash in between leaves a set that opens: with the keys cut or
// still there (the state file's count is lower than both), in which case
// Rewind can be called again. A failure to write the state file or to
// cut or sync the log stops the set (see "Failures" on Set).
func (s *Set) Rewind(run string, seq int64) (dropped int64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return 0, err
	}
	if !seen.ValidRunID(run) {
		return 0, fmt.Errorf("seen: %s: rewind of run %q: %w", s.name(), run, seen.ErrRunID)
	}
	dropped, err = s.rewind(run, seq)
	if err != nil {
		return 0, err
	}
	return dropped, nil
}

// rewind is Rewind, under s.mu.
func (s *Set) rewind(run string, seq int64) (dropped int64, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.guard(&err)
	cut := int64(-1)
	var others []string
	_, err = scanLog(s.data[:s.end*int64(unit)], s.start, false, func(r logRecord) error {
		switch {
		case r.tag == commitTag && cut < 0 && r.run == run && r.seq > seq:
			cut = r.u
		case cut < 0:
		case r.tag == recordTag:
			dropped += int64(len(r.body) / unit)
		case r.run != run && !slices.Contains(others, r.run):
			others = append(others, r.run)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("seen: %s: rewind of run %s: %w", s.name(), run, err)
	}
	if cut < 0 {
		return 0, nil
	}
	if len(others) > 0 {
		names := others
		if len(names) > 10 {
			names = append(names[:10:10], fmt.Sprintf("and %d more", len(others)-10))
		}
		return 0, &store.Error{
			Msg: fmt.Sprintf("seen: %s: cannot rewind run %s to batch %d: its batch %d begins at byte %d of %s, and commit records of %d other run(s) follow it (%s): cutting there would drop their keys too; nothing was changed",
				s.name(), run, seq, s.seqAt(cut), cut*int64(unit), logName, len(others), strings.Join(names, ", ")),
			Errs: []error{ErrRewindOthers},
		}
	}
	keys := s.n.Load() - dropped
	if s.noSync {
		// The count recorded is never ahead of what is on disk.
		if err := syncData(s.f); err != nil {
			return 0, s.stop("syncing the log", err)
		}
	}
	// The lower count first: it holds of the log before the cut and
	// after it, whatever a crash leaves.
	s.stateAt = time.Now()
	if err := writeState(s.path, state{Format: format, ID: s.id, Count: keys, Open: true}); err != nil {
		return 0, s.stop("rewinding: writing the state file", err)
	}
	if err := s.f.Truncate(cut * int64(unit)); err != nil {
		return 0, s.stop("rewinding: cutting the log", err)
	}
	if err := s.f.Sync(); err != nil {
		return 0, s.stop("rewinding: syncing the log", err)
	}
	s.end = cut
	if !s.mapped {
		s.data = s.data[:cut*int64(unit)]
	}
	res, err := s.rebuild(s.data[:cut*int64(unit)], slotsFor(keys), false)
	if err == nil && (res.end != cut || res.keys != keys) {
		err = fmt.Errorf("%w: %d keys up to unit %d read back, where %d up to unit %d were kept", ErrDamaged, res.keys, res.end, keys, cut)
	}
	if err != nil {
		return 0, s.stop("rewinding: reading the log again", err)
	}
	s.n.Store(keys)
	return dropped, nil
}

// seqAt returns the Seq of the commit record at unit u.
func (s *Set) seqAt(u int64) int64 {
	body := s.data[(u+1)*int64(unit) : (u+commitUnits)*int64(unit)]
	return int64(binary.LittleEndian.Uint64(body[16:]))
}

// Len returns the number of keys recorded.
func (s *Set) Len() int64 { return s.n.Load() }

// Stamp returns the set's identity and its number of keys.
func (s *Set) Stamp() seen.Stamp { return seen.Stamp{ID: s.id, Count: s.n.Load()} }

// Check returns a *seen.LostError if the set is not the one st was taken
// of, or holds fewer keys than st.Count.
func (s *Set) Check(st seen.Stamp) error {
	return store.CheckStamp(s.name(), st, s.id, s.n.Load())
}

// Verify reads the whole log again and checks every record's checksum
// and the count: an error wrapping ErrDamaged, or a *seen.LostError. It
// holds the set's mutex while it reads.
func (s *Set) Verify() (err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.usable(); err != nil {
		return err
	}
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer s.guard(&err)
	commits := map[string]int64{}
	res, err := scanLog(s.data[:s.end*int64(unit)], s.start, true, func(r logRecord) error {
		if r.tag == commitTag {
			commits[r.run] = r.seq
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("seen: %s: %w", s.name(), err)
	}
	if res.end != s.end {
		return fmt.Errorf("seen: %s: %w: the record at byte %d fails its checksum", s.name(), ErrDamaged, res.end*int64(unit))
	}
	if n := s.n.Load(); res.keys != n {
		return &seen.LostError{Store: s.name(), Want: s.Stamp(), ID: s.id, Count: res.keys,
			Why: fmt.Sprintf("it holds %d keys where %d were recorded", res.keys, n)}
	}
	if !maps.Equal(commits, s.commits) {
		return fmt.Errorf("seen: %s: %w: its commit records say %v, where the set records %v", s.name(), ErrDamaged, commits, s.commits)
	}
	return nil
}

// Close syncs the log (with NoSync), records the count in the state file
// and releases the directory. A set stopped by a failure is released
// without writing, and Close returns that failure.
func (s *Set) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return seen.ErrClosed
	}
	s.closed = true
	err := s.err
	if err == nil && s.noSync {
		err = syncData(s.f)
	}
	if err == nil {
		err = writeState(s.path, state{Format: format, ID: s.id, Count: s.n.Load()})
	}
	s.x.slots, s.old = nil, nil
	return errors.Join(err, s.release())
}
