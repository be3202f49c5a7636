package lineio

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// heldMax is how many bytes of output handed over and not yet written
// (pipe.held) a worker goes on past: over it, a worker that hands a
// piece over waits for it to be written (the output of one line can be 6
// times a line of MaxLine bytes, split's JSON of control bytes, and a
// chunk in flight holding a line's output each would make 50 MB of 1 MiB
// lines). keepMax is the room of a piece (PieceSize and a line's output),
// and the largest buffer a chunk keeps once written: one grown for the
// output of a long line goes (see keepBig).
func (p *pipe[S, P]) heldMax() int64 { return 4 * int64(p.pieceSize) }
func (p *pipe[S, P]) keepMax() int   { return keepMax(p.pieceSize) }
func keepMax(pieceSize int) int      { return pieceSize + pieceSize/4 }

// inflight is how many chunks exist: enough that a worker never waits
// for the reader or the writer (measured: 3 per worker beat 1 by 10%).
func inflight(workers int) int { return 3*workers + 2 }

// Chunk is a piece of one input handed to a worker: whole lines (or, for
// Extract, text cut after a byte no URI holds), and what the worker made
// of them (K).
type Chunk[S any] struct {
	Data   []byte // the input handled
	Name   string // the input's name, for messages
	Input  int    // the input's index in the Source
	Off    int64  // input offset of Data[0]
	Before byte   // the input's byte before Data[0], 0 if none
	// Line is the number of lines before Data[0] in the input; LineStart
	// the input offset of the line Data[0] is in.
	Line      int
	LineStart int64
	K         S // the worker's results

	p   handOverer[S]
	buf []byte // owned, reused
	end bool   // the input ends here: the chunk holds nothing (see Ender)
	// Line numbers: the worker counts the chunk's lines (lb.lines), then
	// takes the lines before it from the previous chunk of the input
	// (prev), or first when there is none.
	lb, prev   *lineBase
	first      int
	firstStart int64         // as first, for LineStart
	pieces     chan S        // output handed over before the chunk is done
	back       chan S        // the pieces' buffers, written (see handOver)
	spare      S             // the chunk's second buffers, unless lent
	lent       int           // sets of buffers with the writer (or in back)
	done       chan struct{} // closed when K is complete
	// turn, for a big chunk (see bigChunk), is closed when the writer
	// comes to it: its worker waits for that before it handles it.
	turn chan struct{}
	// With a Decider, seq is the chunk's place among all the chunks sent
	// (any input), in which they are decided (see decisions). A worker's
	// chunk is decided once its worker is done with it and its turn has
	// come, by that worker or whoever decided the chunk before (done is
	// closed then), unless the worker handed a piece over first (handed)
	// or no worker took the chunk (byWriter): the writer then decides
	// each of its sinks as it comes to it.
	seq              int64
	handed, byWriter bool
}

type handOverer[S any] interface{ handOver(*Chunk[S]) }

// HandOver gives the output c.K holds to the writer once it is PieceSize
// or more, and goes on in other buffers: a worker calls it after each
// line. (A caller that knows K's size may check it first.)
func (c *Chunk[S]) HandOver() { c.p.handOver(c) }

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

// pipe is one run.
type pipe[S any, P Sink[S]] struct {
	cmd  Command[S]
	end  Ender      // (or nil)
	dec  Decider[S] // (or nil)
	skip Skipper[S] // (or nil)
	host Host

	workers              int
	chunkSize, pieceSize int
	extract              bool
	maxLine              int
	free                 chan *Chunk[S] // chunks not in flight
	work                 chan *Chunk[S] // to the workers
	order                chan *Chunk[S] // to the writer, in input order
	quit                 chan struct{}
	halted               bool // the writer's Idle stopped the run
	// readBytes counts the input bytes read.
	readBytes atomic.Int64
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
	// seq numbers the chunks sent (see Chunk.seq), in which decisions
	// orders their decisions.
	seq       int64
	decisions decisions[S]
	byWorkers atomic.Int64 // sinks decided by the workers
	byWriter  atomic.Int64 // and by the writer
}

// Run runs cmd over src's inputs: cfg.Workers goroutines handle the
// chunks, the caller's goroutine commits their results in input order.
// It returns when the inputs are read and committed, or the run stopped
// (a Commit, EndInput or Idle said so, or a Halt); what it read is
// counted in Stats.
func Run[S any, P Sink[S]](cfg Config, src Source, cmd Command[S]) Stats {
	workers := max(cfg.Workers, 1)
	n := inflight(workers)
	p := &pipe[S, P]{
		cmd: cmd, workers: workers, extract: cfg.Extract, maxLine: cfg.MaxLine,
		chunkSize: cfg.ChunkSize, pieceSize: cfg.PieceSize,
		free:   make(chan *Chunk[S], n),
		work:   make(chan *Chunk[S], n),
		order:  make(chan *Chunk[S], n),
		quit:   make(chan struct{}),
		bigs:   make(chan struct{}, maxBigs),
		bigOut: make(chan []byte, 1),
	}
	if p.chunkSize <= 0 {
		p.chunkSize = DefaultChunkSize
	}
	if p.pieceSize <= 0 {
		p.pieceSize = DefaultPieceSize
	}
	p.end, _ = cmd.(Ender)
	p.dec, _ = cmd.(Decider[S])
	p.skip, _ = cmd.(Skipper[S])
	p.host, _ = cmd.(Host)
	if p.host == nil {
		p.host = noHost{}
	}
	for range n {
		p.free <- &Chunk[S]{p: p, K: cmd.NewSink(), spare: cmd.NewSink(), pieces: make(chan S, 1), back: make(chan S, 2)}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			handle := cmd.Worker(w)
			for {
				select {
				case c, ok := <-p.work:
					if !ok {
						return
					}
					if cfg.ChunkHook != nil {
						cfg.ChunkHook(w)
					}
					p.handleChunk(c, handle)
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
	go func() {
		p.readAll(src)
		close(p.work)
		close(p.order)
	}()
	quit := false
	for !quit {
		c, ok := p.next()
		if !ok {
			if p.halted { // (dedup: a commit before the wait failed)
				p.stop(&quit)
			}
			break
		}
		p.write(c, &quit)
		if c.turn != nil {
			<-p.bigs
		}
		if !quit && c.lb != nil {
			p.host.Progress(0, int64(c.lb.lines))
		}
		p.free <- c
	}
	wg.Wait()
	// A reader that quits leaves what it sent unwritten; one that waits in
	// a read (tail -f) may never return, and is left.
	return Stats{Bytes: p.readBytes.Load(), DecidedByWorkers: p.byWorkers.Load(), DecidedByWriter: p.byWriter.Load()}
}

// noHost is the Host of a Command that is none.
type noHost struct{}

func (noHost) Progress(int64, int64) {}
func (noHost) Idle() bool            { return false }
func (noHost) Wait(block func())     { block() }
func (noHost) Stopped() bool         { return false }

// count sets c's line numbers: its own lines counted, the lines before it
// from the chunk before (waiting for that chunk's count, which its worker,
// which took it earlier, does first).
func count[S any](c *Chunk[S]) {
	lb := c.lb
	lb.lines = bytes.Count(c.Data, nl)
	lb.line, lb.start = c.first, c.firstStart
	if c.prev != nil {
		<-c.prev.done
		lb.line, lb.start = c.prev.line+c.prev.lines, c.prev.end
	}
	lb.end = lb.start
	if i := bytes.LastIndexByte(c.Data, '\n'); i >= 0 {
		lb.end = c.Off + int64(i) + 1
	}
	c.Line, c.LineStart = lb.line, lb.start
	close(lb.done)
}

// handleChunk counts c's lines and runs handle on it (a big chunk once
// the writer has come to it).
func (p *pipe[S, P]) handleChunk(c *Chunk[S], handle func(*Chunk[S])) {
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
}

// A big chunk holds a line longer than a chunk (bigChunk bytes or more).
// Its output may be many megabytes, so big chunks are handled one at a
// time, each once the writer has come to it, and at most maxBigs are in
// flight (the reader waits): the memory they take is that of one line's
// output, not one per worker or per chunk in flight. Lines that long are
// rare in real inputs; their throughput is one worker's.
const maxBigs = 1

func (p *pipe[S, P]) bigChunk() int { return 2 * p.chunkSize }

// MemoryLimit is a soft memory limit (debug.SetMemoryLimit) for a process
// running cfg's run. What the run holds is bounded (the chunks in flight
// and their output, one long line's input and output, each worker's
// scratch for a line), but the collector lets the heap grow to twice what
// was live at its last cycle, and a long line leaves garbage fast:
// without the limit, files of lines just under MaxLine took 60-85 MB
// where what is live stays under 30 MB. A limit too low costs speed,
// never correctness (the runtime never gives the collector more than half
// the CPU). It grows with MaxLine and with the chunks in flight beyond
// two workers'.
func (cfg Config) MemoryLimit() int64 {
	chunk, piece := cfg.ChunkSize, cfg.PieceSize
	if chunk <= 0 {
		chunk = DefaultChunkSize
	}
	if piece <= 0 {
		piece = DefaultPieceSize
	}
	limit := max(24<<20, 8<<20+16*int64(cfg.MaxLine))
	return limit + int64(max(0, inflight(max(cfg.Workers, 1))-inflight(2))*(2*keepMax(piece)+2*chunk))
}
