package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/lineio"
)

const writeBufSize = 64 << 10

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// env is what a command runs with: buffered output, the input loop, and
// the exit status so far.
type env struct {
	// tune is how runs cut and read their input (defaultTuning; the
	// tests give their own).
	tune tuning
	// stores are the stores and the Public Suffix List (Main's: the
	// binary's; the tests' own).
	stores Stores
	stdin  io.Reader
	// stdinName names standard input in messages ("<uri>" for --uri).
	stdinName string
	cmd       *command      // the command being run
	out       *bufio.Writer // standard output
	rawOut    io.Writer     // what out writes to (see drain)
	rawErr    io.Writer     // what errw writes to
	errw      *bufio.Writer // standard error
	stderr    *stderrWriter // under rawErr: whether a write failed
	sc        recordScanner
	rep       reports // --quiet, --errors, --max-errors
	// textLines: the lines are text, not URIs (dedup --extract): only a
	// line over the limit is invalid.
	textLines bool
	// verifyInput (--verify-input): a compressed input is read to its end
	// and its checksums checked before any of its lines is taken (see
	// input.go).
	verifyInput bool
	// finalLine, if set, is written last on standard error (a summary).
	finalLine string
	// tty is the process's standard error (main only), where a progress
	// bar may be drawn; prog is the bar, if drawn.
	tty  *os.File
	prog *progress
	// process: this is the uriscan process (main only), whose memory
	// limit parallel may set (memBase: see lineio.Config.MemoryLimit), raised
	// by memHeld (see limitMemory).
	process bool
	memBase int64
	// counts are what the engine's writer has written (extract's
	// summary).
	counts       struct{ bytes, uris, rejected int64 }
	ioFail       bool // an input could not be read: exit 2
	invalid      bool // some line was invalid: exit 1
	allowInvalid bool // --allow-invalid: invalid lines do not make the exit status 1
	// longRun, if set (extract --rejects), reports a run of URI bytes
	// longer than uriscan.MaxExtractLength that the reader skips (see
	// lineio.Skipper).
	longRun func(k *sink, name string, m uriscan.Match, lineStart int64, head []byte)
	werr    error // first error writing output; stops the input loop
	halt    bool  // the command stopped the input loop (a store error)

	// fileIdx is the index of the input being read.
	fileIdx int
	// taker, if set, takes the records of the lines in input order
	// (dedup: see recordTaker).
	taker recordTaker

	// Signals (main only): sig is the signal that asked the run to stop;
	// the input loop holds mu except while it waits in a read, so that a
	// signal that arrives then can finish the run from its own goroutine
	// (finish, set by the command, settles what it holds: dedup commits
	// and prints its summary).
	sig    atomic.Int32
	mu     sync.Mutex
	done   bool
	finish func()
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	se := &stderrWriter{w: stderr}
	e := &env{
		stdin:     stdin,
		stdinName: stdinName,
		out:       bufio.NewWriterSize(stdout, writeBufSize),
		rawOut:    stdout,
		rawErr:    se,
		errw:      bufio.NewWriterSize(se, writeBufSize),
		stderr:    se,
		tune:      defaultTuning(),
	}
	// Flush before blocking on input, so that "tail -f log | uriscan
	// validate" reports as it goes; on files this is once per read buffer.
	e.sc.beforeRead = e.flush
	e.sc.mu = &e.mu
	e.sc.stop = e.stopped
	return e
}

// stderrWriter is standard error, as every write to it goes (errw, the
// reports drain writes as they are, the progress bar's messages): it
// keeps whether one failed (/dev/full, a closed descriptor), for the exit
// status (see run: the reports or the summary are lost, and nothing else
// could say so). A pipe whose reader is gone is SIGPIPE (the Go runtime's
// rule for descriptors 1 and 2).
type stderrWriter struct {
	w      io.Writer
	failed atomic.Bool
}

func (w *stderrWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.failed.Store(true)
	}
	return n, err
}

// stopped reports whether a signal asked the run to stop.
func (e *env) stopped() bool { return e.sig.Load() != 0 }

// exitSignal is the exit status for a run a signal stopped: 128 + its
// number, as shells report it (130 for SIGINT, 143 for SIGTERM).
func exitSignal(sig int32) int { return 128 + int(sig) }

// interrupted handles the first signal (SIGINT, SIGTERM) main caught, once
// it has set sig: the input loop stops at the next line, or, if it is
// waiting in a read, the run is finished from here (output flushed, finish
// called) and the process exits. (A second signal exits at once.)
func (e *env) interrupted(sig syscall.Signal) {
	e.mu.Lock()
	if e.done {
		e.mu.Unlock()
		return // the run ended, and main exits with the signal's status
	}
	// The input loop waits in a read (it holds mu otherwise): what it
	// read so far is settled (flush runs before every read).
	if e.finish != nil {
		e.finish()
	}
	e.flush()
	e.errw.WriteString("uriscan: interrupted by " + signalName(sig) + "\n")
	e.errw.WriteString(e.finalLine)
	e.errw.Flush()
	os.Exit(exitSignal(int32(sig)))
}

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

func (e *env) flush() {
	if err := e.out.Flush(); err != nil && e.werr == nil {
		e.werr = err
	}
	e.errw.Flush()
}

// status returns the exit code for what has happened so far.
func (e *env) status() int {
	switch {
	case e.ioFail || e.werr != nil:
		return exitUsage
	case e.invalid && !e.allowInvalid:
		return exitInvalid
	}
	return exitOK
}

// eachRecord calls fn for every line of every file in order (standard
// input if there are none), then returns the exit status. A file that
// cannot be read is reported and skipped. Invalid lines are counted for the
// exit status; reporting them is fn's job. The loop stops early on an
// output error, a signal, or when fn sets halt.
func (e *env) eachRecord(files []string, fn func(name string, s *recordScanner)) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	for i, file := range files {
		if e.werr != nil || e.halt || e.stopped() {
			break
		}
		start := e.resumeAt()
		if i < start.File {
			continue
		}
		e.fileIdx = i
		in, err := e.open(file)
		name, r, closeFn := in.name, in.r, in.close
		if err != nil {
			e.inputError(openErrorMsg(err))
			if e.taker != nil {
				e.taker.endFile()
			}
			continue
		}
		s := &e.sc
		if i == start.File && start.Offset > 0 {
			// Read (a pipe may block) without holding mu.
			if err := in.skip(&flushReader{r: r, mu: &e.mu, stop: e.stopped}, start.Offset); err != nil {
				e.inputError(name + ": resuming at offset " + strconv.FormatInt(start.Offset, 10) + ": " + err.Error())
				closeFn()
				e.halt = true
				break
			}
			s.Reset(r)
			s.ls.StartAt(start.Offset, start.Line)
		} else {
			s.Reset(r)
		}
		for e.werr == nil && !e.halt && !e.stopped() && s.Scan() {
			if e.textLines && s.perr != nil {
				if _, long := s.ls.TooLong(); !long {
					s.perr = nil // text, not a URI: only a line over the limit is invalid
				}
			}
			fn(name, s)
			e.prog.add(s.Len()+1, 1)
			if s.perr != nil { // after fn, which may say otherwise (normalize at a Raw level)
				e.invalid = true
				if e.rep.invalid++; e.rep.max > 0 && e.rep.invalid >= e.rep.max {
					e.rep.stopped, e.halt = true, true
				}
			}
		}
		if err := s.Err(); err != nil && !errors.Is(err, errInterrupted) {
			e.inputError(lineio.ReadErrorMsg(name, err))
		}
		if e.taker != nil {
			e.taker.endFile()
		}
		if err := closeFn(); err != nil {
			e.inputError(name + ": " + err.Error())
		}
		s.Reset(nil) // drop the reference to the file
	}
	e.flush()
	if e.werr != nil {
		e.errw.WriteString("uriscan: writing output: " + e.werr.Error() + "\n")
	}
	return e.status()
}

// recordTaker is a command that takes the records of its lines in input
// order, and whose state that is (dedup: its Log, its seen-set, its
// batch). The input loops (eachRecord, the engine) resume where it says,
// give it each sink's records before the sink's output is written, and
// tell it of each input's end and of each input that could not be read.
type recordTaker interface {
	// resumeAt is where the input loops begin: inputs before File are
	// skipped, that one is read from Offset (Line its line number).
	resumeAt() inputPos
	// feed takes the records of the lines k holds.
	feed(k *sink)
	// decides reports whether decide is to decide each sink's records
	// before feed takes them (dedup's set in memory, with workers: the
	// workers decide the chunks in input order, see lineio.Decider; the
	// writer decides only the sinks of chunks that handed pieces over
	// or that no worker took, and the chunks waiting behind them).
	decides() bool
	decide(k *sink, input int)
	// endFile is called after the last line of each input, and for an
	// input that could not be opened; inputFailed for each input that
	// could not be read, with the message reported.
	endFile()
	inputFailed(msg string)
	// memHeld is how many bytes the taker holds that grow with the input
	// (the memory limit is raised by them); -1 if that is unknown.
	memHeld() int64
}

// resumeAt is where the input loops begin (the taker's: dedup's resume).
func (e *env) resumeAt() inputPos {
	if e.taker == nil {
		return inputPos{}
	}
	return e.taker.resumeAt()
}

// inputError reports an input that could not be read (exit 2).
func (e *env) inputError(msg string) {
	if e.rep.cmd != "" {
		msg = e.rep.cmd + ": " + msg // each message names the command
	}
	e.ioError(msg)
	if e.taker != nil {
		e.taker.inputFailed(msg)
	}
}

func (e *env) ioError(msg string) {
	e.ioFail = true
	e.errw.WriteString("uriscan: " + msg + "\n")
}

// echoMax is how many bytes of an input line human-readable output quotes.
const echoMax = 200

// appendEcho appends line quoted (Go syntax), cut to its first echoMax
// bytes and followed by "...(N bytes)" when it is longer; n is the line's
// length (a too-long line holds only its first bytes).
func appendEcho(b, line []byte, n int64, redact bool) []byte {
	// Redacted before it is cut, so that a password longer than the echo,
	// or in a line over the limit, shows none of itself.
	b = appendQuote(b, view(shownHead(line, echoMax, int64(len(line)) < n, redact)))
	if n <= echoMax && int64(len(line)) == n {
		return b
	}
	b = append(b, "...("...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, " bytes)"...)
}

// reportLine writes "NAME:LINE: offset N: REASON" for the current, invalid
// line to standard error.
func (e *env) reportLine(name string, s *recordScanner) {
	var b [256]byte
	e.errw.Write(e.rep.appendReport(b[:0], name, s))
}

// appendReport appends "NAME:LINE: offset N: REASON\n" for s's current,
// invalid line to b.
func appendReport(b []byte, name string, s *recordScanner) []byte {
	return (*reports)(nil).appendReport(b, name, s)
}
