package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestFail holds the mapping from a command's error to its exit status
// and what is written on standard error for it.
func TestFail(t *testing.T) {
	splitUsage := "usage: uriscan split " + splitCommand.synopsis + "\nRun 'uriscan help split' for details.\n"
	for _, tc := range []struct {
		what   string
		err    error
		code   int
		stderr string
	}{
		{"nil", nil, exitOK, ""},
		{"usage error", usageErr("split: --header goes with --format tsv", &splitCommand), exitUsage,
			"uriscan: split: --header goes with --format tsv\n" + splitUsage},
		{"usage error of no command", usageErr(`unknown command "x"`, nil), exitUsage,
			"uriscan: unknown command \"x\"\nRun 'uriscan help' for usage.\n"},
		{"plain error", errors.New("dedup: no such store"), exitUsage, "uriscan: dedup: no such store\n"},
		{"I/O error", &exitError{code: exitUsage, msg: "dedup: checkpoint: short read"}, exitUsage,
			"uriscan: dedup: checkpoint: short read\n"},
		{"invalid", errInvalid, exitInvalid, ""},
		{"reported", errReported, exitUsage, ""},
		{"invalid, wrapped", fmt.Errorf("split: %w", errInvalid), exitInvalid, ""},
		{"exitError, wrapped", fmt.Errorf("extract: %w", &exitError{code: exitInvalid, msg: "a line"}), exitInvalid,
			"uriscan: extract: a line\n"},
		{"usage error, wrapped", fmt.Errorf("%w", usageErr("split: --format must be jsonl or tsv", &splitCommand)), exitUsage,
			"uriscan: split: --format must be jsonl or tsv\n" + splitUsage},
		{"signal status", statusErr(130), 130, ""},
	} {
		var stderr bytes.Buffer
		e := newTestEnv(strings.NewReader(""), new(bytes.Buffer), &stderr)
		code := e.fail(tc.err)
		e.errw.Flush()
		if code != tc.code || stderr.String() != tc.stderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tc.what, code, stderr.String(), tc.code, tc.stderr)
		}
	}
	for code, want := range map[int]error{exitOK: nil, exitInvalid: errInvalid, exitUsage: errReported} {
		if err := statusErr(code); err != want {
			t.Errorf("statusErr(%d) = %v, want %v", code, err, want)
		}
	}
}

// TestExitStatusRuns holds what whole runs end with: exit 1 adds nothing
// to standard error, a usage error is followed by its usage line, an
// error that is no usage error by nothing.
func TestExitStatusRuns(t *testing.T) {
	for _, tc := range []struct {
		stdin  string
		args   []string
		code   int
		stderr string
	}{
		{"http://a/\n", []string{"validate"}, exitOK, ""},
		{"http://a b\n", []string{"validate", "--quiet"}, exitInvalid, ""},
		{"http://a b\n", []string{"split", "--quiet"}, exitInvalid, ""},
		{"http://a b\n", []string{"validate", "--quiet", "--allow-invalid"}, exitOK, ""},
		{"", []string{"cpu", "x"}, exitUsage, "uriscan: cpu takes no arguments\n"},
		{"", []string{"split", "--format", "x"}, exitUsage,
			"uriscan: split: --format must be jsonl or tsv, not \"x\"\nusage: uriscan split " + splitCommand.synopsis + "\nRun 'uriscan help split' for details.\n"},
		{"", []string{"nosuch"}, exitUsage, "uriscan: unknown command \"nosuch\"\nRun 'uriscan help' for usage.\n"},
	} {
		code, _, stderr := cli(t, tc.stdin, tc.args...)
		if code != tc.code || stderr != tc.stderr {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tc.args, code, stderr, tc.code, tc.stderr)
		}
	}
}
