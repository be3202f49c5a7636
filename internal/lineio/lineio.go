// Package lineio is the engine of uriscan's line commands: it reads a
// Source's inputs in order, cuts them into chunks of whole lines (or, for
// extract, of text cut after a byte no URI holds), runs a Command's
// workers over the chunks in parallel, and gives their results to the
// Command in input order, in bounded memory, so that the output is the
// same whatever the number of workers.
//
// Every input is read (read(2)) into reused chunk buffers: mapping files
// measured up to twice as slow, where page faults are costly, and never
// faster (docs/performance.md). At most 3*workers+2 chunks exist, each of
// Config.ChunkSize bytes plus at most one line of Config.MaxLine bytes; a
// longer line goes to Command.LongLine with a reader, never held. A worker hands its output
// over in pieces of Config.PieceSize bytes (Chunk.HandOver), so the output
// of a chunk is bounded too.
//
// The per-chunk result is the Command's own type S, a Sink; the engine holds
// sinks by value in its chunks and calls their methods per chunk and per
// piece, not per line (but Size in Chunk.HandOver, which a worker that
// knows S may check first).
package lineio

import (
	"errors"
	"io"

	"github.com/uriscan/uriscan"
)

// Config is how a run cuts and reads its input.
type Config struct {
	Workers int // goroutines handling chunks (at least 1)
	// ChunkSize is how many bytes of input a chunk holds (whole lines);
	// PieceSize how much output a worker holds before it hands it over
	// (see Chunk.HandOver). 0: DefaultChunkSize, DefaultPieceSize.
	ChunkSize, PieceSize int
	// MaxLine is the longest line a chunk holds; a longer one goes to
	// Command.LongLine (not with Extract).
	MaxLine int
	// Extract cuts text for extract: a chunk ends after its last line
	// end, failing that after its last byte no URI holds; a run of URI
	// bytes longer than uriscan.DefaultBufferSize keeps only its last
	// uriscan.MaxExtractLength bytes (see Skipper), as
	// uriscan.ExtractScanner does.
	Extract bool
	// ChunkHook, if set, is called by worker w (0, 1, ...) before each
	// chunk it handles.
	ChunkHook func(w int)
}

// The defaults of Config's sizes. DefaultPieceSize bounds what a chunk's
// output holds: it can be 150 times its input (a megabyte of blank lines
// makes 150 MB of split's JSON).
const (
	DefaultChunkSize = 128 << 10
	DefaultPieceSize = 512 << 10
)

// Stats is what a run counts.
type Stats struct {
	Bytes int64 // input bytes read (a byte-order mark, a cut last line too)
	// DecidedByWorkers and DecidedByWriter count the sinks decided (see
	// Decider) by the workers and by the writer.
	DecidedByWorkers, DecidedByWriter int64
}

// Sink is the pointer type of S, a Command's per-chunk result: its
// output and whatever else the workers make of the lines.
type Sink[S any] interface {
	*S
	Size() int    // the bytes it holds: a piece is measured by it
	Reset()       // emptied for the next lines, its buffers kept
	Trim(max int) // its buffers but Out's that grew past max dropped
	Out() *[]byte // its output buffer, which the engine sizes and reuses
}

// Command is what a run does with the lines. Worker's handlers and Decide
// run on the worker goroutines, concurrently; LongLine, InputError, Note and SkipRun on the
// reader's goroutine; Commit, EndInput, Idle and Wait on the writer's, the
// caller of Run.
type Command[S any] interface {
	NewSink() S // an empty sink, no buffers
	// Worker makes the chunk handler of worker w: it reads c.Data and
	// writes c.K, calling c.HandOver as its output grows.
	Worker(w int) func(c *Chunk[S])
	// Commit takes a chunk's results, or a piece of them, in input order
	// (input is the index of its input); stop ends the run.
	Commit(k *S, input int) (stop bool)
	// LongLine handles a line over MaxLine that starts at offset off, the
	// (line+1)-th of input name, by reading it from r (which ends with
	// the line); false if a read error ended the input (told in k).
	LongLine(k *S, name string, r io.Reader, off int64, line int) (ok bool)
	// InputError tells in k an input's error: msg is "NAME: why". With
	// halt the run stops once k is committed.
	InputError(k *S, msg string, halt bool)
	// Note tells in k what the Source said of an input (Input.Note),
	// before its lines.
	Note(k *S, note string)
}

// Ender is a Command told when each input ends (after its last line's
// Commit, also for one that could not be opened); stop ends the run.
type Ender interface {
	EndInput(input int) (stop bool)
}

// Decider is a Command whose sinks are decided in input order before they
// are committed, one at a time (dedup's seen-set): by the workers, each
// chunk once the one before is decided, without a worker waiting for
// another; the writer decides the pieces a chunk hands over, and what no
// worker took, if Undecided.
type Decider[S any] interface {
	Decide(k *S, input int)
	Undecided(k *S) bool
}

// Skipper is an Extract Command told of each run of URI bytes that the
// reader skips but for its end: head is its first bytes, m its place
// (m.Rejected set), lineStart the offset of its line.
type Skipper[S any] interface {
	SkipRun(k *S, name string, m uriscan.Match, lineStart int64, head []byte)
}

// Host is a Command that runs in a process with a progress bar, signals
// and output to flush. Without it nothing is counted, the writer waits
// without ado, and no signal stops the reader.
type Host interface {
	// Progress counts input bytes read (the reader) and lines committed
	// (the writer).
	Progress(bytes, lines int64)
	// Idle is called before the writer waits for the reader (input not
	// read yet: tail -f): the command settles what it holds; stop ends
	// the run.
	Idle() (stop bool)
	// Wait runs block, in which the writer waits for a worker or the
	// reader (the command flushes its output first, and lets go of a
	// lock a signal handler takes).
	Wait(block func())
	// Stopped reports whether a signal asked the run to stop.
	Stopped() bool
}

// Input is one opened input.
type Input struct {
	Name string    // for messages
	R    io.Reader // its bytes, from Offset
	// Offset and Line are where R starts (a resume: Offset bytes in, line
	// Line+1; the Source skipped what is before).
	Offset int64
	Line   int
	// Skipped counts bytes read before R (a byte-order mark), as read.
	Skipped int64
	Note    string       // said (Command.Note) before its lines, or ""
	Close   func() error // nil: nothing to close
}

// Source gives a run its inputs.
type Source interface {
	Len() int
	// Open opens input i; they are opened in order, each once the one
	// before is read. An error is "NAME: why" (the Input's Name set);
	// ErrSkip skips the input (a resume past it); an error that is a
	// *Halt stops the run.
	Open(i int) (Input, error)
}

// ErrSkip is Source.Open's error for an input not read at all.
var ErrSkip = errors.New("lineio: input skipped")

// Halt is an input error after which the run reads no further.
type Halt struct{ Err error }

func (h *Halt) Error() string { return h.Err.Error() }
func (h *Halt) Unwrap() error { return h.Err }
