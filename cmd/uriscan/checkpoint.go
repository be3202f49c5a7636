package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/internal/highway"
	"github.com/uriscan/uriscan/seen"
)

// inputPos is a place in the inputs: file index, byte offset in that
// file (decompressed) and the number of the line before it.
type inputPos struct {
	File   int   `json:"file"`
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
}

// before reports whether p comes before q.
func (p inputPos) before(q inputPos) bool {
	return p.File < q.File || p.File == q.File && p.Offset < q.Offset
}

// dedupCounts are a dedup run's totals.
type dedupCounts struct {
	Lines   int64 `json:"lines"`
	Blank   int64 `json:"blank"`
	Invalid int64 `json:"invalid"`
	URIs    int64 `json:"uris,omitempty"` // with --extract: the URIs found
	// Repaired, with --repair: lines taken in their repaired form.
	Repaired int64 `json:"repaired,omitempty"`
	Unique   int64 `json:"unique"`
}

// checkpoint is what dedup records after each batch's new lines are
// written (and, with --output, synced), before the batch's keys are added
// to the store:
//
//   - Next: where the input is decided up to; a restart reads from there.
//   - Batch: where that last batch started. Its keys may or may not have
//     reached the store when the process died, so a restart adds the keys
//     of the lines from Batch to Next again (adding is idempotent) without
//     writing them: they were written already.
//   - OutputLength: the output file's length after the batch; a restart
//     truncates the file to it, removing lines of a batch whose checkpoint
//     was never written (their keys were never added, so they are decided
//     and written again).
//   - StoreStamp: the store's identity and the count of its keys after
//     the batch before (a disk or Redis store, see seen.Stamp); a restart
//     refuses a store that is not that one or holds fewer keys (it was
//     emptied, replaced or lost writes), where it would write again lines
//     it wrote before. Absent in checkpoints of earlier versions.
//
// The file is replaced atomically (written beside, synced, renamed, the
// directory synced), so a kill, or a crash of the operating system, leaves
// the old checkpoint or the new one, and the new one once write returns.
type checkpoint struct {
	Version      int               `json:"version"`
	Store        string            `json:"store"` // with any password redacted
	Params       map[string]string `json:"params"`
	Inputs       []string          `json:"inputs"`
	MaxLine      int               `json:"max_line"`
	Extract      string            `json:"extract,omitempty"` // --extract's schemes
	Repair       bool              `json:"repair,omitempty"`  // --repair
	Failed       []string          `json:"failed,omitempty"`  // inputs that could not be read, as reported
	Output       string            `json:"output,omitempty"`
	OutputLength int64             `json:"output_length"`
	StoreStamp   *seen.Stamp       `json:"store_stamp,omitempty"`
	Batch        inputPos          `json:"batch"`
	BatchDigest  string            `json:"batch_digest"` // of the lines from Batch to Next (batchDigest)
	Next         inputPos          `json:"next"`
	Counts       dedupCounts       `json:"counts"`
	Done         bool              `json:"done"`
}

const checkpointVersion = 1

// batchDigest sums up the lines of a batch, so that a resume, which reads
// them again, can tell that the input is still the one the checkpoint was
// made for: the XOR of a fixed-key HighwayHash-128 of each line's bytes,
// and the number of lines.
type batchDigest struct {
	lo, hi uint64
	n      int64
}

var digestKey = highway.NewKey(&[32]byte{'u', 'r', 'i', 's', 'c', 'a', 'n', ' ', 'b', 'a', 't', 'c', 'h'})

func (d *batchDigest) add(line []byte) {
	sum := digestKey.Sum128(line)
	d.lo ^= binary.LittleEndian.Uint64(sum[:8])
	d.hi ^= binary.LittleEndian.Uint64(sum[8:])
	d.n++
}

func (d *batchDigest) String() string { return fmt.Sprintf("%016x%016x-%d", d.hi, d.lo, d.n) }

// readCheckpoint reads the checkpoint in name; ok is false if there is
// none.
func readCheckpoint(name string) (c checkpoint, ok bool, err error) {
	b, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return c, false, nil
	}
	if err != nil {
		return c, false, err
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, false, fmt.Errorf("checkpoint %s: %w", name, err)
	}
	if c.Version != checkpointVersion {
		return c, false, fmt.Errorf("checkpoint %s: version %d, want %d", name, c.Version, checkpointVersion)
	}
	return c, true, nil
}

// writeCheckpointFile writes a checkpoint (tests make it fail).
var writeCheckpointFile = atomicfile.Write

// write replaces the checkpoint in name atomically. The rename must be on
// disk before the batch's keys are added, or an operating system crash
// could bring the previous checkpoint back with the keys already in the
// store: atomicfile.Write syncs the directory.
func (c *checkpoint) write(name string) error {
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	if err := writeCheckpointFile(name, append(b, '\n')); err != nil {
		return fmt.Errorf("checkpoint %s: %w", name, err)
	}
	return nil
}

// matches says how the checkpoint differs from this run, or "".
func (c *checkpoint) matches(run *checkpoint) string {
	switch {
	case c.Store != run.Store:
		return fmt.Sprintf("it was made with --store %s, this run has %s", c.Store, run.Store)
	case !maps.Equal(c.Params, run.Params):
		return fmt.Sprintf("it was made with %v, this run has %v", c.Params, run.Params)
	case c.Repair != run.Repair:
		return fmt.Sprintf("it was made with --repair=%v, this run has %v", c.Repair, run.Repair)
	case c.Extract != run.Extract:
		return fmt.Sprintf("it was made with --extract %q, this run has %q (\"\": without)", c.Extract, run.Extract)
	case c.MaxLine != run.MaxLine:
		return fmt.Sprintf("it was made with --max-line %d, this run has %d", c.MaxLine, run.MaxLine)
	case !slices.Equal(c.Inputs, run.Inputs):
		return fmt.Sprintf("it was made for the inputs %q, this run reads %q", c.Inputs, run.Inputs)
	case absPath(c.Output) != absPath(run.Output):
		return fmt.Sprintf("it was made for --output %q, this run has %q", c.Output, run.Output)
	}
	return ""
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
