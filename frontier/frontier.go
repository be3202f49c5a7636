// Package frontier records the first occurrence of each URI of a stream
// in an output log, exactly once across kills and restarts: the frontier
// of a crawler, the new lines of a log. It owns the protocol that makes
// that hold over any seen.Set: the batch, the write and sync, the
// checkpoint, the replay and the truncation.
//
// # The guarantee
//
// A Log decides its input a batch at a time (Options.Batch records), in
// four steps, in this order: (1) ask the set which keys it holds
// (seen.Set.Contains, read-only); (2) write the new records to the output
// and, for an output file, fsync it; (3) record a checkpoint (atomically:
// written beside, synced, renamed, the directory synced): where the input
// is decided up to, where the batch started, the output's length, the
// run's identity and the number of its batch, sealed with a checksum; (4)
// add the batch's new keys to the set (seen.Set.Insert, idempotent), for
// a seen.Committer after a record of the run's batch number
// (InsertCommit). A kill
// between any two steps loses nothing: before (3) the batch is not
// decided, and Open cuts the output back to the checkpoint's length, so
// it is decided and written again; after (3) Open adds the batch's keys
// again (its lines are read again and replayed: keys added, nothing
// written). So:
//
//   - to an output file (Options.Output) every record's first occurrence
//     is written exactly once, in input order, whatever the kills;
//   - to a Writer (a pipe) at least once: a kill may repeat the last
//     batch, never lose one.
//
// A persistent set (seen/keylog, seen/pebble, seen/redis) that is not the one the
// checkpoint was made against, or that lost keys (seen.Stamped, Check),
// is refused on Open rather than let lines be written twice; with
// Options.Rebuild the keys of the output's lines are added back instead
// (Options.KeyOf). A set in memory (seen.Memory) is refilled from the
// output on every resume.
//
// # The checkpoint and the set agree
//
// A seen.Committer set (every persistent set of this module) keeps, per
// run, the number of the run's last batch that began to add keys; the
// checkpoint records that number once the batch's keys are in, and the
// one before. Since the checkpoint is written first, then the run's
// record, then the keys, a kill leaves the set at one of the two, and the
// run resumes. A set that records a later batch is ahead of the
// checkpoint (the checkpoint and its output were put back from an older
// copy): Open refuses it with an *AheadError (ErrStoreAhead), which
// Rebuild cannot mend; Options.Rewind cuts a Rewinder (seen/keylog) back,
// or a new set takes the output's keys (Rebuild, with another set: see
// Options.SetEntry). A set that records an earlier batch lost the run's
// writes: a *seen.LostError, which Rebuild mends. A checkpoint whose
// checksum does not match is refused with ErrDamaged; one of versions 1
// and 2 (no run, no checksum) is read and written back as version 3.
//
// # Driving it
//
// The caller reads its inputs from Start (the beginning, or where a
// resumed run must read again), and for each input line calls Add for each
// record the line holds (none for a blank or invalid line, several for a
// line of free text), then EndLine with the line's bytes and the position
// after it; after each input, EndInput. Commit decides the pending batch
// at once (before a read that may block, so that output keeps up with a
// slow input), Finish decides the rest and records that the run is done.
// While Replaying, the lines are those the last batch of the run before
// held: the caller computes their keys as usual and reports nothing
// (the Log writes nothing).
package frontier

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/internal/highway"
	"github.com/uriscan/uriscan/seen"
)

// Position is a place in the inputs: the input's index, the byte offset
// in it (of its decompressed bytes), and the number of lines before it.
type Position struct {
	Input  int   `json:"file"`
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
}

// Before reports whether p comes before q.
func (p Position) Before(q Position) bool {
	return p.Input < q.Input || p.Input == q.Input && p.Offset < q.Offset
}

// Tally counts what a run decided. Lines, Records and Unique are the
// Log's; Other holds the caller's own counts of lines (Count), by name.
type Tally struct {
	Lines   int64            `json:"lines"`   // input lines decided
	Records int64            `json:"records"` // records (Add) in them
	Unique  int64            `json:"unique"`  // records written: first occurrences
	Other   map[string]int64 `json:"other,omitempty"`
}

// Duplicates is the number of records that were not first occurrences.
func (t Tally) Duplicates() int64 { return t.Records - t.Unique }

func (t *Tally) add(u Tally) {
	t.Lines += u.Lines
	t.Records += u.Records
	t.Unique += u.Unique
	for k, v := range u.Other {
		if t.Other == nil {
			t.Other = map[string]int64{}
		}
		t.Other[k] += v
	}
}

// DefaultBatch is Options.Batch's default.
const DefaultBatch = 1024

// Options configure Open.
type Options struct {
	// Output is the file the first occurrences go to, exactly once
	// across kills (see the package doc). Empty: Writer.
	Output string
	// Writer, when Output is empty, is where the first occurrences go:
	// at least once. Each batch ends with a Flush if it has one
	// (*bufio.Writer).
	Writer io.Writer
	// Checkpoint is the file the progress is recorded in; default Output
	// + ".checkpoint". With a Writer and no Checkpoint nothing is
	// recorded (and a rerun starts over).
	Checkpoint string
	// Resume continues from an existing Checkpoint; without it an
	// existing checkpoint is refused. With Output it is implied.
	Resume bool
	// Inputs name the inputs ("-" is standard input), Run describes the
	// rest of what the run
	// does (its settings): both are recorded in the checkpoint, and a
	// resume with others is refused, naming the difference.
	Inputs []string
	Run    map[string]string
	// Batch is how many records are decided at once; default
	// DefaultBatch. Larger batches pay fewer syncs.
	Batch int
	// KeyOf returns the key of a line of the output (without its "\n"),
	// as Add was given it: used on resume to refill a set that does not
	// persist (one that is not a seen.Stamped, such as seen.Memory), and
	// with Rebuild. Required with an Output and such a set.
	KeyOf func(line []byte) (seen.Key, error)
	// Rebuild adds back the keys of the output's lines (KeyOf) when
	// resuming with a persistent set, always: to a set that lost keys
	// (refused without it) or may have lost fewer than Check sees.
	Rebuild bool
	// SetEntry names the entry of Run that says which set the run uses
	// (uriscan dedup: "store"), if one does. With Rebuild it may differ
	// from the checkpoint's: the run goes on with another set, which
	// gets the keys of the output's lines (a new set, where the old one
	// is ahead of the checkpoint or lost).
	SetEntry string
	// OnRebuild, when set, is told that Rebuild adds back the keys of
	// the output's first n bytes, and why (lost nil: the set passed
	// Check); n is 0 for a Writer, which takes the set as it is.
	OnRebuild func(lost error, n int64)
	// Decided says the caller decides the records itself, in input
	// order, against the Log's set, and gives each with its decision
	// (AddDecided, not Add): for a set in memory (seen.Memory), that adds
	// each key as it answers (AddBatch), as the Log would; every record,
	// those a resume replays too. The Log then uses its set only in Open
	// (it refills it from Output on resume), so the caller may decide on
	// other goroutines, ahead of the Log: uriscan dedup's workers decide
	// their chunks in turn, and the goroutine that feeds the Log mostly
	// writes.
	Decided bool
	// Rewind, when the set records more of this run than the checkpoint
	// (an ErrStoreAhead: the checkpoint and its output were put back
	// from an older copy), cuts the set back to the checkpoint's batch
	// instead of refusing it, when the set can (a Rewinder: seen/keylog)
	// and no other run with a checkpoint wrote to it since. What was
	// added after that batch goes, keys that runs without a checkpoint
	// added too. It happens in Open, after the output is found to hold
	// what the checkpoint says and before the last batch is read again:
	// a resume refused after it (an input that changed) finds the set
	// cut back.
	Rewind bool
	// OnRewind, when set, is told how many keys Rewind dropped.
	OnRewind func(dropped int64)
}

// Rewinder is a set that can be cut back to a run's batch: what a set
// holds after the run's commit record of batch seq+1 (seen.Committer) is
// dropped, refused when another run wrote after it. seen/keylog's Set is
// one.
type Rewinder interface {
	Rewind(run string, seq int64) (dropped int64, err error)
}

// ErrStoreAhead is wrapped by Open's error (an *AheadError) for a set
// that records later batches of this run than the checkpoint does: the
// checkpoint, and its output, are older than the set (put back from a
// copy), and a resume would take the lines of those batches for seen and
// lose them. Options.Rebuild cannot mend it (it only adds keys); a new
// set rebuilt from the output can, or, for a Rewinder, Options.Rewind.
var ErrStoreAhead = errors.New("frontier: the set is ahead of the checkpoint")

// AheadError reports a set ahead of the checkpoint (ErrStoreAhead).
type AheadError struct {
	Checkpoint string
	Run        string
	// Seq is the batch the checkpoint records, StoreSeq the one the set
	// records of the run (seen.Committer.Committed).
	Seq, StoreSeq int64
	// Rewind says why Options.Rewind could not cut the set back, if it
	// was asked to.
	Rewind error
}

func (e *AheadError) Error() string {
	s := fmt.Sprintf("checkpoint %s is older than the store: the store records commit %d of this run (run %s) and the checkpoint commit %d (a commit is a batch that added keys), so the checkpoint and its output were put back from an older copy (or the store from a newer one); a resume would take the lines of commits %d to %d for seen and lose them; nothing was changed",
		e.Checkpoint, e.StoreSeq, e.Run, e.Seq, e.Seq+1, e.StoreSeq)
	if e.Rewind != nil {
		s += "; the store was not cut back: " + e.Rewind.Error()
	}
	return s
}

func (e *AheadError) Unwrap() error { return ErrStoreAhead }

// Error is the error that stopped a Log: Step says which ("store",
// "output", "checkpoint", "resume").
type Error struct {
	Step string
	Err  error
}

func (e *Error) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// A Log records the first occurrences of a run's records; see the
// package doc. It is not safe for concurrent use.
type Log struct {
	set   seen.Set
	o     Options
	batch int

	out      io.Writer
	bw       *bufio.Writer // over file
	file     *os.File      // Output, or nil
	lockFile *os.File
	outLen   int64

	ckpt checkpoint

	// The batch: keys of its records, their text (record i is
	// text[ends[i-1]:ends[i]], each ending in "\n").
	keys    []seen.Key
	text    []byte
	ends    []int
	has     []bool
	decided []bool // with Options.Decided: the records' decisions (AddDecided)
	newKeys []seen.Key
	inBatch map[seen.Key]struct{}
	pending Tally // of the lines read since the last checkpoint
	tally   Tally // decided
	digest  batchDigest
	pos     Position // the input is read up to here
	start   Position // where the batch starts (the last checkpoint's Next)

	resumed      bool
	replaying    bool
	replayTo     Position
	replayDigest string
	replay       []seen.Key
	startAt      Position // where the caller reads from
	errors       []string

	err      error
	finished bool
}

// checkpointVersion is the layout of the checkpoint file. Version 1 was
// uriscan dedup's own before the Log; version 2 had no run and no
// checksum; both are read and upgraded (see readCheckpoint).
const checkpointVersion = 3

// checkpoint is what a Log records after each batch's new records are
// written (and, for an Output, synced), before the batch's keys are added
// to the set: Next, where the input is decided up to (a restart reads
// from there); Batch, where that batch started (its keys may not have
// reached the set: a restart adds them again, from the lines Batch to
// Next, whose digest BatchDigest is); OutputLength, the output's length
// (a restart cuts the file to it); StoreStamp, the set's identity and
// count after the batch before (a restart refuses a set that is not that
// one or holds fewer keys); Run, the run's identity, and StoreCommit,
// what the set records of this run (seen.Committer) once the batch's keys
// are in. The file is sealed with its checksum (atomicfile.SealJSON).
type checkpoint struct {
	Version      int               `json:"version"`
	Run          map[string]string `json:"run"`
	RunID        string            `json:"run_id,omitempty"`
	Inputs       []string          `json:"inputs"`
	Output       string            `json:"output,omitempty"`
	OutputLength int64             `json:"output_length"`
	Batch        Position          `json:"batch"`
	BatchDigest  string            `json:"batch_digest"`
	Next         Position          `json:"next"`
	Tally        Tally             `json:"tally"`
	Errors       []string          `json:"errors,omitempty"`
	StoreStamp   *seen.Stamp       `json:"store_stamp,omitempty"`
	StoreCommit  *storeCommit      `json:"store_commit,omitempty"`
	Done         bool              `json:"done"`
}

// storeCommit is the commit number (seen.Commit.Seq) a seen.Committer
// set records for the run: Seq once the checkpoint's batch has inserted
// its keys, Before until then (Before == Seq: the batch had no new keys,
// nothing to insert). The set holds one of the two, or the checkpoint and
// the set do not belong together.
type storeCommit struct {
	Seq    int64 `json:"seq"`
	Before int64 `json:"before"`
}

// readCheckpoint reads the checkpoint in name; ok is false if there is
// none. A checkpoint whose checksum does not match (damaged or edited) is
// an error wrapping ErrDamaged. Versions 1 and 2 (unsealed) are read and
// upgraded: they name no run, so the first resume checks the set only by
// its stamp and the run gets an identity from then on.
func readCheckpoint(name string) (c checkpoint, ok bool, err error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	b, sealed, err := atomicfile.UnsealJSON(b)
	if err != nil {
		return c, false, &damagedError{name: name, err: err}
	}
	var v struct {
		Version int `json:"version"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return c, false, &damagedError{name: name, err: err}
	}
	switch {
	case v.Version == 1 || v.Version == 2:
		if sealed {
			return c, false, &damagedError{name: name, err: fmt.Errorf("version %d was never sealed", v.Version)}
		}
		if v.Version == 1 {
			c, err = fromVersion1(b)
		} else {
			err = json.Unmarshal(b, &c)
		}
		if err != nil {
			return c, false, &damagedError{name: name, err: fmt.Errorf("version %d: %w", v.Version, err)}
		}
		c.Version, c.RunID, c.StoreCommit = checkpointVersion, "", nil
		return c, true, nil
	case v.Version < 1:
		return c, false, &damagedError{name: name, err: errors.New("it has no version")}
	case v.Version != checkpointVersion:
		return c, false, fmt.Errorf("checkpoint %s has version %d, this one reads 1 to %d: finish that run with the version that wrote it, or remove it (and its output) to start over", name, v.Version, checkpointVersion)
	case !sealed:
		return c, false, &damagedError{name: name, err: errors.New("it has no checksum, which every checkpoint of its version has")}
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, false, &damagedError{name: name, err: err}
	}
	if c.RunID != "" && !seen.ValidRunID(c.RunID) {
		return c, false, &damagedError{name: name, err: fmt.Errorf("its run_id %q is not 32 lowercase hex digits", c.RunID)}
	}
	return c, true, nil
}

// ErrDamaged is wrapped by Open's error for a checkpoint that is not what
// a Log wrote: its checksum does not match (bit rot, an edit), or it is
// not a checkpoint at all. Nothing is changed: the output is left as it
// was.
var ErrDamaged = errors.New("frontier: the checkpoint is damaged")

type damagedError struct {
	name string
	err  error
}

func (e *damagedError) Error() string {
	return fmt.Sprintf("checkpoint %s is damaged: %v; nothing was changed: put back a copy of it taken together with its output (and the store), or remove the output and the checkpoint to start over with a new store", e.name, e.err)
}

func (e *damagedError) Unwrap() []error { return []error{ErrDamaged, e.err} }

// fromVersion1 reads a checkpoint of version 1, which uriscan dedup wrote
// before this package was made from it: its settings become Run entries
// as uriscan dedup now records them, its counts the Tally, so that a run
// stopped (or finished) before an upgrade resumes after it.
func fromVersion1(b []byte) (checkpoint, error) {
	var v1 struct {
		Store        string            `json:"store"`
		Params       map[string]string `json:"params"`
		Inputs       []string          `json:"inputs"`
		MaxLine      int               `json:"max_line"`
		Extract      string            `json:"extract"`
		Repair       bool              `json:"repair"`
		Failed       []string          `json:"failed"`
		Output       string            `json:"output"`
		OutputLength int64             `json:"output_length"`
		Batch        Position          `json:"batch"`
		BatchDigest  string            `json:"batch_digest"`
		Next         Position          `json:"next"`
		Counts       struct {
			Lines, Blank, Invalid, URIs, Repaired, Unique int64
		} `json:"counts"`
		StoreStamp *seen.Stamp `json:"store_stamp"`
		Done       bool        `json:"done"`
	}
	if err := json.Unmarshal(b, &v1); err != nil {
		return checkpoint{}, err
	}
	run := maps.Clone(v1.Params)
	if run == nil {
		run = map[string]string{}
	}
	run["store"], run["max-line"] = v1.Store, fmt.Sprint(v1.MaxLine)
	if v1.Extract != "" {
		run["extract"] = v1.Extract
	}
	if v1.Repair {
		run["repair"] = "true"
	}
	n := v1.Counts
	t := Tally{Lines: n.Lines, Records: n.Lines - n.Blank - n.Invalid, Unique: n.Unique}
	if v1.Extract != "" {
		t.Records = n.URIs
	}
	for name, v := range map[string]int64{"blank": n.Blank, "invalid": n.Invalid, "repaired": n.Repaired} {
		if v > 0 {
			if t.Other == nil {
				t.Other = map[string]int64{}
			}
			t.Other[name] = v
		}
	}
	return checkpoint{Version: checkpointVersion, Run: run, Inputs: v1.Inputs, Output: v1.Output,
		OutputLength: v1.OutputLength, Batch: v1.Batch, BatchDigest: v1.BatchDigest, Next: v1.Next,
		Tally: t, Errors: v1.Failed, StoreStamp: v1.StoreStamp, Done: v1.Done}, nil
}

// write replaces the checkpoint in name atomically, sealed with its
// checksum; the directory is synced too, so that an operating system
// crash cannot bring the previous checkpoint back with the batch's keys
// already in the set.
func (c *checkpoint) write(name string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(name, append(atomicfile.SealJSON(b), '\n')); err != nil {
		return fmt.Errorf("checkpoint %s: %w", name, err)
	}
	return nil
}

// LastStamp returns the set's stamp the checkpoint in name recorded, or
// nil (no checkpoint, or none recorded): a caller that opens a
// persistent set before the Log can then refuse to make a new one where
// the checkpoint's was (the MustExist of seen/keylog and seen/pebble). A
// checkpoint that cannot be read is the error Open would return (a
// damaged one wraps ErrDamaged), so that the caller stops before it
// makes or changes anything.
func LastStamp(name string) (*seen.Stamp, error) {
	c, ok, err := readCheckpoint(name)
	if !ok || err != nil {
		return nil, err
	}
	return c.StoreStamp, nil
}

// matches says how the checkpoint differs from this run, or "".
func (c *checkpoint) matches(run *checkpoint, moved string) string {
	var diff []string
	for _, k := range slices.Sorted(maps.Keys(joinKeys(c.Run, run.Run))) {
		a, aok := c.Run[k]
		b, bok := run.Run[k]
		if (a != b || aok != bok) && k != moved {
			diff = append(diff, fmt.Sprintf("%s %q, this run has %q", k, a, b))
		}
	}
	switch {
	case len(diff) > 0:
		return "it was made with " + strings.Join(diff, "; ")
	case !slices.Equal(c.Inputs, run.Inputs):
		return fmt.Sprintf("it was made for the inputs %q, this run reads %q", c.Inputs, run.Inputs)
	case absPath(c.Output) != absPath(run.Output):
		return fmt.Sprintf("it was made for the output %q, this run has %q", c.Output, run.Output)
	}
	return ""
}

func joinKeys(a, b map[string]string) map[string]bool {
	m := map[string]bool{}
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

func absPath(name string) string {
	if name == "" {
		return ""
	}
	if a, err := filepath.Abs(name); err == nil {
		return a
	}
	return name
}

// batchDigest sums up the lines of a batch, so that a resume, which reads
// them again, can tell that the input is still the one the checkpoint was
// made for: the XOR of a fixed-key HighwayHash-128 of each line's bytes,
// and the number of lines.
type batchDigest struct {
	lo, hi uint64
	n      int64
}

var digestKey = highway.NewKey(&[32]byte{'u', 'r', 'i', 's', 'c', 'a', 'n', ' ', 'b', 'a', 't', 'c', 'h'})

func (d *batchDigest) add(sum LineSum) {
	d.lo ^= sum.lo
	d.hi ^= sum.hi
	d.n++
}

// LineSum is the digest of one input line's bytes that EndLine adds to
// its batch's (see batchDigest). A caller that keys lines on several
// goroutines computes it there (SumLine) and ends each line, in input
// order, with EndLineSum.
type LineSum struct{ lo, hi uint64 }

// SumLine returns the digest of line, as EndLine takes it.
func SumLine(line []byte) LineSum {
	sum := digestKey.Sum128(line)
	return LineSum{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:])}
}

func (d *batchDigest) String() string { return fmt.Sprintf("%016x%016x-%d", d.hi, d.lo, d.n) }

// Open prepares a Log over set: it locks the output (or a file beside the
// checkpoint) against a second run, and when a checkpoint records a run
// before, checks that it is this run, that the set is the one it was made
// against (seen.Stamped), cuts the output back to what was decided,
// refills a seen.Memory from the output (or with Rebuild a persistent
// set), and sets Start where reading must begin. Without a checkpoint it
// records one at once (so a restart always finds it, or an empty output),
// and refuses an output file that already holds data. It removes the
// temporary files of checkpoint writes a killed run left.
//
// Before it changes anything it refuses: a damaged checkpoint (an error
// wrapping ErrDamaged), a set that records later batches of the run than
// the checkpoint (an *AheadError: ErrStoreAhead; see Options.Rewind), and
// a set that lost keys or the run's commits (a *seen.LostError; see
// Options.Rebuild).
func Open(set seen.Set, o Options) (*Log, error) {
	if o.Output == "" && o.Writer == nil {
		return nil, errors.New("frontier: Open: no Output and no Writer")
	}
	if o.Checkpoint == "" && o.Output != "" {
		o.Checkpoint = o.Output + ".checkpoint"
	}
	if o.Output != "" {
		o.Resume = true
	}
	if o.Batch <= 0 {
		o.Batch = DefaultBatch
	}
	// A set that keeps no Stamp (seen.Memory, or any set of the
	// caller's) is taken to be gone after the process: it is refilled
	// from the output on resume.
	_, persistent := set.(seen.Stamped)
	memory := !persistent
	if memory && o.Output == "" && o.Checkpoint != "" {
		return nil, errors.New("frontier: Open: a checkpoint to a Writer needs a persistent set (seen/keylog, seen/pebble, seen/redis): a set in memory is gone after the process")
	}
	if memory && o.Output != "" && o.KeyOf == nil {
		return nil, errors.New("frontier: Open: an Output with a set in memory needs KeyOf, to refill the set from the output on resume")
	}
	if o.Decided && !inMemory(set) {
		return nil, errors.New("frontier: Open: Decided needs a set in memory (seen.Memory): a persistent set records a batch's keys only after its checkpoint")
	}
	l := &Log{set: set, o: o, batch: o.Batch, out: o.Writer,
		ckpt: checkpoint{Version: checkpointVersion, Run: o.Run, Inputs: o.Inputs, Output: o.Output}}
	if err := l.open(memory); err != nil {
		l.unlock()
		return nil, err
	}
	return l, nil
}

func (l *Log) open(memory bool) error {
	o := &l.o
	if err := l.lock(); err != nil {
		return err
	}
	if o.Checkpoint != "" {
		// The lock keeps every other writer of the checkpoint out: what
		// a killed one left is stale.
		if _, err := atomicfile.RemoveStale(o.Checkpoint); err != nil {
			return fmt.Errorf("checkpoint %s: removing the temporary files a killed run left: %w", o.Checkpoint, err)
		}
	}
	var c checkpoint
	found := false
	if o.Checkpoint != "" {
		var err error
		if c, found, err = readCheckpoint(o.Checkpoint); err != nil {
			return err
		}
		if found && !o.Resume {
			return fmt.Errorf("checkpoint %s exists: resume from it (uriscan dedup --resume, Options.Resume), or remove it to start over", o.Checkpoint)
		}
		if found {
			moved := "" // the Run entry that may differ: the set's, with Rebuild
			if o.Rebuild {
				moved = o.SetEntry
			}
			if why := c.matches(&l.ckpt, moved); why != "" {
				return fmt.Errorf("checkpoint %s does not belong to this run: %s (remove it to start over)", o.Checkpoint, why)
			}
		}
	}
	var f *os.File
	if o.Output != "" {
		var err error
		if f, err = os.OpenFile(o.Output, os.O_RDWR|os.O_CREATE, 0o644); err != nil {
			return err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		switch {
		case !found && fi.Size() > 0:
			f.Close()
			return fmt.Errorf("output %s exists and has no checkpoint %s: not overwriting it (remove it, or choose another file)", o.Output, o.Checkpoint)
		case found && fi.Size() < c.OutputLength:
			f.Close()
			return fmt.Errorf("output %s has %d bytes, its checkpoint %s says %d were written: the file was changed; remove both to start over (with a new set: a persistent one still holds their keys)", o.Output, fi.Size(), o.Checkpoint, c.OutputLength)
		}
	}
	// Before anything is changed: is the set still the one the
	// checkpoint was made against? (Options.Rewind changes it here, once
	// the output is known to hold what the checkpoint says.)
	rebuild := false
	if found {
		var err error
		if rebuild, err = l.checkSet(c); err != nil {
			if f != nil {
				f.Close()
			}
			return err
		}
	}
	if f != nil {
		if err := f.Truncate(c.OutputLength); err != nil { // 0 without a checkpoint
			f.Close()
			return err
		}
		if _, err := f.Seek(c.OutputLength, io.SeekStart); err != nil {
			f.Close()
			return err
		}
		l.file, l.outLen = f, c.OutputLength
		l.bw = bufio.NewWriterSize(f, 256<<10)
		l.out = l.bw
		if found && memory || rebuild {
			if err := l.rebuild(c.OutputLength); err != nil {
				return err
			}
		}
	}
	if !found && o.Checkpoint == "" {
		return nil
	}
	// The run's identity, and what a seen.Committer set records of it (a
	// checkpoint of version 1 or 2 has neither: the run gets them now; a
	// run moved to a set that records none keeps none).
	cm, committer := l.set.(seen.Committer)
	l.ckpt.RunID, l.ckpt.StoreCommit = c.RunID, nil
	if l.ckpt.RunID == "" {
		l.ckpt.RunID = seen.NewRunID()
	}
	if committer {
		sc := storeCommit{}
		if c.StoreCommit != nil {
			sc = *c.StoreCommit
		}
		l.ckpt.StoreCommit = &sc
	}
	if !found {
		return l.save()
	}
	if sc := l.ckpt.StoreCommit; committer && o.Rebuild && sc.Before > 0 {
		// --rebuild took the set as it is, or added the output's keys
		// back (a set that lost writes, or another set): it must record
		// at least the batch before the checkpoint's, which the replay
		// completes.
		r, err := cm.Committed(l.ckpt.RunID)
		if err == nil && r < sc.Before {
			err = cm.InsertCommit(seen.Commit{Run: l.ckpt.RunID, Seq: sc.Before}, nil)
		}
		if err != nil {
			return err
		}
	}
	l.resumed = true
	l.tally, l.start, l.pos = c.Tally, c.Next, c.Next
	l.errors = c.Errors
	l.startAt = c.Batch
	if c.Batch.Before(c.Next) {
		l.replaying, l.replayTo, l.replayDigest = true, c.Next, c.BatchDigest
		l.pos = c.Batch
	}
	l.ckpt.OutputLength, l.ckpt.Tally, l.ckpt.Errors = c.OutputLength, c.Tally, c.Errors
	l.ckpt.Batch, l.ckpt.Next, l.ckpt.BatchDigest = c.Batch, c.Next, c.BatchDigest
	return nil
}

// checkSet compares a persistent set with the stamp the checkpoint c
// recorded: a set that is not that one, or holds fewer keys, would
// answer "new" for lines written before. It is refused (a
// *seen.LostError); with Rebuild the keys of the output's lines are to be
// added back (rebuild), always: a set taken as it is may have lost fewer
// keys than the last batch added, which no count shows. A set that
// records later batches of this run than c (checkCommit) is refused with
// an *AheadError, with Rebuild too, whether or not it also lost keys. With
// Rebuild and Options.SetEntry the run may go on with another set than
// c's (another identity): it gets the output's keys, unless it too
// records later batches of this run.
func (l *Log) checkSet(c checkpoint) (rebuild bool, err error) {
	st, ok := l.set.(seen.Stamped)
	if !ok {
		return false, nil
	}
	e := l.o.SetEntry
	switch {
	case l.o.Rebuild && e != "" && c.Run[e] != l.o.Run[e] && (c.StoreStamp == nil || st.Stamp().ID != c.StoreStamp.ID):
		// Another set (Options.SetEntry).
		if err := l.checkCommit(c); err != nil && !errors.Is(err, seen.ErrLost) {
			return false, err
		}
	case c.StoreStamp == nil:
		return false, nil
	default:
		err = st.Check(*c.StoreStamp)
		if err != nil && !errors.Is(err, seen.ErrLost) {
			return false, err
		}
		if st.Stamp().ID == c.StoreStamp.ID {
			// The same set: does it hold this run's batches as far as
			// the checkpoint, and no further? Ahead wins over lost keys:
			// adding keys back never mends it.
			if cerr := l.checkCommit(c); cerr != nil {
				if !errors.Is(cerr, seen.ErrLost) {
					return false, cerr
				}
				if err == nil {
					err = cerr
				}
			}
		}
		if !l.o.Rebuild {
			return false, err // a *seen.LostError: the caller says what to do
		}
	}
	if l.o.Output == "" {
		// To a Writer there is nothing to add back: the set is taken as
		// it is.
		if l.o.OnRebuild != nil {
			l.o.OnRebuild(err, 0)
		}
		return false, nil
	}
	if l.o.KeyOf == nil {
		return false, errors.New("frontier: Rebuild needs KeyOf")
	}
	if l.o.OnRebuild != nil {
		l.o.OnRebuild(err, c.OutputLength)
	}
	return true, nil
}

// checkCommit compares what a seen.Committer set records of the run with
// the checkpoint c: the commit before the checkpoint's (a kill before the
// batch's keys went in) or the checkpoint's own are legal; a later one is
// an *AheadError (or, with Options.Rewind, cut back), an earlier one a
// *seen.LostError (the set lost the run's writes: put back from an older
// copy). A checkpoint of an earlier version names no run: not checked.
func (l *Log) checkCommit(c checkpoint) error {
	cm, ok := l.set.(seen.Committer)
	if !ok || c.RunID == "" || c.StoreCommit == nil {
		return nil
	}
	r, err := cm.Committed(c.RunID)
	if err != nil {
		return err
	}
	sc := *c.StoreCommit
	switch {
	case r == sc.Seq || r == sc.Before:
		return nil
	case r > sc.Seq:
		ae := &AheadError{Checkpoint: l.o.Checkpoint, Run: c.RunID, Seq: sc.Seq, StoreSeq: r}
		if !l.o.Rewind {
			return ae
		}
		rw, ok := l.set.(Rewinder)
		if !ok {
			ae.Rewind = errors.New("this kind of store cannot be cut back")
			return ae
		}
		dropped, err := rw.Rewind(c.RunID, sc.Seq)
		if err != nil {
			ae.Rewind = err
			return ae
		}
		if l.o.OnRewind != nil {
			l.o.OnRewind(dropped)
		}
		if r, err = cm.Committed(c.RunID); err != nil {
			return err
		}
		if r != sc.Seq && r != sc.Before {
			ae.StoreSeq, ae.Rewind = r, fmt.Errorf("it records commit %d after it was cut back to commit %d", r, sc.Seq)
			return ae
		}
		return nil
	}
	le := &seen.LostError{Store: "the store", Count: -1,
		Why: fmt.Sprintf("it records commit %d of this run (run %s), where the checkpoint %s needs commit %d or %d (a commit is a batch that added keys): it lost this run's writes since (restored from an older copy, or damaged)", r, c.RunID, l.o.Checkpoint, sc.Before, sc.Seq)}
	if c.StoreStamp != nil {
		le.Want, le.ID = *c.StoreStamp, c.StoreStamp.ID
	}
	return le
}

// lock keeps two runs from sharing an output or a checkpoint: it locks
// the output file, or a file beside the checkpoint, until Close.
func (l *Log) lock() error {
	name := l.o.Output
	if name == "" {
		if l.o.Checkpoint == "" {
			return nil
		}
		name = l.o.Checkpoint + ".lock"
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	held, err := lockFile(f)
	if err != nil || held {
		f.Close()
		if held {
			return fmt.Errorf("%s is in use by another run", name)
		}
		return fmt.Errorf("locking %s: %w", name, err)
	}
	l.lockFile = f
	return nil
}

func (l *Log) unlock() {
	if l.file != nil {
		l.file.Close()
		l.file = nil
	}
	if l.lockFile != nil {
		l.lockFile.Close()
		l.lockFile = nil
	}
}

// rebuild adds the keys of the first n bytes of the output to the set.
func (l *Log) rebuild(n int64) error {
	f, err := os.Open(l.o.Output)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, n), 64<<10)
	var keys []seen.Key
	var line []byte
	for no := 1; ; no++ {
		line = line[:0]
		var err error
		for {
			var part []byte
			part, err = r.ReadSlice('\n')
			line = append(line, part...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(line) == 0 {
			break
		}
		if line[len(line)-1] != '\n' {
			return fmt.Errorf("output %s: line %d has no line end within the %d bytes its checkpoint records: the file was changed; remove it and its checkpoint to start over", l.o.Output, no, n)
		}
		k, err := l.o.KeyOf(line[:len(line)-1])
		if err != nil {
			return fmt.Errorf("output %s: line %d: %v: the file was changed; remove it and its checkpoint to start over", l.o.Output, no, err)
		}
		keys = append(keys, k)
		if len(keys) == 8192 {
			if err := l.set.Insert(keys); err != nil {
				return err
			}
			keys = keys[:0]
		}
	}
	return l.set.Insert(keys)
}

// Resumed reports whether Open found a checkpoint of a run before.
func (l *Log) Resumed() bool { return l.resumed }

// Start is where the caller reads from: the start of the inputs, or, when
// resuming, the start of the last batch the run before recorded (its
// lines are replayed: see Replaying).
func (l *Log) Start() Position { return l.startAt }

// Replaying reports whether the lines now read are those of the last
// batch of the run before: their keys go to the set again and nothing is
// written or counted, and the caller reports nothing about them.
func (l *Log) Replaying() bool { return l.replaying }

// Tally returns the counts of the lines decided.
func (l *Log) Tally() Tally { return l.tally }

// Pending returns the number of lines read and not decided yet.
func (l *Log) Pending() int64 { return l.pending.Lines }

// Decided returns where the input is decided up to.
func (l *Log) Decided() Position { return l.start }

// Errors returns the input errors recorded (InputError), by this run and
// the runs before it.
func (l *Log) Errors() []string { return l.errors }

// Err returns the error that stopped the Log, or nil. After it, Add,
// Count, EndLine, Commit and EndInput do nothing and return it.
func (l *Log) Err() error { return l.err }

// stopped returns the error that keeps the Log from going on: the one that
// stopped it, or ErrClosed after Close.
func (l *Log) stopped() error {
	if l.err != nil {
		return l.err
	}
	if l.finished {
		return ErrClosed
	}
	return nil
}

func (l *Log) fail(step string, err error) error {
	if l.err == nil {
		l.err = &Error{Step: step, Err: err}
	}
	return l.err
}

// Add adds a record of the current line: its key, and the text written
// for it if it is a first occurrence (a "\n" is added after it). While
// replaying, only the key is kept.
func (l *Log) Add(key seen.Key, text []byte) {
	if l.stopped() != nil {
		return
	}
	if l.replaying {
		l.replay = append(l.replay, key)
		return
	}
	l.pending.Records++
	l.keys = append(l.keys, key)
	l.text = append(append(l.text, text...), '\n')
	l.ends = append(l.ends, len(l.text))
}

// AddDecided adds a record as Add does, with the caller's decision: isNew
// says it is a first occurrence, as the caller found in the Log's set,
// deciding the records in input order (Options.Decided). While replaying,
// only the key is kept.
func (l *Log) AddDecided(key seen.Key, text []byte, isNew bool) {
	n := len(l.keys)
	l.Add(key, text)
	if len(l.keys) > n {
		l.decided = append(l.decided, isNew)
	}
}

// Count counts the current line under name in the Tally's Other (for
// example "blank", "invalid"); not while replaying.
func (l *Log) Count(name string) {
	if l.stopped() != nil || l.replaying {
		return
	}
	if l.pending.Other == nil {
		l.pending.Other = map[string]int64{}
	}
	l.pending.Other[name]++
}

// EndLine ends the current line: raw is its bytes (the digest that tells
// a resume its input is the one recorded), next the position after it. A
// full batch is decided (Commit).
func (l *Log) EndLine(raw []byte, next Position) error {
	var sum LineSum
	if l.Sums() {
		sum = SumLine(raw)
	}
	return l.EndLineSum(sum, next)
}

// Sums reports whether the Log keeps a checkpoint, and so takes the digest
// of each line (EndLineSum's sum); without one any LineSum will do.
func (l *Log) Sums() bool { return l.o.Checkpoint != "" }

// EndLineSum is EndLine with the line's digest computed by the caller
// (SumLine, wherever Sums).
func (l *Log) EndLineSum(sum LineSum, next Position) error {
	if err := l.stopped(); err != nil {
		return err
	}
	if l.Sums() {
		l.digest.add(sum)
	}
	l.pos = next
	if l.replaying {
		if !next.Before(l.replayTo) {
			return l.endReplay()
		}
		return nil
	}
	l.pending.Lines++
	if len(l.keys) >= l.batch {
		return l.Commit()
	}
	return nil
}

// endReplay adds the replayed keys: the last batch of the run before,
// whose keys may not have reached the set.
func (l *Log) endReplay() error {
	l.replaying = false
	if l.pos != l.replayTo {
		return l.fail("resume", fmt.Errorf("the input does not match the checkpoint: a line ends at %s:%d offset %d, the checkpoint at line %d offset %d",
			l.inputName(l.pos.Input), l.pos.Line, l.pos.Offset, l.replayTo.Line, l.replayTo.Offset))
	}
	if got := l.digest.String(); got != l.replayDigest {
		return l.fail("resume", fmt.Errorf("the input changed since the checkpoint: the lines from %s:%d to %d differ from the ones it recorded (remove the checkpoint to start over)",
			l.inputName(l.pos.Input), l.ckpt.Batch.Line+1, l.replayTo.Line))
	}
	l.digest = batchDigest{}
	if !l.o.Decided { // (the caller added them, deciding them)
		if err := l.insert(l.replay); err != nil {
			return l.fail("store", err)
		}
	}
	l.replay = nil
	return nil
}

// EndInput ends input i: err is nil when it was read to its end, or why
// it was not (it could not be opened or read). A batch never spans two
// inputs: the pending one is decided. While replaying, an input that
// ends before the checkpoint's position stops the Log; otherwise err is
// only the caller's to report (InputError records what a resume says
// again). A caller that stops early, on a signal, calls Commit and Close
// instead.
func (l *Log) EndInput(i int, err error) error {
	if err := l.stopped(); err != nil {
		return err
	}
	if l.replaying {
		if err != nil {
			return l.fail("resume", fmt.Errorf("%s could not be read up to the checkpoint's position (line %d, offset %d), so the batch the checkpoint ends with cannot be replayed; rerun once it can be read: %w", l.inputName(i), l.replayTo.Line, l.replayTo.Offset, err))
		}
		return l.fail("resume", fmt.Errorf("%s ended before the checkpoint's position (line %d, offset %d)", l.inputName(i), l.replayTo.Line, l.replayTo.Offset))
	}
	if err := l.Commit(); err != nil {
		return err
	}
	// The next input starts at its top.
	if i+1 < len(l.o.Inputs) {
		l.pos = Position{Input: i + 1}
		l.start = l.pos
	}
	return nil
}

// InputError records an input error: said again by Errors after a resume.
func (l *Log) InputError(msg string) {
	l.errors = append(l.errors, msg)
	l.ckpt.Errors = l.errors
}

// Commit decides the pending batch: which records are new (the set's
// answer and the batch's own repeats), writes them and syncs an Output,
// records the checkpoint, then adds their keys to the set. A set in the
// process's memory (seen.Memory) is asked and added to in
// one step (AddBatch), before the write: it is gone after the process
// whatever the order, and refilled from the output on resume, so the
// order protects nothing there, and one probe per key instead of two (and
// no map of the batch's keys) halves the work of the goroutine that feeds
// the Log.
func (l *Log) Commit() error {
	if err := l.stopped(); err != nil || l.replaying {
		return err
	}
	l.newKeys = l.newKeys[:0]
	if len(l.keys) > 0 {
		if cap(l.has) < len(l.keys) {
			l.has = make([]bool, len(l.keys), max(len(l.keys), l.batch))
		}
		isNew := l.has[:len(l.keys)]
		inMemory := inMemory(l.set)
		switch {
		case !l.o.Decided:
			if err := l.decide(inMemory, isNew); err != nil {
				return l.fail("store", err)
			}
		case len(l.decided) != len(l.keys):
			return l.fail("store", errors.New("frontier: a record given by Add to a Log that takes decided records (Options.Decided)"))
		default:
			copy(isNew, l.decided)
		}
		// The new records, each run of them in one write.
		start, from, written := 0, 0, int64(0)
		for i, end := range l.ends {
			if !isNew[i] {
				if err := l.write(from, start); err != nil {
					return err
				}
				from = end
			} else {
				written += int64(end - start)
				l.pending.Unique++
				if !inMemory {
					l.newKeys = append(l.newKeys, l.keys[i])
				}
			}
			start = end
		}
		if err := l.write(from, start); err != nil {
			return err
		}
		if err := l.syncOutput(); err != nil {
			return l.fail("output", err)
		}
		l.outLen += written
	} else if l.pending.Lines == 0 {
		return nil // nothing read since the last checkpoint
	}
	before, commitBefore := l.tally, l.ckpt.StoreCommit
	l.tally = cloneTally(l.tally)
	l.tally.add(l.pending)
	l.ckpt.Batch, l.ckpt.Next, l.ckpt.BatchDigest = l.start, l.pos, l.digest.String()
	if sc := l.ckpt.StoreCommit; sc != nil {
		// The set records the batch's number with its keys; a batch
		// with none inserts nothing and keeps the number.
		next := storeCommit{Seq: sc.Seq, Before: sc.Seq}
		if len(l.newKeys) > 0 {
			next.Seq++
		}
		l.ckpt.StoreCommit = &next
	}
	if err := l.save(); err != nil {
		// Not recorded, so not decided: a rerun decides it again.
		l.tally, l.ckpt.StoreCommit = before, commitBefore
		return err
	}
	l.pending = Tally{}
	l.digest = batchDigest{}
	if len(l.newKeys) > 0 {
		if err := l.insert(l.newKeys); err != nil {
			return l.fail("store", err)
		}
	}
	l.start = l.pos
	l.keys, l.text, l.ends, l.decided = l.keys[:0], l.text[:0], l.ends[:0], l.decided[:0]
	return nil
}

// insert adds the keys of the checkpoint's batch to the set: for a
// seen.Committer, with the run's commit record of that batch (before
// them, so that a set that holds any of them records the batch).
func (l *Log) insert(keys []seen.Key) error {
	if sc := l.ckpt.StoreCommit; sc != nil && sc.Seq > 0 { // (a seen.Committer's)
		return l.set.(seen.Committer).InsertCommit(seen.Commit{Run: l.ckpt.RunID, Seq: sc.Seq}, keys)
	}
	if len(keys) == 0 {
		return nil
	}
	return l.set.Insert(keys)
}

// inMemory reports whether set lives in this process's memory alone.
func inMemory(set seen.Set) bool {
	switch set.(type) {
	case *seen.Memory:
		return true
	}
	return false
}

// decide sets isNew[i] to whether the batch's record i is a first
// occurrence: not in the set, nor earlier in the batch. A set in memory
// adds the keys as it answers (see Commit); any other set is only asked
// (Contains), its keys added once the checkpoint is recorded.
func (l *Log) decide(inMemory bool, isNew []bool) error {
	if inMemory {
		return l.set.AddBatch(l.keys, isNew)
	}
	if err := l.set.Contains(l.keys, isNew); err != nil {
		return err
	}
	if l.inBatch == nil {
		l.inBatch = make(map[seen.Key]struct{}, l.batch)
	}
	clear(l.inBatch)
	for i, k := range l.keys {
		_, dup := l.inBatch[k]
		if isNew[i] = !isNew[i] && !dup; isNew[i] {
			l.inBatch[k] = struct{}{}
		}
	}
	return nil
}

// write writes the batch's text from byte from to byte to.
func (l *Log) write(from, to int) error {
	if from == to {
		return nil
	}
	if _, err := l.out.Write(l.text[from:to]); err != nil {
		return l.fail("output", err)
	}
	return nil
}

func cloneTally(t Tally) Tally {
	t.Other = maps.Clone(t.Other)
	return t
}

// syncOutput flushes the new records, and syncs an Output file.
func (l *Log) syncOutput() error {
	if f, ok := l.out.(interface{ Flush() error }); ok {
		if err := f.Flush(); err != nil {
			return err
		}
	}
	if l.file != nil {
		return l.file.Sync()
	}
	return nil
}

// save records the progress, if there is a checkpoint.
func (l *Log) save() error {
	if l.o.Checkpoint == "" {
		return nil
	}
	l.ckpt.OutputLength, l.ckpt.Tally = l.outLen, l.tally
	if st, ok := l.set.(seen.Stamped); ok {
		// The keys of the batches before this one are in the set.
		stamp := st.Stamp()
		l.ckpt.StoreStamp = &stamp
	}
	if err := l.ckpt.write(l.o.Checkpoint); err != nil {
		return l.fail("checkpoint", err)
	}
	return nil
}

// ErrClosed is the error of a Log used after Close or Finish.
var ErrClosed = errors.New("frontier: the log is closed")

// Finish decides the pending batch, records that the run is done, and
// closes the output (not the set). A run whose checkpoint says done
// resumes to nothing. Finish while replaying (the input ended before the
// checkpoint's position) is an error, and records nothing.
func (l *Log) Finish() error {
	if err := l.stopped(); err != nil {
		return err
	}
	if l.replaying {
		l.fail("resume", fmt.Errorf("the input ended before the checkpoint's position (%s line %d, offset %d)", l.inputName(l.replayTo.Input), l.replayTo.Line, l.replayTo.Offset))
	}
	if err := l.Commit(); err != nil {
		l.Close()
		return err
	}
	l.ckpt.Done = true
	err := l.save()
	if cerr := l.Close(); err == nil {
		err = cerr
	}
	return err
}

// Close closes the output and releases the lock without deciding what is
// pending (a run stopped early: its undecided lines are decided again by
// the next). It does not close the set. A second Close does nothing;
// Add, Count, EndLine, EndInput, Commit and Finish then return or do
// nothing but ErrClosed (Err still says what failed, if anything did).
func (l *Log) Close() error {
	if l.finished {
		return nil
	}
	l.finished = true
	var err error
	if l.file != nil {
		if l.bw != nil {
			err = l.bw.Flush()
		}
		if cerr := l.file.Close(); err == nil {
			err = cerr
		}
		l.file = nil
		if err != nil && l.err == nil {
			l.err = &Error{Step: "output", Err: err}
		}
	}
	l.unlock()
	return err
}

// inputName names input i for messages ("-", standard input, is
// "<stdin>").
func (l *Log) inputName(i int) string {
	switch {
	case i >= len(l.o.Inputs):
		return fmt.Sprintf("input %d", i)
	case l.o.Inputs[i] == "-":
		return "<stdin>"
	}
	return l.o.Inputs[i]
}
