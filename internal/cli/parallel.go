package cli

import (
	"math"
	"os"
	"runtime/debug"

	"github.com/uriscan/uriscan/internal/lineio"
)

// --workers: the line-oriented commands (validate, split, normalize,
// resolve, dedup) and extract run on package lineio's engine: workers
// handle chunks of the input in parallel, and the main goroutine writes
// the chunks' output in input order (dedup: gives their records to its
// Log, see recordTaker.feed), so the output is the same, byte for byte, whatever
// the number of workers, in bounded memory. The tests compare it with the
// streaming loop (eachRecord) that dedup uses with one worker.

// tuning is how a run cuts and reads its input: its sizes, and the hooks
// the tests set. Each env has its own (env.tune, defaultTuning unless a
// test gives another), so no run changes another's.
type tuning struct {
	// chunkSize is how many bytes of input a chunk holds (whole lines);
	// the tests cut inputs into many small chunks.
	chunkSize int
	// pieceSize: see lineio.Config.PieceSize.
	pieceSize int
	// streamOnly makes the line commands run eachRecord, the streaming
	// loop, as the tests' reference.
	streamOnly bool
	// chunkHook, if set, is called by worker w (0, 1, ...) before each
	// chunk it handles (a test proves the workers run at once); setGrown,
	// if set, is called each time dedup grows its set in memory (growSet:
	// the tests count them).
	chunkHook func(w int)
	setGrown  func()
	// stats, if set, adds up what the runs count (the tests read it).
	stats *lineio.Stats
}

// defaultTuning is every run's tuning but the tests'.
func defaultTuning() tuning {
	return tuning{chunkSize: lineio.DefaultChunkSize, pieceSize: lineio.DefaultPieceSize}
}

// sink is where a worker writes what one chunk gives: its output, its
// standard error, and what it means for the exit status.
type sink struct {
	out, err []byte
	invalid  bool // some line was invalid
	ioFail   bool // an input could not be read or a line not handled
	ioAt     int  // where in err the (last) message of ioFail starts
	inputErr bool // err holds an input error (told to the taker: inputFailed)
	halt     bool // the run stops after this (dedup could not resume)
	// rep is how invalid lines are reported; nInvalid counts them, marks
	// (with --max-errors) where out and err stood after each.
	rep      *reports
	nInvalid int64
	marks    []mark
	// uris and rejected count extract's matches.
	uris, rejected int64
	// recs are dedup's records of the lines (their texts are in out).
	recs dedupRecs
}

// size is how many bytes k holds: its output, its reports, dedup's
// records.
func (k *sink) size() int { return len(k.out) + len(k.err) + k.recs.size() }

// The methods of lineio.Sink.
func (k *sink) Size() int    { return k.size() }
func (k *sink) Out() *[]byte { return &k.out }

// Reset empties k for the next lines, keeping its buffers.
func (k *sink) Reset() {
	k.out, k.err = k.out[:0], k.err[:0]
	k.invalid, k.ioFail, k.inputErr, k.halt = false, false, false, false
	k.nInvalid, k.marks = 0, k.marks[:0]
	k.recs.reset()
}

// Trim drops the buffers of k but out that grew past max bytes.
func (k *sink) Trim(max int) {
	if cap(k.err) > max {
		k.err = nil
	}
	k.recs.trim(max)
}

// reportLine appends "NAME:LINE: offset N: REASON" for s's current,
// invalid line to k's standard error.
func (k *sink) reportLine(name string, s *recordScanner) {
	k.err = k.rep.appendReport(k.err, name, s)
}

// ioError appends an error message to k's standard error (exit 2).
func (k *sink) ioError(msg string) {
	k.ioFail = true
	k.ioAt = len(k.err)
	k.err = append(k.err, "uriscan: "...)
	if k.rep != nil && k.rep.cmd != "" {
		k.err = append(append(k.err, k.rep.cmd...), ": "...) // each message names the command
	}
	k.err = append(k.err, msg...)
	k.err = append(k.err, '\n')
}

// lineFn handles one line of input: its output goes to k.out, messages to
// k.err. A lineFactory makes one per goroutine (each holds its buffers).
type (
	lineFn      func(k *sink, name string, s *recordScanner)
	lineFactory func() lineFn
)

// eachLine runs the line command that newFn makes over files with the
// given number of workers, and returns the exit status.
func (e *env) eachLine(files []string, workers int, newFn lineFactory) int {
	return e.eachLineOf(files, workers, false, newFn)
}

// eachLineOf is eachLine; with invalidOnly (a command whose lineFn does
// nothing with a valid line, under RFC 3986's grammar: validate without
// --warn) the workers step over valid lines with
// recordScanner.ScanInvalid, a batch of them at a time, and call the
// lineFn for the invalid ones only.
func (e *env) eachLineOf(files []string, workers int, invalidOnly bool, newFn lineFactory) int {
	if e.tune.streamOnly {
		return e.streamLines(files, newFn)
	}
	maxLine, grammar := e.sc.ls.MaxLine(), e.sc.grammar
	return e.parallel(files, max(workers, 1), false, func(p *pipeline) func(c *chunk) {
		fn := newFn()
		var s recordScanner
		s.ls.SetMaxLine(maxLine)
		s.grammar = grammar
		return func(c *chunk) {
			s.ls.ResetBytes(c.Data)
			s.ls.StartAt(c.Off, c.Line)
			s.perr = nil
			for invalidOnly && s.ScanInvalid() || !invalidOnly && s.Scan() {
				fn(&c.K, c.Name, &s)
				if s.perr != nil {
					c.K.countInvalid()
				}
				p.handOver(c)
			}
			s.ls.ResetBytes(nil)
		}
	}, newFn)
}

// streamLines is eachLine on one goroutine: the streaming loop
// (eachRecord), each line's output written as it is made.
func (e *env) streamLines(files []string, newFn lineFactory) int {
	fn := newFn()
	k := sink{rep: &e.rep}
	return e.eachRecord(files, func(name string, s *recordScanner) {
		fn(&k, name, s)
		e.drainChunk(&k)
	})
}

// chunk is a chunk of input as the workers get it.
type chunk = lineio.Chunk[sink]

// pipeline is what a run's workers see of it: the env, the line limit,
// the size of a piece of output.
type pipeline struct {
	e                  *env
	maxLine, pieceSize int
}

// handOver gives c's output to the writer once it holds a piece (see
// lineio.Chunk.HandOver): a worker calls it after each line.
func (p *pipeline) handOver(c *chunk) {
	if c.K.size() >= p.pieceSize {
		c.HandOver()
	}
}

// parallel runs newWorker's chunk handlers on workers goroutines over
// files (package lineio), the main goroutine writing their output in
// order, and returns the exit status; extract cuts chunks for extract.
// newFn is the line function (nil for extract), for lines over the limit.
func (e *env) parallel(files []string, workers int, extract bool, newWorker func(*pipeline) func(*chunk), newFn lineFactory) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	cfg := lineio.Config{
		Workers: workers, ChunkSize: e.tune.chunkSize, PieceSize: e.tune.pieceSize,
		MaxLine: e.sc.ls.MaxLine(), Extract: extract, ChunkHook: e.tune.chunkHook,
	}
	if cfg.PieceSize <= 0 {
		cfg.PieceSize = lineio.DefaultPieceSize
	}
	if e.process && os.Getenv("GOMEMLIMIT") == "" {
		e.memBase = cfg.MemoryLimit()
		e.limitMemory()
	}
	st := lineio.Run[sink](cfg, fileSource{e, files}, e.engineCommand(&engineRun{
		e: e, p: &pipeline{e: e, maxLine: cfg.MaxLine, pieceSize: cfg.PieceSize}, newWorker: newWorker, newFn: newFn,
	}))
	if t := e.tune.stats; t != nil {
		t.Bytes += st.Bytes
		t.DecidedByWorkers += st.DecidedByWorkers
		t.DecidedByWriter += st.DecidedByWriter
	}
	e.counts.bytes = st.Bytes
	e.flush()
	if e.werr != nil {
		e.errw.WriteString("uriscan: writing output: " + e.werr.Error() + "\n")
	}
	return e.status()
}

// limitMemory sets the soft memory limit (if the engine runs with one:
// e.memBase) to the engine's and what the command holds besides
// (the taker's: dedup's seen-set in memory, which grows with its keys), or
// none where that is unknown (a store's caches).
func (e *env) limitMemory() {
	held := int64(0)
	if e.taker != nil {
		held = e.taker.memHeld()
	}
	switch {
	case e.memBase == 0:
	case held < 0:
		debug.SetMemoryLimit(math.MaxInt64)
	default:
		debug.SetMemoryLimit(e.memBase + held)
	}
}
