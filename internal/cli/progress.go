package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// progress draws a progress bar on standard error while a command reads
// its input, when standard error is a terminal (golang.org/x/term): bytes
// read, lines, rate, and the ETA when the input's size is known (plain
// regular files). Nothing is drawn when standard error is a pipe or a
// file, or with --no-progress or --quiet. The input loops count into it;
// a ticker redraws it five times a second. Whatever else goes to standard
// error first clears the bar's line (see progressWriter), so messages are
// never mixed into it.
type progress struct {
	bytes, lines atomic.Int64
	mu           sync.Mutex // the bar and the terminal
	bar          *progressbar.ProgressBar
	drawn        bool
	what         string
	stop, done   chan struct{}
}

// progressEvery is how often the bar is redrawn.
const progressEvery = 200 * time.Millisecond

// isTerminal reports whether w is a terminal (a variable: tests).
var isTerminal = func(w *os.File) bool { return term.IsTerminal(int(w.Fd())) }

// startProgress starts the bar for command what over files, writing to
// tty, or returns nil when tty is not a terminal. errw is the command's
// standard error (empty at this point): it is made to go through the bar.
func (e *env) startProgress(what string, files []string, tty *os.File) *progress {
	if tty == nil || !isTerminal(tty) {
		return nil
	}
	total := inputSize(files)
	p := &progress{what: what, stop: make(chan struct{}), done: make(chan struct{})}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(tty),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetPredictTime(total > 0),
		progressbar.OptionSetDescription(what),
		progressbar.OptionThrottle(0),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionUseANSICodes(true),
		progressbar.OptionSetWidth(30),
		// No redraw goroutine of its own (it has one for a spinner, which
		// races with the library's state): the bar is drawn by run only,
		// under mu.
		progressbar.OptionSetSpinnerChangeInterval(0),
	)
	pw := &progressWriter{p: p, w: e.rawErr}
	e.errw.Reset(pw)
	e.rawErr = pw
	go p.run()
	return p
}

// inputSize is the bytes the files hold when all are plain regular
// files, or -1 (unknown: standard input, a pipe, compressed input).
func inputSize(files []string) int64 {
	if len(files) == 0 {
		return -1
	}
	var total int64
	for _, f := range files {
		fi, err := os.Stat(f)
		if f == "-" || err != nil || !fi.Mode().IsRegular() {
			return -1
		}
		head := make([]byte, 4)
		if r, err := os.Open(f); err == nil {
			n, _ := r.Read(head)
			r.Close()
			head = head[:n]
		}
		if bytes.HasPrefix(head, gzipMagic) || bytes.HasPrefix(head, zstdMagic) {
			return -1
		}
		total += fi.Size()
	}
	return total
}

func (p *progress) run() {
	defer close(p.done)
	t := time.NewTicker(progressEvery)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bar.Describe(p.what + " " + strconv.FormatInt(p.lines.Load(), 10) + " lines, " + strconv.FormatFloat(float64(p.bytes.Load())/1e6, 'f', 1, 64) + " MB")
	p.bar.Set64(p.bytes.Load())
	p.drawn = true
}

// add counts bytes and lines read.
func (p *progress) add(bytes, lines int64) {
	if p != nil {
		p.bytes.Add(bytes)
		p.lines.Add(lines)
	}
}

// finish stops the bar and clears its line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		p.bar.Clear()
		p.drawn = false
	}
}

// progressWriter is standard error while the bar is drawn: a write first
// clears the bar's line (the next tick draws it again below).
type progressWriter struct {
	p *progress
	w io.Writer
}

func (pw *progressWriter) Write(b []byte) (int, error) {
	pw.p.mu.Lock()
	defer pw.p.mu.Unlock()
	if pw.p.drawn {
		pw.p.bar.Clear()
		pw.p.drawn = false
	}
	return pw.w.Write(b)
}
