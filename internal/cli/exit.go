package cli

import (
	"errors"
	"fmt"
	"strconv"
)

// Exit codes.
const (
	exitOK      = 0 // every input line was valid
	exitInvalid = 1 // some input line was invalid
	exitUsage   = 2 // usage or I/O error
)

// exitError is an error that ends a command with the exit status it
// carries. Its message is reported by fail, followed, for a usage error,
// by the usage line of its command; one with no message is reported
// already (or, exit 1, needs no words), and nothing is printed for it.
type exitError struct {
	code  int
	msg   string   // the message, after "uriscan: "
	usage bool     // a usage error
	cmd   *command // the command a usage error concerns, or nil
}

func (x *exitError) Error() string {
	if x.msg == "" {
		return "exit status " + strconv.Itoa(x.code)
	}
	return x.msg
}

// errInvalid ends a run in which some input line was invalid (exit 1):
// the lines were reported as they were read.
var errInvalid error = &exitError{code: exitInvalid}

// errReported ends a run with an I/O error (exit 2) already reported
// where it happened: an input that could not be read, output that could
// not be written.
var errReported error = &exitError{code: exitUsage}

// usageErr is a usage error (exit 2) about command c (nil: none).
func usageErr(msg string, c *command) error {
	return &exitError{code: exitUsage, msg: msg, usage: true, cmd: c}
}

// statusErr is the error for the exit status the input loops return
// (see env.status), whose messages are written as they go: nil for
// exitOK.
func statusErr(code int) error {
	switch code {
	case exitOK:
		return nil
	case exitInvalid:
		return errInvalid
	case exitUsage:
		return errReported
	}
	return &exitError{code: code}
}

// fail reports err on standard error and returns its exit status: exitOK
// for nil, the code of the exitError err wraps, or exitUsage for an error
// that carries none (an I/O error). A wrapped exitError's message is
// err's, the wrapping included.
func (e *env) fail(err error) int {
	if err == nil {
		return exitOK
	}
	var x *exitError
	if !errors.As(err, &x) {
		x = &exitError{code: exitUsage, msg: err.Error()}
	}
	if x.msg == "" {
		return x.code
	}
	e.errw.WriteString("uriscan: " + err.Error() + "\n")
	if x.usage {
		if c := x.cmd; c != nil {
			fmt.Fprintf(e.errw, "usage: uriscan %s %s\nRun 'uriscan help %s' for details.\n", c.name, c.synopsis, c.name)
		} else {
			e.errw.WriteString("Run 'uriscan help' for usage.\n")
		}
	}
	return x.code
}
