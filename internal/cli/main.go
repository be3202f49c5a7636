// Package cli is the uriscan command, which checks, splits and resolves
// URI references (RFC 3986), one per input line: cmd/uriscan runs it.
package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"

	"github.com/uriscan/uriscan"
)

// Main runs the command the process's arguments give, with the Stores
// this binary links (every field set: full.Stores), and returns its exit
// status.
//
// SIGINT and SIGTERM are handled (see env.interrupted).
func Main(s Stores) int {
	e := newEnv(os.Stdin, os.Stdout, os.Stderr)
	e.stores = s
	e.tty = os.Stderr
	e.process = true
	widenPipe(os.Stdout)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		for sig := range sigs {
			n := sig.(syscall.Signal)
			if !e.sig.CompareAndSwap(0, int32(n)) {
				os.Exit(exitSignal(int32(n))) // a second signal: now
			}
			go e.interrupted(n)
		}
	}()
	return e.run(os.Args[1:])
}

// A command is one subcommand. Adding a subcommand is one setup function
// and one entry in commands.
type command struct {
	name     string
	synopsis string // arguments after the command name, for the usage line
	summary  string // one line, for "uriscan help"
	doc      string // a paragraph, for "uriscan help NAME"
	example  string // one shell command line
	// setup defines the command's flags on fs and returns the function that
	// runs it on the positional arguments (the input files) once fs is
	// parsed: its error carries the exit status (see fail), nil is exitOK.
	setup func(fs *flagSet) func(e *env, files []string) error
	// takes says which shared flags the command has (see flagSet).
	takes takes
}

var commands = []*command{&splitCommand, &validateCommand, &resolveCommand, &normalizeCommand, &dedupCommand, &extractCommand, &cpuCommand}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

func (e *env) run(args []string) int {
	e.mu.Lock()
	defer func() {
		e.done = true
		e.mu.Unlock()
	}()
	code := e.fail(e.dispatch(args))
	e.prog.finish()
	if err := e.out.Flush(); err != nil && code != exitUsage {
		e.errw.WriteString("uriscan: writing output: " + err.Error() + "\n")
		code = exitUsage
	}
	if e.rep.stopped {
		e.errw.WriteString(e.rep.stoppedMsg())
	}
	if sig := e.sig.Load(); sig != 0 {
		e.errw.WriteString("uriscan: interrupted by " + signalName(syscall.Signal(sig)) + "\n")
		code = exitSignal(sig)
	}
	e.errw.WriteString(e.finalLine) // the summary, last (see writeSummary)
	e.errw.Flush()
	if e.stderr.failed.Load() && (code == exitOK || code == exitInvalid) {
		// Reports or the summary were lost: an I/O error (exit 1 says
		// only that some line was invalid), as for standard output.
		code = exitUsage
	}
	return code
}

// dispatch runs the command args give; run reports the error it returns
// (see fail).
func (e *env) dispatch(args []string) error {
	if len(args) == 0 {
		mainUsage(e.errw)
		return errReported
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		mainUsage(e.out)
		return nil
	case "--version", "-version", "version":
		e.out.WriteString(versionLine() + "\n")
		return nil
	case "help":
		return e.help(args[1:])
	case "completion":
		return e.completion(args[1:])
	case "man":
		return e.man(args[1:])
	default:
		c := lookup(name)
		if c == nil {
			if strings.HasPrefix(name, "-") {
				return usageErr(fmt.Sprintf("unknown flag %s (flags go after the command)", name), nil)
			}
			return usageErr(fmt.Sprintf("unknown command %q", name), nil)
		}
		e.cmd = c
		fs, runCmd := newFlagSet(c)
		files, err := parseInterspersed(fs.FlagSet, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(e.out, c)
			return nil
		}
		if err != nil {
			return usageErr(c.name+": "+flagError(err, fs.FlagSet, args[1:]), c)
		}
		e.rep.withFile, e.rep.cmd = len(files) > 1, c.name
		files, err = e.applyShared(c, &fs.shared, files)
		if err != nil {
			return err
		}
		return runCmd(e, files)
	}
}

// applyShared takes the shared flags' values (o: see flagSet) into e,
// once c's arguments are parsed; it returns the input files (--uri makes
// standard input of its URIs), or a usage error.
func (e *env) applyShared(c *command, o *sharedFlags, files []string) ([]string, error) {
	if o.maxLine != nil {
		if n := *o.maxLine; n < 1 || n > uriscan.MaxLength-2 {
			return nil, usageErr(fmt.Sprintf("%s: --max-line must be between 1 and %d, not %d", c.name, uriscan.MaxLength-2, n), c)
		}
		e.sc.ls.SetMaxLine(*o.maxLine)
	}
	if o.errors != nil {
		switch v := *o.errors; v {
		case "text", "jsonl":
			e.rep.jsonl = v == "jsonl"
		default:
			return nil, usageErr(c.name+": --errors must be text or jsonl, not "+strconv.Quote(v), c)
		}
		e.rep.quiet = *o.quiet
		if e.rep.max = *o.maxErrors; e.rep.max < 0 {
			return nil, usageErr(c.name+": --max-errors must be 0 (no limit) or more", c)
		}
		if e.allowInvalid = *o.allowInvalid; e.allowInvalid && e.rep.max > 0 {
			return nil, usageErr(c.name+": --allow-invalid and --max-errors contradict each other (one ignores invalid lines for the exit status, the other stops on them)", c)
		}
	}
	if o.grammar != nil {
		g, ok := uriscan.ParseGrammar(*o.grammar)
		if !ok {
			return nil, usageErr(c.name+": --grammar must be rfc3986 or rfc2396, not "+strconv.Quote(*o.grammar), c)
		}
		e.sc.grammar = g
	}
	if o.showPasswords != nil {
		e.rep.showPasswords = *o.showPasswords
	}
	if o.verifyInput != nil {
		e.verifyInput = *o.verifyInput
	}
	if o.uris != nil {
		if uris := *o.uris; len(uris) > 0 {
			if len(files) > 0 {
				return nil, usageErr(c.name+": give --uri or files, not both", c)
			}
			for _, u := range uris {
				if strings.ContainsAny(u, "\n") {
					return nil, usageErr(c.name+": --uri "+strconv.Quote(shownArg(u, e.rep.redacts()))+" holds a line end", c)
				}
			}
			e.stdin, e.stdinName, files = strings.NewReader(strings.Join(uris, "\n")+"\n"), "<uri>", []string{"-"}
		}
	}
	if o.workers != nil {
		switch n := *o.workers; {
		case n < 0:
			return nil, usageErr(fmt.Sprintf("%s: --workers must be 0 (the number of CPUs) or more, not %d", c.name, n), c)
		case n == 0:
			*o.workers = runtime.GOMAXPROCS(0)
		}
	}
	if o.noProgress != nil && !*o.noProgress && !e.rep.quiet {
		e.prog = e.startProgress(c.name, files, e.tty)
	}
	return files, nil
}

func (e *env) help(args []string) error {
	switch {
	case len(args) == 0:
		mainUsage(e.out)
		return nil
	case len(args) > 1:
		return usageErr("help takes at most one command name", nil)
	case args[0] == "help":
		mainUsage(e.out)
		return nil
	}
	if t, ok := helpTopics[args[0]]; ok {
		e.out.WriteString(t)
		return nil
	}
	c := lookup(args[0])
	if c == nil {
		return usageErr(fmt.Sprintf("help: unknown command or topic %q (topics: %s)", args[0], strings.Join(topicNames(), ", ")), nil)
	}
	commandUsage(e.out, c)
	return nil
}

// versionLine says which uriscan this is: the module version (or the VCS
// revision of a build from a clone), the Go version and the kernel.
func versionLine() string {
	v, rev, dirty := "(devel)", "", ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
	}
	if rev != "" {
		v += " " + rev[:min(12, len(rev))] + dirty
	}
	return "uriscan " + v + " " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + " kernel " + uriscan.Kernel()
}

func mainUsage(w *bufio.Writer) {
	w.WriteString(`Usage: uriscan COMMAND [FLAGS] [FILE...]

uriscan reads URI references (RFC 3986), one per line, from each FILE in
turn: "-" or no FILE at all is standard input; gzip, zstd and bzip2 input,
told by its magic number whatever its name, is decompressed (xz is refused:
pipe it through xz -dc), and a UTF-8
byte-order mark at its start is skipped (and said). Lines end in "\n" or
"\r\n". A line longer than --max-line (1 MiB by default) is invalid,
reported with its length and read past without being held in memory; a
last line cut short by a read error is reported and not taken.

The line commands and extract run on --workers goroutines (default: the
number of CPUs) with their output in input order, the same whatever the
number. On a terminal a progress bar is
drawn on standard error (--no-progress). Invalid lines are reported on
standard error (validate's are its output): --quiet says nothing, --errors
jsonl writes JSON records, --max-errors N stops after the N-th. Exit status:
0 when every line was valid, 1 when some line was invalid (0 with
--allow-invalid), 2 for a usage or I/O error.

uriscan is one binary with every store but Pebble, whose dependencies
would slow every run's start-up: from a clone, make install-pebble (go
install -tags pebble ./cmd/uriscan) builds it with the pebble:DIR store.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	w.WriteString("  help       show help for a command or topic (uriscan help COMMAND, uriscan help get)\n  version    say which uriscan this is (also --version)\n  completion write the completion script for bash or zsh (eval \"$(uriscan completion bash)\")\n  man        write the manual page, uriscan(1), made from this help (uriscan man > uriscan.1)\n\nExamples:\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  %s\n", c.example)
	}
	w.WriteString(`
Exit status: 0 if every line is valid, 1 if some line is invalid, 2 on a
usage or I/O error, 130 / 143 when stopped by SIGINT / SIGTERM.
`)
}

func commandUsage(w *bufio.Writer, c *command) {
	fmt.Fprintf(w, "Usage: uriscan %s %s\n\n%s\n\n", c.name, c.synopsis, c.doc)
	if c.name != "cpu" { // the commands that read inputs
		w.WriteString("FILEs: \"-\" or none is standard input; gzip, zstd and bzip2 are decompressed, xz refused (told by their magic numbers); a UTF-8 byte-order mark is skipped.\n\n")
	}
	w.WriteString("Flags:\n")
	for _, f := range commandFlags(c) {
		fmt.Fprintf(w, "  %s\n    \t%s\n", flagSynopsis(f.flag, f.short), flagUsage(f.flag))
	}
	fmt.Fprintf(w, "  -h, --help\n    \tshow this help\n\nExample:\n  %s\n\nExit status: 0 if every line is valid, 1 if some line is invalid, 2 on a\nusage or I/O error, 130 / 143 when stopped by SIGINT / SIGTERM.\n", c.example)
}
