package cli

import (
	"bytes"
	"flag"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"unsafe"
)

// --workers: the line-oriented commands (validate, split, normalize,
// resolve, dedup) and extract split their input into chunks of whole lines
// that workers handle in parallel; the main goroutine writes the chunks'
// output in input order (dedup: gives their records to its Log, see
// env.feed), so the output is the same, byte for byte, whatever the
// number of workers. A plain regular file is mapped and its chunks are
// slices of the mapping (no read(2) copying the page cache); standard
// input, pipes and compressed input are read into chunk buffers. The tests
// compare all of it with the streaming loop (eachRecord) that dedup uses.
//
// Memory is bounded: at most inflight(workers) chunks exist, each of
// chunkSize bytes plus at most one line of --max-line bytes; a longer line
// is read past by a streaming LineScanner (as with one worker), never held.

// tuning is how a run cuts and reads its input: its sizes, and the hooks
// the tests set. Each env has its own (env.tune, defaultTuning unless a
// test gives another), so no run changes another's.
type tuning struct {
	// chunkSize is how many bytes of input a chunk holds (whole lines);
	// the tests cut inputs into many small chunks.
	chunkSize int
	// pieceSize: see defaultPieceSize.
	pieceSize int
	// mapInputs says when plain files are mapped: mapAuto when the
	// workers use every CPU (with one to spare, reading them is faster),
	// or always, or never (the tests compare all ways).
	mapInputs int
	// streamOnly makes the line commands run eachRecord, the streaming
	// loop, as the tests' reference.
	streamOnly bool
	// afterMap, if set, is called once a file is mapped (a test shrinks
	// it, or counts the files mapped); chunkHook, if set, is called by
	// worker w (0, 1, ...) before each chunk it handles (a test proves
	// the workers run at once); decided, if set, is called for each sink
	// decided (env.decide) with the workers, byWriter when the writer
	// decided it; setGrown, if set, is called each time dedup grows its
	// set in memory (growSet). The tests count them.
	afterMap  func(*os.File)
	chunkHook func(w int)
	decided   func(byWriter bool)
	setGrown  func()
}

// defaultTuning is every run's tuning but the tests'.
func defaultTuning() tuning {
	return tuning{chunkSize: 128 << 10, pieceSize: defaultPieceSize, mapInputs: mapAuto}
}

// defaultPieceSize is how much output a worker holds for one chunk before it
// hands it to the writer (waiting, if the writer has not come to the chunk
// yet): the output of a chunk can be 150 times its input (a megabyte of
// blank lines makes 150 MB of split's JSON), and memory stays bounded.
// What the workers have handed over and the writer not yet written is
// bounded too (see handOver): the output of one line can be 6 times a
// line of --max-line bytes (split's JSON of control bytes), and a chunk in
// flight holding a line's output each would make 50 MB of 1 MiB lines.
const defaultPieceSize = 512 << 10

// heldMax is how many bytes of output handed over and not yet written
// (pipeline.held) a worker goes on past: over it, a worker that hands a
// piece over waits for it to be written. keepMax is the room of a piece
// (pieceSize and a line's output), and the largest buffer a chunk keeps
// once written: one grown for the output of a long line goes (see
// keepBig).
func (p *pipeline) heldMax() int64 { return 4 * int64(p.pieceSize) }
func (p *pipeline) keepMax() int   { return p.pieceSize + p.pieceSize/4 }

// inflight is how many chunks exist: enough that a worker never waits
// for the reader or the writer (measured: 3 per worker beat 1 by 10%).
func inflight(workers int) int { return 3*workers + 2 }

// sink is where a worker writes what one chunk gives: its output, its
// standard error, and what it means for the exit status.
type sink struct {
	out, err []byte
	invalid  bool // some line was invalid
	ioFail   bool // an input could not be read or a line not handled
	ioAt     int  // where in err the (last) message of ioFail starts
	inputErr bool // err holds an input error (told to onInputError)
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

// reset empties k for the next lines, keeping its buffers.
func (k *sink) reset(rep *reports) {
	k.out, k.err = k.out[:0], k.err[:0]
	k.invalid, k.ioFail, k.inputErr, k.halt = false, false, false, false
	k.rep, k.nInvalid, k.marks = rep, 0, k.marks[:0]
	k.recs.reset()
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

// addWorkersFlag defines --workers on fs; more is added to its help.
func addWorkersFlag(fs *flag.FlagSet, more string) *int {
	return fs.Int("workers", runtime.GOMAXPROCS(0), "how many `goroutines` handle the input (0: the number of CPUs); the output is the same, in input order, whatever the number"+more)
}

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
			s.ls.ResetBytes(c.data)
			s.ls.StartAt(c.off, c.line)
			s.perr = nil
			for invalidOnly && s.ScanInvalid() || !invalidOnly && s.Scan() {
				fn(&c.k, c.name, &s)
				if s.perr != nil {
					c.k.countInvalid()
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

// chunk is a piece of one input handed to a worker: whole lines (or, for
// extract, text cut after a byte no URI holds), and what the worker made
// of them.
type chunk struct {
	buf    []byte // owned, reused (read inputs)
	data   []byte // the input handled: a prefix of buf, or of a mapping
	mapped []byte // the mapping data is a slice of, if it is (see guard)
	name   string // the input's name, for messages
	input  int    // the input's index in the command's list
	end    bool   // the input ends here: the chunk holds nothing (see endFile)
	off    int64  // input offset of data[0]
	before byte   // the input's byte before data[0], 0 if none
	// Line numbers: the worker counts the chunk's lines (lb.lines), then
	// takes the lines before it from the previous chunk of the input
	// (prev), or first when there is none; line is the result.
	lb, prev   *lineBase
	first      int
	line       int
	firstStart int64 // as first, for lineStart
	lineStart  int64 // the input offset of the line data[0] is in
	k          sink
	pieces     chan sink     // output handed over before the chunk is done
	back       chan sink     // the pieces' buffers, written (see handOver)
	spare      sink          // the chunk's second buffers, unless lent
	lent       int           // sets of buffers with the writer (or in back)
	done       chan struct{} // closed when k is complete
	// turn, for a big chunk (see bigChunk), is closed when the writer
	// comes to it: its worker waits for that before it handles it.
	turn chan struct{}
	// release, if set, is called once the chunk is written: every chunk
	// before it is complete (it unmaps a mapped input).
	release func()
	// With env.decide, seq is the chunk's place among all the chunks
	// sent (any input), in which they are decided (see decisions). A
	// worker's chunk is decided once its worker is done with it and its
	// turn has come, by that worker or whoever decided the chunk before
	// (done is closed then), unless the worker handed a piece over first
	// (handed) or no worker took the chunk (byWriter): the writer then
	// decides each of its sinks as it comes to it.
	seq              int64
	handed, byWriter bool
}

// lineBase is one chunk's line count, and the number of lines before it
// once known (done closed). It is not reused: a chunk's successor may
// read it after the chunk itself was written and recycled.
type lineBase struct {
	line, lines int
	// start is the input offset of the line the chunk begins in, end of
	// the line it ends in (after its last '\n'), for offsets in a line.
	start, end int64
	done       chan struct{}
}

// pipeline is one run of eachLine or extract.
type pipeline struct {
	e       *env
	workers int
	// chunkSize, pieceSize, mapInputs and afterMap: the env's tuning.
	chunkSize, pieceSize int
	mapInputs            int
	afterMap             func(*os.File)
	extract              bool // cut chunks for extract (no line limit)
	maxLine              int
	free                 chan *chunk // chunks not in flight
	work                 chan *chunk // to the workers
	order                chan *chunk // to the writer, in input order
	quit                 chan struct{}
	// newFn, for the line commands, handles a line the reader reads past
	// itself (one longer than maxLine).
	newFn  lineFactory
	longFn lineFn
	ls     recordScanner // the reader's own, for lines over the limit
	// mapped holds the mapping of the input being read, if it is mapped,
	// until the chunk that releases it is written.
	mapped []byte
	// readBytes counts the input bytes read (a byte-order mark, the bytes
	// of a cut last line too).
	readBytes atomic.Int64
	// inMapped is set while the reader cuts a mapped input (it never
	// waits in a read then).
	inMapped atomic.Bool
	// dropMap and dropFrom: the mapped input the writer is in, and where
	// it last dropped pages up to (see dropWritten).
	dropMap  []byte
	dropFrom int
	// held counts the bytes of output the workers have handed over (in
	// pieces) and the writer has not written yet.
	held atomic.Int64
	// bigs holds a token for each big chunk sent and not yet written;
	// bigOut, the buffer kept for their output (see useBig); bigIn, the
	// reader's, a read buffer grown for a long line (see spare).
	bigs   chan struct{}
	bigOut chan []byte
	bigIn  []byte
	// The reader's position in the input it cuts: the input's index, the
	// offset of the next chunk, and its line number: after last's lines,
	// or line if last is nil.
	input int
	off   int64
	last  *lineBase
	line  int
	// lineStart is the input offset of the line at the reader's position
	// (as line, once the chunks before it are counted).
	lineStart int64
	// seq numbers the chunks sent (see chunk.seq); dec orders their
	// decisions.
	seq int64
	dec decisions
}

// parallel runs newWorker's chunk handlers on workers goroutines over
// files, the main goroutine writing their output in order; extract cuts
// chunks for extract. newFn is the line function (nil for extract).
func (e *env) parallel(files []string, workers int, extract bool, newWorker func(*pipeline) func(*chunk), newFn lineFactory) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	n := inflight(workers)
	p := &pipeline{
		e: e, workers: workers, extract: extract, maxLine: e.sc.ls.MaxLine(), newFn: newFn,
		chunkSize: e.tune.chunkSize, pieceSize: e.tune.pieceSize, mapInputs: e.tune.mapInputs, afterMap: e.tune.afterMap,
		free:   make(chan *chunk, n),
		work:   make(chan *chunk, n),
		order:  make(chan *chunk, n),
		quit:   make(chan struct{}),
		bigs:   make(chan struct{}, maxBigs),
		bigOut: make(chan []byte, 1),
	}
	for range n {
		p.free <- &chunk{pieces: make(chan sink, 1), back: make(chan sink, 2)}
	}
	if e.process && os.Getenv("GOMEMLIMIT") == "" {
		e.memBase = p.memoryLimit()
		e.limitMemory()
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			debug.SetPanicOnFault(true) // a mapped file that shrank: see guard
			handle := newWorker(p)
			for {
				select {
				case c, ok := <-p.work:
					if !ok {
						return
					}
					if hook := e.tune.chunkHook; hook != nil {
						hook(w)
					}
					p.guard(c, handle)
					p.decideChunk(c) // (closes c.done)
					// The writer may wait for c: closing done
					// readies it on this worker's processor, where it
					// would wait for the worker to block (or for the
					// scheduler's 10 ms slice) while the workers keep
					// every processor busy, and the chunks in flight
					// pile up behind it. Yielding runs it now: dedup
					// --workers 2 on 2 cores went from 1.64x to 1.72x
					// one worker.
					runtime.Gosched()
				case <-p.quit:
					return // what is left is not written
				}
			}
		}()
	}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		p.readAll(files)
		close(p.work)
		close(p.order)
	}()
	quit := false
	for !quit {
		c, ok := p.next()
		if !ok {
			if p.e.halt { // (dedup: a commit before the wait failed)
				p.stop(&quit)
			}
			break
		}
		p.write(c, &quit)
		if c.turn != nil {
			<-p.bigs
		}
		if !quit && c.lb != nil {
			e.prog.add(0, int64(c.lb.lines))
		}
		p.dropWritten(c)
		p.release(c)
		p.free <- c
	}
	wg.Wait()
	if quit {
		// An output error, a signal or --max-errors: the workers have
		// stopped. A reader in a mapped input stops at once; one that
		// waits in a read (tail -f) may never return, and is left. The
		// mappings of inputs read to the end are released, unwritten.
		if p.inMapped.Load() {
			<-readerDone
		}
		for done := false; !done; {
			select {
			case c, ok := <-p.order:
				if done = !ok; ok {
					p.release(c)
				}
			default:
				done = true
			}
		}
	}
	select {
	case <-readerDone:
		if p.mapped != nil { // the run stopped before the release was sent
			unmapFile(p.mapped)
		}
	default:
	}
	return p.end()
}

// release unmaps the input c ends, if it does (see chunk.release).
func (p *pipeline) release(c *chunk) {
	if c.release != nil {
		c.release()
		c.release = nil
		p.dropMap = nil // a later mapping may take the same address
	}
}

// end ends a pipeline's run: the bytes read counted, the output flushed,
// the exit status.
func (p *pipeline) end() int {
	e := p.e
	e.counts.bytes = p.readBytes.Load()
	e.flush()
	if e.werr != nil {
		e.errw.WriteString("uriscan: writing output: " + e.werr.Error() + "\n")
	}
	return e.status()
}

// count sets c's line numbers: its own lines counted, the lines before it
// from the chunk before (waiting for that chunk's count, which its worker,
// which took it earlier, does first).
func count(c *chunk) {
	lb := c.lb
	lb.lines = bytes.Count(c.data, nl)
	lb.line, lb.start = c.first, c.firstStart
	if c.prev != nil {
		<-c.prev.done
		lb.line, lb.start = c.prev.line+c.prev.lines, c.prev.end
	}
	lb.end = lb.start
	if i := bytes.LastIndexByte(c.data, '\n'); i >= 0 {
		lb.end = c.off + int64(i) + 1
	}
	c.line, c.lineStart = lb.line, lb.start
	close(lb.done)
}

// guard counts c's lines and runs handle on it (a big chunk once the
// writer has come to it), and turns a fault reading a mapped input (the
// file shrank after it was mapped: SIGBUS, which SetPanicOnFault makes a
// panic) into an input error.
func (p *pipeline) guard(c *chunk, handle func(*chunk)) {
	defer func() {
		if r := recover(); r != nil {
			if !mappedFault(r, c.mapped) {
				panic(r)
			}
			if c.lb != nil {
				select {
				case <-c.lb.done:
				default:
					close(c.lb.done) // the next chunk's lines are off; it faults too
				}
			}
			c.k.ioError(c.name + ": the file changed while it was read (it is mapped, and shrank)")
			c.k.inputErr = true
		}
	}()
	if c.lb != nil {
		count(c)
	}
	if c.turn == nil {
		handle(c)
		return
	}
	select {
	case <-c.turn:
	case <-p.quit:
		return // not written
	}
	p.useBig(c)
	handle(c)
	if c.mapped != nil {
		// Its pages are not read again (the writer drops them only
		// every dropEvery bytes).
		start := int(uintptr(unsafe.Pointer(unsafe.SliceData(c.data))) - uintptr(unsafe.Pointer(unsafe.SliceData(c.mapped))))
		dropPages(c.mapped, start, start+len(c.data))
	}
}

// A big chunk holds a line longer than a chunk (bigChunk bytes or more).
// Its output may be many megabytes (6 times a line of --max-line bytes for
// split's JSON of control bytes), so big chunks are handled one at a time,
// each once the writer has come to it, and at most maxBigs are in flight
// (the reader waits): the memory they take is that of one line's output,
// not one per worker or per chunk in flight. Lines that long are rare in
// real inputs; their throughput is one worker's.
const maxBigs = 1

func (p *pipeline) bigChunk() int { return 2 * p.chunkSize }

// memoryLimit is the soft memory limit the uriscan process runs the
// pipeline with (unless GOMEMLIMIT sets one). What the pipeline holds is
// bounded (the chunks in flight and their output, one long line's input
// and output, each worker's scratch for a line), but the collector lets
// the heap grow to twice what was live at its last cycle, and a long
// line leaves garbage fast (the levels' intermediate forms): without the
// limit, files of lines just under --max-line took 60-85 MB where what is
// live stays under 30 MB. The limit has the collector run before the heap
// passes it; when what is live nears it, it runs more often (and never
// takes more than half the CPU: the runtime's limiter), so a limit too
// low costs speed, never correctness. It grows with --max-line and with
// the chunks in flight beyond two workers' (a piece of output each).
func (p *pipeline) memoryLimit() int64 {
	limit := max(24<<20, 8<<20+16*int64(p.maxLine))
	return limit + int64(max(0, inflight(p.workers)-inflight(2))*(2*p.keepMax()+2*p.chunkSize))
}

// limitMemory sets the soft memory limit (if the pipeline runs with one:
// e.memBase) to the pipeline's and what the command holds besides
// (e.memHeld: dedup's seen-set in memory, which grows with its keys), or
// none where that is unknown (a store's caches).
func (e *env) limitMemory() {
	held := int64(0)
	if e.memHeld != nil {
		held = e.memHeld()
	}
	switch {
	case e.memBase == 0:
	case held < 0:
		debug.SetMemoryLimit(math.MaxInt64)
	default:
		debug.SetMemoryLimit(e.memBase + held)
	}
}
