package main

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"
)

const writeBufSize = 64 << 10

// stdinName names standard input in messages.
const stdinName = "<stdin>"

// env is what a command runs with: buffered output, the input loop, and
// the exit status so far.
type env struct {
	stdin   io.Reader
	cmd     *command      // the command being run
	out     *bufio.Writer // standard output
	errw    *bufio.Writer // standard error
	sc      recordScanner
	ioFail  bool  // an input could not be read: exit 2
	invalid bool  // some line was invalid: exit 1
	werr    error // first error writing output; stops the input loop
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	e := &env{
		stdin: stdin,
		out:   bufio.NewWriterSize(stdout, writeBufSize),
		errw:  bufio.NewWriterSize(stderr, writeBufSize),
	}
	// Flush before blocking on input, so that "tail -f log | uriscan
	// validate" reports as it goes; on files this is once per read buffer.
	e.sc.beforeRead = e.flush
	return e
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
	case e.invalid:
		return exitInvalid
	}
	return exitOK
}

// eachRecord calls fn for every line of every file in order (standard
// input if there are none), then returns the exit status. A file that
// cannot be read is reported and skipped. Invalid lines are counted for the
// exit status; reporting them is fn's job.
func (e *env) eachRecord(files []string, fn func(name string, s *recordScanner)) int {
	if len(files) == 0 {
		files = []string{"-"}
	}
	for _, file := range files {
		if e.werr != nil {
			break
		}
		name, r, closeFn, err := e.open(file)
		if err != nil {
			e.ioError(err.Error())
			continue
		}
		s := &e.sc
		s.Reset(r)
		for e.werr == nil && s.Scan() {
			if s.perr != nil {
				e.invalid = true
			}
			fn(name, s)
		}
		if err := s.Err(); err != nil {
			e.ioError(name + ": " + err.Error())
		}
		if err := closeFn(); err != nil {
			e.ioError(name + ": " + err.Error())
		}
		s.Reset(nil) // drop the reference to the file
	}
	e.flush()
	if e.werr != nil {
		e.errw.WriteString("uriscan: writing output: " + e.werr.Error() + "\n")
	}
	return e.status()
}

func (e *env) ioError(msg string) {
	e.ioFail = true
	e.errw.WriteString("uriscan: " + msg + "\n")
}

// open opens one input; "-" is standard input and a name ending in ".gz"
// is decompressed. The returned name is for messages.
func (e *env) open(file string) (name string, r io.Reader, closeFn func() error, err error) {
	if file == "-" {
		return stdinName, e.stdin, func() error { return nil }, nil
	}
	f, err := os.Open(file)
	if err != nil {
		return file, nil, nil, err // *PathError names the file
	}
	if !strings.HasSuffix(file, ".gz") {
		return file, f, f.Close, nil
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		f.Close()
		return file, nil, nil, &os.PathError{Op: "gunzip", Path: file, Err: err}
	}
	return file, zr, func() error {
		zerr := zr.Close()
		if ferr := f.Close(); zerr == nil {
			zerr = ferr
		}
		return zerr
	}, nil
}

// reportLine writes "NAME:LINE: offset N: REASON" for the current, invalid
// line to standard error.
func (e *env) reportLine(name string, s *recordScanner) {
	w := e.errw
	w.WriteString(name)
	w.WriteByte(':')
	w.WriteString(strconv.Itoa(s.Line()))
	w.WriteString(": offset ")
	w.WriteString(strconv.Itoa(s.perr.Offset))
	w.WriteString(": ")
	w.WriteString(s.perr.Reason())
	w.WriteByte('\n')
}
