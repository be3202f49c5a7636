package cli

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progress draws a progress bar on standard error while a command reads
// its input, when standard error is a terminal (golang.org/x/term): bytes
// read, lines, rate, and the ETA when the input's size is known (plain
// regular files). Nothing is drawn when standard error is a pipe or a
// file, or with --no-progress or --quiet. The input loops count into it;
// a ticker redraws it five times a second. Whatever else goes to standard
// error first clears the bar's line (see progressWriter), so messages are
// never mixed into it. The bar is drawn here, not by a library: the one
// used before linked net/http (and so cgo's resolver, a dynamically linked
// binary) into every run, a millisecond of start-up.
type progress struct {
	bytes, lines atomic.Int64
	mu           sync.Mutex // the bar and the terminal
	bar          bar
	drawn        bool
	what         string
	stop, done   chan struct{}
}

// progressEvery is how often the bar is redrawn.
const progressEvery = 200 * time.Millisecond

// isTerminal reports whether w is a terminal.
func isTerminal(w *os.File) bool { return term.IsTerminal(int(w.Fd())) }

// startProgress starts the bar for command what over files, writing to
// tty, or returns nil when tty is not a terminal. errw is the command's
// standard error (empty at this point): it is made to go through the bar.
func (e *env) startProgress(what string, files []string, tty *os.File) *progress {
	if tty == nil || !isTerminal(tty) {
		return nil
	}
	// Standard input typed on the terminal: the bar would draw over what
	// is typed.
	if f, ok := e.stdin.(*os.File); ok && isTerminal(f) && readsStdin(files) {
		return nil
	}
	total := inputSize(files)
	p := &progress{what: what, stop: make(chan struct{}), done: make(chan struct{})}
	p.bar = bar{w: tty, total: total, start: time.Now()}
	if what == "extract" {
		p.bar.unit = "lines"
	}
	if w, _, err := term.GetSize(int(tty.Fd())); err == nil {
		p.bar.cols = w
	}
	pw := &progressWriter{p: p, w: e.rawErr}
	e.errw.Reset(pw)
	e.rawErr = pw
	go p.run()
	return p
}

// readsStdin reports whether the files (none: standard input) include
// standard input.
func readsStdin(files []string) bool {
	if len(files) == 0 {
		return true
	}
	for _, f := range files {
		if f == "-" {
			return true
		}
	}
	return false
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
	lines := p.lines.Load()
	p.bar.draw(p.what+" "+strconv.FormatInt(lines, 10)+" lines, "+strconv.FormatFloat(float64(p.bytes.Load())/1e6, 'f', 1, 64)+" MB", p.bytes.Load(), lines, time.Now())
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
		p.bar.clear()
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
		pw.p.bar.clear()
		pw.p.drawn = false
	}
	return pw.w.Write(b)
}

// bar is the progress bar's line on the terminal w:
//
//	validate 812345 lines, 61.2 MB  45% |#############                 | (30.6 MB/s) [2s:2s]
//
// the percentage, the bar and the time left only when the total is known.
// The rate is over the last draws (about two seconds). The line is cut to
// the terminal's width, so that it never wraps (a wrapped line is not
// cleared by clear).
type bar struct {
	w     io.Writer
	total int64 // the input's bytes, or -1
	cols  int   // the terminal's width, or 0
	start time.Time
	// unit is what a line is, for its rate: "URLs" (the default) or
	// "lines" (extract's lines are text).
	unit string
	// hist are the last draws' times and byte and line counts, for the
	// rates.
	hist [10]struct {
		at       time.Time
		n, lines int64
	}
	nhist int
	line  []byte
}

// barWidth is the bar's width in columns, between its "|"s.
const barWidth = 30

// draw writes the line for desc and n bytes read at now.
func (b *bar) draw(desc string, n, lines int64, now time.Time) {
	oldest := b.start
	var n0, l0 int64
	if b.nhist >= len(b.hist) {
		h := b.hist[b.nhist%len(b.hist)]
		oldest, n0, l0 = h.at, h.n, h.lines
	}
	h := &b.hist[b.nhist%len(b.hist)]
	h.at, h.n, h.lines = now, n, lines
	b.nhist++
	rate, lrate := 0.0, 0.0
	if d := now.Sub(oldest).Seconds(); d > 0 {
		rate, lrate = float64(n-n0)/d, float64(lines-l0)/d
	}
	l := append(b.line[:0], '\r')
	l = append(l, desc...)
	if b.total > 0 {
		pct := min(n, b.total) * 100 / b.total
		l = append(l, "  "...)
		l = append(l, strconv.FormatInt(pct, 10)...)
		l = append(l, "% |"...)
		done := int(min(n, b.total) * barWidth / b.total)
		for i := range barWidth {
			if i < done {
				l = append(l, '#')
			} else {
				l = append(l, ' ')
			}
		}
		l = append(l, '|')
	}
	l = append(l, " ("...)
	l = appendSI(l, lrate)
	if l[len(l)-1] != ' ' {
		l = append(l, ' ')
	}
	unit := b.unit
	if unit == "" {
		unit = "URLs"
	}
	l = append(l, unit...)
	l = append(l, "/s, "...)
	l = appendSI(l, rate)
	l = append(l, "B/s) ["...)
	l = append(l, now.Sub(b.start).Round(time.Second).String()...)
	if b.total > 0 && rate > 0 {
		left := time.Duration(float64(max(b.total-n, 0)) / rate * float64(time.Second))
		l = append(l, ':')
		l = append(l, left.Round(time.Second).String()...)
	}
	l = append(l, ']')
	if b.cols > 1 && len(l)-1 > b.cols-1 {
		l = l[:b.cols] // (ASCII but for desc's file names: cut at a byte)
	}
	l = append(l, "\x1b[K"...) // the rest of a longer line before
	b.line = l
	b.w.Write(l)
}

// clear clears the bar's line.
func (b *bar) clear() { b.w.Write([]byte("\r\x1b[K")) }

// appendSI appends v with an SI prefix and one decimal ("30.6 M"; "512 "
// under a thousand).
func appendSI(b []byte, v float64) []byte {
	const prefixes = " kMGTP"
	i := 0
	for v >= 1000 && i < len(prefixes)-1 {
		v /= 1000
		i++
	}
	if i == 0 {
		return append(strconv.AppendFloat(b, v, 'f', 0, 64), ' ')
	}
	return append(append(strconv.AppendFloat(b, v, 'f', 1, 64), ' '), prefixes[i])
}
