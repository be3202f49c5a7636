package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/uriscan/uriscan"
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
	// it); chunkHook, if set, is called by worker w (0, 1, ...) before
	// each chunk it handles (a test proves the workers run at once).
	afterMap  func(*os.File)
	chunkHook func(w int)
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
			for s.Scan() {
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

// eachInvalidLine is eachLine for a command whose lineFn does nothing with
// a valid line (validate without --warn, under RFC 3986's grammar): the
// workers step over valid lines with LineScanner.ScanInvalid, a batch of
// them at a time, and call the lineFn for the invalid ones only.
func (e *env) eachInvalidLine(files []string, workers int, newFn lineFactory) int {
	if e.tune.streamOnly || e.sc.grammar != uriscan.RFC3986 {
		return e.eachLine(files, workers, newFn)
	}
	maxLine := e.sc.ls.MaxLine()
	return e.parallel(files, max(workers, 1), false, func(p *pipeline) func(c *chunk) {
		fn := newFn()
		var s recordScanner
		s.ls.SetMaxLine(maxLine)
		s.grammar = uriscan.RFC3986
		return func(c *chunk) {
			s.ls.ResetBytes(c.data)
			s.ls.StartAt(c.off, c.line)
			for s.ls.ScanInvalid() {
				s.ls.ParseErrorTo(&s.errv)
				s.perr = &s.errv
				fn(&c.k, c.name, &s)
				if s.perr != nil {
					c.k.countInvalid()
				}
				p.handOver(c)
			}
			s.perr = nil
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

// drain writes what k holds to standard output and error, and empties it.
func (e *env) drain(k *sink) {
	switch {
	case len(k.out) >= writeBufSize/4 && e.werr == nil:
		// A chunk's worth: written as it is, not copied through out.
		e.flush()
		if e.werr == nil {
			if _, err := e.rawOut.Write(k.out); err != nil {
				e.werr = err
			}
		}
		k.out = k.out[:0]
	case len(k.out) > 0:
		e.out.Write(k.out)
		k.out = k.out[:0]
	}
	switch {
	case len(k.err) >= writeBufSize/4:
		e.errw.Flush()
		e.rawErr.Write(k.err) // a failure is kept (e.stderr: exit 2)
		k.err = k.err[:0]
	case len(k.err) > 0:
		e.errw.Write(k.err)
		k.err = k.err[:0]
	}
	if k.invalid {
		e.invalid = true
		k.invalid = false
	}
	if k.ioFail {
		e.ioFail = true
		k.ioFail = false
	}
	if k.halt {
		e.halt = true
		k.halt = false
	}
	e.counts.uris += k.uris
	e.counts.rejected += k.rejected
	k.nInvalid, k.marks, k.uris, k.rejected = 0, k.marks[:0], 0, 0
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

// decisions puts the chunks' decisions (env.decide) in input order, one
// at a time, without a worker waiting for another: a worker done with a
// chunk whose turn has not come leaves it (ready) and takes the next
// chunk, and whoever decides the chunk before goes on with it. So the
// workers decide in turn while the others key their chunks, and the
// writer, which feeds the Log, does not decide (but a piece's sinks).
type decisions struct {
	mu      sync.Mutex
	next    int64            // the seq of the chunk to decide next
	ready   map[int64]*chunk // done by their workers, waiting for their turn
	busy    bool             // a goroutine is deciding ready chunks
	stopped bool             // the run quits: nothing is decided any more
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

// dropEvery is how many bytes of a mapped input are read between two
// calls of dropPages on what was read: resident memory stays within that
// and the chunks in flight. Not per chunk: each call interrupts the other
// CPUs (a TLB shootdown), which measured 15% of the workers' time.
const dropEvery = 4 << 20

// dropWritten drops the pages of the mapped input before the end of c,
// every dropEvery bytes.
func (p *pipeline) dropWritten(c *chunk) {
	if c.mapped == nil {
		return
	}
	if unsafe.SliceData(c.mapped) != unsafe.SliceData(p.dropMap) {
		p.dropMap, p.dropFrom = c.mapped, 0
	}
	end := int(uintptr(unsafe.Pointer(unsafe.SliceData(c.data)))-uintptr(unsafe.Pointer(unsafe.SliceData(c.mapped)))) + len(c.data)
	if end-p.dropFrom >= dropEvery {
		p.dropFrom = dropPages(c.mapped, p.dropFrom, end)
	}
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

// mappedFault reports whether r, recovered from a panic, is a fault
// reading m (with SetPanicOnFault the runtime's error has the address).
func mappedFault(r any, m []byte) bool {
	err, ok := r.(interface{ Addr() uintptr })
	if !ok || len(m) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	return err.Addr() >= start && err.Addr()-start < uintptr(len(m))
}

// handOver gives the output c holds to the writer once it is pieceSize or
// more, and goes on in the chunk's spare buffers, or in the ones the
// writer gives back, waiting for them while it writes them. A chunk has at
// most two sets of buffers, and while the pieces waiting for the writer
// hold more than heldMax bytes a worker waits for its own to be written:
// so the memory is bounded whatever the output, with at most a line's
// output (and a piece) per worker waiting, not one per chunk in flight.
func (p *pipeline) handOver(c *chunk) {
	n := c.k.size()
	if n < p.pieceSize {
		return
	}
	held := p.held.Add(int64(n))
	select {
	case c.pieces <- c.k:
		c.lent++
		c.handed = true
	case <-p.quit: // nobody writes it any more
		c.k.out, c.k.err = c.k.out[:0], c.k.err[:0]
		return
	}
	if c.lent == 1 && held <= p.heldMax() {
		c.k, c.spare = c.spare, sink{}
	} else {
		c.k = p.takeBack(c)
		for c.lent > 0 && p.held.Load() > p.heldMax() {
			c.spare = p.takeBack(c)
		}
	}
	switch {
	case cap(c.k.out) >= p.pieceSize:
	case cap(c.spare.out) >= p.pieceSize:
		// (The buffer came back empty: a long line's, kept for the next
		// one; see keepBig.)
		c.k, c.spare = c.spare, c.k
	default:
		c.k.out = make([]byte, 0, p.keepMax()) // a piece's room (see get)
	}
	c.k.reset(&p.e.rep)
}

// takeBack waits for a set of c's buffers that the writer has written
// (none, if the run is quitting).
func (p *pipeline) takeBack(c *chunk) sink {
	c.lent--
	select {
	case k := <-c.back:
		return k
	case <-p.quit:
		return sink{}
	}
}

// next returns the next chunk in input order; false when there is none
// left, or when e.halt is set. Before it waits for the reader (which
// waits for input, or is behind) it calls e.sc.beforeRead, as the
// streaming loop does before a read: the output is flushed, so that "tail
// -f log | uriscan validate" reports as it goes (and dedup first decides
// its pending batch, which may fail and set e.halt); it releases e.mu
// while it waits (see env.interrupted).
func (p *pipeline) next() (*chunk, bool) {
	var c *chunk
	select {
	case c = <-p.order:
	default:
		if p.e.sc.beforeRead != nil {
			p.e.sc.beforeRead()
		}
		if p.e.halt {
			return nil, false
		}
		p.wait(func() { c = <-p.order })
	}
	return c, c != nil
}

// wait runs block (which waits on a channel) with the output flushed and
// e.mu released.
func (p *pipeline) wait(block func()) {
	p.e.flush()
	p.e.mu.Unlock()
	block()
	p.e.mu.Lock()
}

// write writes c's output, its pieces as they come and then the rest once
// c is complete; with quit set (an output error or a signal stopped the
// run) it only waits for c.
func (p *pipeline) write(c *chunk, quit *bool) {
	if c.turn != nil {
		close(c.turn)
	}
	p.e.fileIdx = c.input
	for {
		var k sink
		got, done := false, false
		select {
		case k = <-c.pieces:
			got = true
		case <-c.done:
			done = true
		default:
			p.wait(func() {
				select {
				case k = <-c.pieces:
					got = true
				case <-c.done:
					done = true
				}
			})
		}
		if done {
			select {
			case k = <-c.pieces: // handed over just before the end
				p.writePiece(c, &k, quit)
			default:
			}
			p.drainPiece(&c.k, quit)
			if c.seq >= 0 && (c.handed || c.byWriter) {
				p.decidedByWriter(c) // (decided in drainChunk)
			}
			if c.end && !*quit {
				p.e.endFile()
				if p.e.halt {
					p.stop(quit)
				}
			}
			c.k.out = p.keepBig(c.k.out)
			// The worker is done with c: its buffers come home.
			for ; c.lent > 0; c.lent-- {
				select {
				case k := <-c.back:
					if cap(c.spare.out) == 0 {
						c.spare = k
					}
				default: // dropped by a worker that quit
				}
			}
			return
		}
		if got {
			p.writePiece(c, &k, quit)
		}
	}
}

// writePiece writes a piece of c's output, counts it written (see
// handOver), and gives its buffers back to c's worker, less one grown past
// keepMax; a worker that quit no longer takes them, and they are dropped.
func (p *pipeline) writePiece(c *chunk, k *sink, quit *bool) {
	n := k.size()
	p.drainPiece(k, quit)
	p.held.Add(-int64(n))
	k.out = p.keepBig(k.out)
	if cap(k.err) > p.keepMax() {
		k.err = nil
	}
	k.recs.trim(p.keepMax())
	select {
	case c.back <- *k:
	default:
	}
}

// keepBig returns b, written, unless it grew past keepMax: then it is kept
// for the next big chunk, if it is larger than the one kept (see
// useBig), and nil is returned.
func (p *pipeline) keepBig(b []byte) []byte {
	if cap(b) <= p.keepMax() {
		return b
	}
	select {
	case old := <-p.bigOut:
		if cap(old) > cap(b) {
			b = old
		}
	default:
	}
	select {
	case p.bigOut <- b[:0]:
	default: // (useBig put one back meanwhile)
	}
	return nil
}

// useBig gives c, a big chunk, the buffer kept for the output of big
// chunks, if it is larger than its own: the output of a long line is
// built without growing a buffer (and leaving the old ones as garbage)
// line after line.
func (p *pipeline) useBig(c *chunk) {
	select {
	case b := <-p.bigOut:
		if cap(b) > cap(c.k.out) {
			if cap(c.spare.out) == 0 && c.lent == 0 {
				c.spare.out = c.k.out[:0] // the room, for after the line
			}
			c.k.out = append(b, c.k.out...) // (empty, or a note)
			return
		}
		select {
		case p.bigOut <- b:
		default:
		}
	default:
	}
}

// drainPiece writes k unless quitting, and quits on an output error, a
// signal, or a command that stopped (dedup: a store error).
func (p *pipeline) drainPiece(k *sink, quit *bool) {
	if *quit {
		return
	}
	cut := p.e.rep.take(k)
	p.e.drainChunk(k)
	if cut || p.e.werr != nil || p.e.stopped() || p.e.halt {
		p.stop(quit)
	}
}

// stop makes the run quit: the workers and the reader stop, and what is
// left is not written.
func (p *pipeline) stop(quit *bool) {
	*quit = true
	close(p.quit)
	p.stopDecisions()
}

// drainChunk writes a chunk's output (gives its records to e.feed, if
// set) and tells onInputError of an input error in it.
func (e *env) drainChunk(k *sink) {
	if e.feed != nil {
		if e.decide != nil && !k.recs.decided && len(k.recs.keys) > 0 {
			// A piece, or a chunk no worker took (see chunk.seq):
			// every record before it is decided.
			e.decide(k, e.fileIdx)
			decidedByWriter.Add(1)
		}
		e.feed(k)
	}
	if k.inputErr && e.onInputError != nil {
		e.onInputError(string(bytes.TrimSuffix(bytes.TrimPrefix(k.err[k.ioAt:], []byte("uriscan: ")), []byte("\n"))))
	}
	e.drain(k)
}

// get returns a free chunk, emptied, or nil when the run is quitting.
func (p *pipeline) get() *chunk {
	select {
	case c := <-p.free:
		c.k.reset(&p.e.rep)
		c.data, c.mapped, c.end = nil, nil, false
		if cap(c.k.err) > p.keepMax() {
			c.k.err = nil
		}
		c.k.recs.trim(p.keepMax())
		if cap(c.k.out) < p.pieceSize {
			// A piece's room, so that it does not grow by doubling.
			c.k.out = make([]byte, 0, p.keepMax())
		}
		c.lb, c.prev, c.before, c.turn = nil, nil, 0, nil
		c.seq, c.handed, c.byWriter = -1, false, false
		if cap(c.buf) > 2*p.chunkSize && !p.extract {
			// Grown for a long line: kept for the next, not by every chunk.
			p.spare(c.buf)
			c.buf = nil
		}
		c.done = make(chan struct{})
		return c
	case <-p.quit:
		return nil
	}
}

// send hands c, holding data from offset p.off, to a worker (and to the
// writer, in order), and moves the reader's position past it.
func (p *pipeline) send(c *chunk, data []byte) {
	if !p.extract && len(data) >= p.bigChunk() {
		select {
		case p.bigs <- struct{}{}:
			c.turn = make(chan struct{})
		case <-p.quit:
		}
	}
	c.data, c.off, c.input = data, p.off, p.input
	c.lb = &lineBase{done: make(chan struct{})}
	c.prev, c.first, c.firstStart = p.last, p.line, p.lineStart
	p.last = c.lb
	p.chain(c)
	p.advance(int64(len(data)))
	p.order <- c
	p.work <- c
}

// advance moves the reader's position on by n bytes of input, and counts
// them (the summary's bytes, the progress bar's).
func (p *pipeline) advance(n int64) {
	p.off += n
	p.readBytes.Add(n)
	p.e.prog.add(n, 0)
}

// skipRun reports (extract --rejects: env.longRun) a run of URI bytes
// longer than uriscan.MaxExtractLength, which starts at the reader's
// position with run (its bytes so far) and which the reader skips but for
// its end: a URI of that length is no URI a crawler or a log keeps, and
// holding it would make memory unbounded. It goes in c, before c's
// matches, as a rejection with its first bytes.
func (p *pipeline) skipRun(c *chunk, run []byte) {
	if p.e.longRun == nil {
		return
	}
	line := p.lineNow() // no line end in the run: its line is the reader's
	head := run[:min(len(run), echoMax)]
	m := uriscan.Match{Start: p.off, End: p.off + int64(len(head)), Line: int64(line) + 1, Rejected: true}
	p.e.longRun(&c.k, c.name, m, p.lineStart, head)
}

// lineNow returns the number of lines before the reader's position,
// waiting for the workers to have counted them (not once the run quits).
func (p *pipeline) lineNow() int {
	if p.last != nil {
		select {
		case <-p.last.done:
		case <-p.quit:
			// The run is quitting, and the workers may not count the
			// chunks before: what the caller makes is not written.
			return p.line
		}
		p.line, p.lineStart, p.last = p.last.line+p.last.lines, p.last.end, nil
	}
	return p.line
}

// sendDone hands c, already complete (its sink filled by the reader), to
// the writer.
func (p *pipeline) sendDone(c *chunk) {
	c.input = p.input
	p.chain(c)
	c.byWriter = true
	close(c.done)
	p.order <- c
}

// chain gives c, about to be sent, its place in the decisions' order
// (see chunk.seq).
func (p *pipeline) chain(c *chunk) {
	if p.e.decide != nil {
		c.seq = p.seq
		p.seq++
	}
}

// decideChunk, in c's worker once it is done with c, closes c.done, the
// records of c decided first if the run decides (env.decide): at once if
// it is c's turn (see decisions), and then the ready chunks that follow,
// else later, by whoever decides the chunk before c. A chunk that handed
// a piece over is left to the writer (see write), which decides that
// piece first.
func (p *pipeline) decideChunk(c *chunk) {
	d := &p.dec
	if c.seq < 0 || c.handed {
		close(c.done)
		return
	}
	d.mu.Lock()
	if d.stopped {
		d.mu.Unlock()
		close(c.done)
		return
	}
	if d.busy || c.seq != d.next {
		if d.ready == nil {
			d.ready = map[int64]*chunk{}
		}
		d.ready[c.seq] = c
		d.mu.Unlock()
		return
	}
	d.busy = true
	d.mu.Unlock()
	p.decideFrom(c, &decidedByWorkers)
}

// decidedByWriter tells the decisions that the writer decided c's sinks
// (a chunk that handed a piece over, or one no worker took): the writer
// then decides the ready chunks that follow.
func (p *pipeline) decidedByWriter(c *chunk) {
	d := &p.dec
	d.mu.Lock()
	d.next = c.seq + 1
	next := d.ready[d.next]
	if next == nil || d.stopped || d.busy {
		d.mu.Unlock()
		return
	}
	delete(d.ready, d.next)
	d.busy = true
	d.mu.Unlock()
	p.decideFrom(next, &decidedByWriter)
}

// decideFrom decides c, whose turn it is (d.busy set by the caller), and
// the ready chunks after it while there are, closing each one's done
// (and counting them in count). The turn moves on before done is closed:
// the writer, which waits for done, may be the one to decide the chunk
// after (decidedByWriter), and must find the turn its own.
func (p *pipeline) decideFrom(c *chunk, count *atomic.Int64) {
	d := &p.dec
	for c != nil {
		p.e.decide(&c.k, c.input)
		count.Add(1)
		d.mu.Lock()
		d.next = c.seq + 1
		next := d.ready[d.next]
		if next != nil && !d.stopped {
			delete(d.ready, d.next)
		} else {
			next = nil
			d.busy = false
		}
		d.mu.Unlock()
		close(c.done)
		c = next
	}
}

// stopDecisions, as the run quits, completes the chunks waiting for
// their turn, undecided: the writer may wait for one (see write).
func (p *pipeline) stopDecisions() {
	d := &p.dec
	d.mu.Lock()
	d.stopped = true
	for _, c := range d.ready {
		close(c.done)
	}
	d.ready = nil
	d.mu.Unlock()
}

func (p *pipeline) stopping() bool {
	select {
	case <-p.quit:
		return true
	default:
		return p.e.stopped()
	}
}

// readAll reads each input in turn (from e.start: dedup's resume) and
// cuts it into chunks; after each, when the command has an endFile, it
// sends a chunk that says the input ended (see chunk.end).
func (p *pipeline) readAll(files []string) {
	for i, file := range files {
		if i < p.e.start.File {
			continue
		}
		p.input = i
		if !p.readInput(file) {
			return
		}
		if p.e.endFile != nil {
			c := p.get()
			if c == nil {
				return
			}
			c.end = true
			p.sendDone(c)
		}
	}
}

// readInput reads one input and cuts it into chunks; false if the run is
// quitting, or stops (a resume that cannot reach its position).
func (p *pipeline) readInput(file string) bool {
	c := p.get()
	if c == nil || p.e.stopped() {
		return false
	}
	in, err := p.e.openQuiet(file)
	c.name = in.name
	c.k.err = append(c.k.err, in.note...) // said before the input's lines
	p.off, p.last, p.line, p.lineStart = 0, nil, 0, 0
	if in.note != "" {
		p.readBytes.Add(int64(len(utf8BOM))) // the byte-order mark skipped
		p.e.prog.add(int64(len(utf8BOM)), 0)
	}
	if err != nil {
		c.k.ioError(openErrorMsg(err))
		c.k.inputErr = true
		in.close()
		p.sendDone(c)
		return true
	}
	if st := p.e.start; p.input == st.File && st.Offset > 0 {
		// A resume: read from its position, or stop, as the streaming
		// loop does.
		if err := in.skip(in.r, st.Offset); err != nil {
			c.k.ioError(in.name + ": resuming at offset " + strconv.FormatInt(st.Offset, 10) + ": " + err.Error())
			c.k.inputErr, c.k.halt = true, true
			in.close()
			p.sendDone(c)
			return false
		}
		p.off, p.line, p.lineStart = st.Offset, st.Line, st.Offset
	}
	if data, err := p.mapInput(&in); err == nil && data != nil {
		in.close() // the mapping stays valid
		p.inMapped.Store(true)
		ok := p.readMapped(c, data)
		p.inMapped.Store(false)
		if !ok {
			return false
		}
		if c = p.get(); c == nil {
			return false
		}
		m := p.mapped
		p.mapped = nil
		c.name, c.release = in.name, func() { unmapFile(m) }
		p.sendDone(c)
		return true
	}
	ok := p.read(c, in.r)
	if err := in.close(); err != nil && ok {
		if c := p.get(); c != nil {
			c.name = in.name
			c.k.ioError(in.name + ": " + err.Error())
			c.k.inputErr = true
			p.sendDone(c)
		}
	}
	return ok
}

// mapInput maps a plain regular file's bytes (after a byte-order mark,
// from the reader's offset: see readInput) for readMapped, or returns nil: standard input, pipes, compressed input,
// an empty file, a system that cannot map it, and (see mapInputs) a run
// with a CPU to spare are read.
func (p *pipeline) mapInput(in *input) ([]byte, error) {
	switch {
	case in.file == nil || p.mapInputs == mapNever:
		return nil, nil
	case p.mapInputs == mapAuto && p.workers < runtime.GOMAXPROCS(0):
		// A CPU to spare: read(2) copies the file on it while the
		// workers scan, which measured faster than faulting the pages
		// in from the workers (validate: 86 ms against 103 on 140 MB).
		return nil, nil
	}
	fi, err := in.file.Stat()
	from := in.base + p.off
	if err != nil || fi.Size() <= from || fi.Size() != int64(int(fi.Size())) {
		return nil, err
	}
	m, err := mapFile(in.file, fi.Size())
	if err != nil {
		return nil, err
	}
	p.mapped = m
	mappedInputs.Add(1)
	if p.afterMap != nil {
		p.afterMap(in.file)
	}
	return m[from:], nil
}

// When plain files are mapped (tuning.mapInputs).
const (
	mapAuto = iota
	mapAlways
	mapNever
)

var (
	// mappedInputs counts the inputs mapped, for the tests to see that
	// the mapping runs; decidedByWorkers and decidedByWriter count the
	// sinks decided (env.decide) off the writer and by it.
	mappedInputs                      atomic.Int64
	decidedByWorkers, decidedByWriter atomic.Int64
)

// window is the length of a chunk's buffer: for extract exactly
// uriscan.DefaultBufferSize, so that a run of URI bytes too long for it is
// cut where uriscan.ExtractScanner cuts it; for the line commands twice
// chunkSize (grown for a long line). target is how many bytes a chunk
// holds.
func (p *pipeline) window() (window, target int) {
	if p.extract {
		return uriscan.DefaultBufferSize, min(p.chunkSize, uriscan.DefaultBufferSize/2)
	}
	return 2 * p.chunkSize, p.chunkSize
}

// readMapped cuts a mapped input into chunks, starting with c: as read
// does, without copying: a chunk's data is a slice of the mapping. A line
// over the limit goes to a worker whole (it is in memory already; the
// worker's scanner keeps its first bytes). For extract, a run of URI
// bytes that fills a window keeps only its end, as read and
// uriscan.ExtractScanner do. False if the run is quitting.
func (p *pipeline) readMapped(c *chunk, data []byte) (ok bool) {
	defer func() {
		// A fault here: the file shrank under the reader.
		if r := recover(); r != nil {
			if !mappedFault(r, p.mapped) {
				panic(r)
			}
			c.data = nil
			c.k.ioError(c.name + ": the file changed while it was read (it is mapped, and shrank)")
			c.k.inputErr = true
			p.sendDone(c)
			ok = true
		}
	}()
	debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(false)
	name := c.name
	window, target := p.window()
	if p.extract {
		target = window // the cuts need no room to read into here
	}
	// Offsets in the whole mapping, whose pages are aligned, are base+pos.
	base := len(p.mapped) - len(data)
	skipFrom := -1 // where the pages of a run being skipped are kept from
	inRun := false // a run being skipped was reported (see skipRun)
	pos := 0
	for pos < len(data) {
		if p.stopping() {
			return false
		}
		rest := data[pos:]
		var cut int
		switch {
		case len(rest) <= target:
			cut = len(rest)
		case bytes.LastIndexByte(rest[:target], '\n') >= 0:
			cut = bytes.LastIndexByte(rest[:target], '\n') + 1
		case !p.extract:
			// A line longer than a chunk: the chunk ends with it, unless
			// it is over the limit: then the reader's streaming scanner
			// reads past it, dropping the pages behind it.
			j := -1 // where the line ends, within the limit
			if hi := min(len(rest), p.maxLine+2); hi > target {
				j = bytes.IndexByte(rest[target:hi], '\n')
			}
			if j >= 0 || len(rest) <= p.maxLine+1 {
				if cut = target + j + 1; j < 0 {
					cut = len(rest)
				}
				break
			}
			d := &dropReader{m: p.mapped, pos: base + pos, dropped: base + pos}
			next, have, ok := p.longLine(c, 0, d)
			switch {
			case !ok:
				return false
			case have < 0:
				return true // the input ended with the line (c is freed)
			}
			c, pos = next, d.pos-base-have // have: read past the line's end
			continue
		default:
			w := rest[:min(window, len(rest))]
			if i := bytes.LastIndexByte(w, '\n'); i >= 0 {
				cut = i + 1
			} else if i := lastNonURIByte(w); i >= 0 {
				cut = i + 1
			} else if len(w) < window {
				cut = len(rest) // a run to the end of the input
			} else {
				drop := window - uriscan.MaxExtractLength // keep the run's end
				if !inRun {
					p.skipRun(c, w)
					inRun = true
				}
				if skipFrom < 0 {
					skipFrom = base + pos
				}
				pos += drop
				p.advance(int64(drop))
				// What it skips is not read again: its pages go, every
				// dropEvery bytes (no chunk is written meanwhile to
				// drop them: see dropWritten), so that a run of any
				// length keeps at most that much resident.
				if base+pos-skipFrom >= dropEvery {
					skipFrom = dropPages(p.mapped, skipFrom, base+pos)
				}
				continue
			}
		}
		c.mapped = p.mapped // the whole mapping, for guard and dropWritten
		c.before = 0
		if pos > 0 {
			c.before = data[pos-1]
		}
		p.send(c, rest[:cut:cut])
		pos += cut
		skipFrom, inRun = -1, false
		if c = p.get(); c == nil {
			return false
		}
		c.name = name
	}
	if len(c.k.err) > 0 {
		p.sendDone(c) // a note, and no bytes
	} else {
		p.free <- c
	}
	return true
}

// read cuts one input into chunks, starting with c (which may hold a note
// for standard error already); false if the run is quitting.
func (p *pipeline) read(c *chunk, r io.Reader) bool {
	var (
		inRun bool // a run being skipped was reported (see skipRun)
		have  int  // bytes of c.buf read (from p.off)
		empty int  // reads in a row that gave nothing
		m     int
		err   error
		cut   int
	)
	window, target := p.window()
	c.buf = p.sized(c.buf, window)
	for {
		if p.stopping() {
			return false
		}
		end := len(c.buf)
		if have < target {
			end = target // a chunk's worth; more only for a long line
		}
		if have == end {
			goto cut // a full buffer (left from the last cut): cut it first
		}
		m, err = r.Read(c.buf[have:end])
		have += m
		if m == 0 && err == nil {
			if empty++; empty >= 100 {
				err = io.ErrNoProgress
			}
		} else {
			empty = 0
		}
		switch {
		case err == io.EOF:
			if have > 0 {
				p.send(c, c.buf[:have])
			} else {
				p.sendDone(c) // a note, or nothing
			}
			return true
		case err != nil:
			return p.readError(c, have, err)
		case m == 0:
			continue
		}
	cut:
		// Cut after the last line end (extract: failing that, after the
		// last byte no URI holds).
		cut = bytes.LastIndexByte(c.buf[:have], '\n') + 1
		if cut == 0 && have < len(c.buf) && (have < target || !p.extract) {
			continue // read on: the line is not complete
		}
		if cut == 0 && p.extract {
			if cut = lastNonURIByte(c.buf[:have]) + 1; cut == 0 && have < len(c.buf) {
				continue
			} else if cut == 0 {
				// A run of URI bytes longer than the buffer: keep its end
				// (as uriscan.ExtractScanner does).
				if !inRun {
					p.skipRun(c, c.buf[:have])
					inRun = true
				}
				drop := have - uriscan.MaxExtractLength
				c.before = c.buf[drop-1]
				have = copy(c.buf, c.buf[drop:have])
				p.advance(int64(drop))
				continue
			}
		}
		if cut == 0 && have <= p.maxLine+1 {
			// A line longer than the buffer, within the limit: grow it.
			nb := p.sized(nil, min(2*len(c.buf), p.maxLine+2+p.chunkSize))
			copy(nb, c.buf[:have])
			p.spare(c.buf)
			c.buf = nb
			continue
		}
		if cut == 0 {
			// A line over the limit: a streaming scanner reads past it.
			var ok bool
			if c, have, ok = p.longLine(c, have, r); !ok {
				return false
			}
			if have < 0 {
				return true // the input ended with the line
			}
			continue
		}
		next := p.get()
		if next == nil {
			return false
		}
		next.buf = p.sized(next.buf, max(window, have-cut)) // a grown buffer is not passed on
		next.name, next.before = c.name, c.buf[cut-1]
		have = copy(next.buf, c.buf[cut:have])
		p.send(c, c.buf[:cut])
		c, inRun = next, false
	}
}

// dropReader reads a mapping from pos, dropping the pages it has read
// (for a line over the limit: the process's memory does not grow with it).
type dropReader struct {
	m       []byte
	pos     int
	dropped int // where the pages were dropped up to
}

func (d *dropReader) Read(b []byte) (int, error) {
	if d.pos >= len(d.m) {
		return 0, io.EOF
	}
	// A megabyte at a time, copied out, then its pages dropped.
	n := copy(b[:min(len(b), 1<<20)], d.m[d.pos:])
	d.pos += n
	d.dropped = dropPages(d.m, d.dropped, d.pos)
	return n, nil
}

// sized returns b, or the spare buffer, or a new buffer, of at least n
// bytes (exactly n for extract: see window).
func (p *pipeline) sized(b []byte, n int) []byte {
	if cap(b) < n && cap(p.bigIn) >= n {
		b, p.bigIn = p.bigIn, nil
	}
	if cap(b) < n {
		return make([]byte, n)
	}
	if p.extract {
		return b[:n]
	}
	return b[:cap(b)]
}

// spare keeps b, a read buffer grown for a long line, as the reader's
// spare (see sized), if it is larger than the one it has.
func (p *pipeline) spare(b []byte) {
	if cap(b) > 2*p.chunkSize && cap(b) > cap(p.bigIn) && !p.extract {
		p.bigIn = b[:0]
	}
}

var nl = []byte{'\n'}

// readError ends an input that a read failed: the whole lines in
// c.buf[:have] go to a worker; a cut last line is reported as truncated
// (never taken), as with one worker. Extract takes the cut last line up
// to its last byte that no URI holds: a URI that ends before it is whole,
// and taken; the run of URI bytes that reaches the cut may be a URI cut
// short ("https://www.ke"), and is not (nor a rejection in it).
func (p *pipeline) readError(c *chunk, have int, err error) bool {
	cut := bytes.LastIndexByte(c.buf[:have], '\n') + 1
	cutLine := false // (extract's: the line commands' is the scanner's)
	if p.extract {
		// (An extract chunk may end in the middle of a line.)
		cutLine = have > cut || have == 0 && p.off > 0 && c.before != '\n'
		cut = lastNonURIByte(c.buf[:have]) + 1
	}
	rest := append([]byte(nil), c.buf[cut:have]...)
	p.readBytes.Add(int64(len(rest))) // read, if not taken
	if cut > 0 || len(c.k.err) > 0 {
		name := c.name
		p.send(c, c.buf[:cut])
		if c = p.get(); c == nil {
			return false
		}
		c.name = name
	}
	switch {
	case p.extract && cutLine:
		c.k.ioError(fmt.Sprintf("%s:%d: the last line was cut short by a read error at byte %d of the input, and is taken only up to byte %d (no URI that reaches the cut): %v",
			c.name, p.lineNow()+1, p.off+int64(len(rest)), p.off, err))
	case p.extract:
		c.k.ioError(c.name + ": " + err.Error())
	default:
		s := &recordScanner{}
		s.ls.SetMaxLine(p.maxLine)
		s.ls.Reset(io.MultiReader(bytes.NewReader(rest), errReader{err}))
		s.ls.StartAt(p.off, p.lineNow())
		for s.Scan() {
			// Only a cut line is left, and it is not a record.
		}
		if err := s.Err(); err != nil {
			c.k.ioError(inputErrorMsg(c.name, err))
		}
	}
	c.k.inputErr = true
	p.sendDone(c)
	return true
}

// longLine hands a line over the limit, which starts at the reader's
// position and of which c.buf[:have] holds the start, to a streaming
// LineScanner reading on from r: the scanner reads past it as with one
// worker. It returns the chunk to go on with, holding have bytes read
// after the line (-1 if the input ended with it); false when quitting.
func (p *pipeline) longLine(c *chunk, have int, r io.Reader) (*chunk, int, bool) {
	if p.longFn == nil {
		p.longFn = p.newFn()
		p.ls.ls.SetMaxLine(p.maxLine)
		p.ls.grammar = p.e.sc.grammar
	}
	nr := &untilNewline{r: r}
	s := &p.ls
	s.ls.Reset(io.MultiReader(bytes.NewReader(c.buf[:have]), nr))
	line := p.lineNow()
	s.ls.StartAt(p.off, line)
	s.perr = nil
	ended := false
	if s.Scan() {
		p.longFn(&c.k, c.name, s)
		if s.perr != nil {
			c.k.countInvalid()
		}
	}
	if err := s.Err(); err != nil {
		c.k.ioError(inputErrorMsg(c.name, err))
		c.k.inputErr = true
		ended = true
	}
	s.ls.Reset(nil)
	ended = ended || !nr.done
	// c carries the line's output; its buffer goes on with the next chunk.
	buf := c.buf
	c.buf, c.data = nil, nil
	name := c.name
	p.sendDone(c)
	p.advance(int64(have) + nr.n)
	p.line, p.lineStart = line+1, p.off
	next := p.get()
	if next == nil {
		return nil, 0, false
	}
	next.buf, next.name = p.sized(buf, len(nr.left)), name
	if ended {
		p.free <- next
		return next, -1, true
	}
	return next, copy(next.buf, nr.left), true
}

// inputErrorMsg words the read error that ended an input.
func inputErrorMsg(name string, err error) string {
	var te *uriscan.TruncatedError
	if errors.As(err, &te) {
		return fmt.Sprintf("%s:%d: the last line (%d bytes, from byte %d of the input) was cut short by a read error, and is not taken: %v", name, te.Line, te.Len, te.Offset, te.Err)
	}
	if msg, ok := pathErrorMsg(err); ok && strings.HasPrefix(msg, name+": ") {
		return msg // not "NAME: read NAME: why"
	}
	return name + ": " + err.Error()
}

// openErrorMsg is an input's open error as a message: "NAME: why".
func openErrorMsg(err error) string {
	msg, _ := pathErrorMsg(err)
	return msg
}

// pathErrorMsg words err, a *PathError of a system call on an input (in
// a wrapping error, which may add to it), as "NAME: why", without the
// call ("open NAME: why", "read NAME: why"); false, with err's text, for
// another error (a decompressor's "gunzip NAME: why" says what failed).
func pathErrorMsg(err error) (string, bool) {
	var pe *fs.PathError
	if errors.As(err, &pe) && (pe.Op == "open" || pe.Op == "read") {
		return strings.Replace(err.Error(), pe.Op+" "+pe.Path+": ", pe.Path+": ", 1), true
	}
	return err.Error(), false
}

// errReader returns its error.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// untilNewline reads r up to and including the first '\n', then gives
// io.EOF; left holds what the read that found it gave after it, n the
// bytes it returned, and done whether it found one.
type untilNewline struct {
	r    io.Reader
	left []byte
	n    int64
	done bool
}

func (u *untilNewline) Read(p []byte) (int, error) {
	if u.done {
		return 0, io.EOF
	}
	n, err := u.r.Read(p)
	if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
		u.left = append(u.left[:0], p[i+1:n]...)
		u.done = true
		n, err = i+1, nil
	}
	u.n += int64(n)
	return n, err
}

// lastNonURIByte returns the index of the last byte of b that no URI
// holds (space, control, non-ASCII, and " < > \ ^ ` { | }), or -1.
func lastNonURIByte(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		switch c := b[i]; {
		case c <= ' ' || c >= 0x7f:
			return i
		case c == '"' || c == '<' || c == '>' || c == '\\' || c == '^' || c == '`' || c == '{' || c == '|' || c == '}':
			return i
		}
	}
	return -1
}
