// Package cli is the uriscan command, which checks, splits and resolves
// URI references (RFC 3986), one per input line: cmd/uriscan runs it.
package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
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
func Main(s Stores) int {
	linked = s
	return mainCode()
}

// mainCode runs the command the process's arguments give, with SIGINT and
// SIGTERM handled (see env.interrupted), and returns the exit status.
func mainCode() int {
	e := newEnv(os.Stdin, os.Stdout, os.Stderr)
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

// Exit codes.
const (
	exitOK      = 0 // every input line was valid
	exitInvalid = 1 // some input line was invalid
	exitUsage   = 2 // usage or I/O error
)

// A command is one subcommand. Adding a subcommand is one setup function
// and one entry in commands.
type command struct {
	name     string
	synopsis string // arguments after the command name, for the usage line
	summary  string // one line, for "uriscan help"
	doc      string // a paragraph, for "uriscan help NAME"
	example  string // one shell command line
	// setup defines the command's flags on fs and returns the function that
	// runs it on the positional arguments (the input files) once fs is parsed.
	setup func(fs *flag.FlagSet) func(e *env, files []string) int
}

var commands = []*command{
	{
		name:     "split",
		synopsis: "[--format jsonl|tsv [--header]] [--flags] [--domains [--private-suffixes]] [--get TEMPLATE] [FILE...]",
		summary:  "write each line's components as one JSON object (or TSV row) per line",
		doc: `Writes one JSON object per input line, in input order. A valid line gives
"valid":true and its components: null for an undefined component, "" for a
defined empty one, each exactly as written (nothing is decoded). An invalid
line gives "valid":false and "error":{"offset":N,"reason":"..."}, and its
position and reason also go to standard error. A line that is not valid
UTF-8 is written as "input_base64" instead of "input".

--format tsv writes the same record as one tab-separated row per line, in
PostgreSQL's COPY text format: the columns are [file] line input valid scheme
userinfo host host_type port path query fragment error_offset error_reason,
and with --flags warnings (comma-separated) and ipv4. \N is an undefined
component, an empty field a defined empty one; in a field, backslash, tab,
newline and carriage return are written \\, \t, \n and \r, other control
bytes and bytes that are not UTF-8 \xHH (only an invalid line's input can
hold them; PostgreSQL's COPY refuses a NUL or such bytes in a text column).
--header writes the column names first.

--domains adds the host split at its public suffix (Public Suffix List,
ICANN section unless --private-suffixes): "etld", "rdn" (the registrable
domain) and "subdomain", all null for a host with no registrable domain
(an IP address, a single label, a public suffix itself).

--get TEMPLATE writes the template instead, filled from each valid line
(trurl's syntax: uriscan help get); an invalid line gives an empty line.`,
		example: `printf 'http://h?\nhttp://a b\n' | uriscan split`,
		setup:   setupSplit,
	},
	{
		name:     "validate",
		synopsis: "[FILE...]",
		summary:  "print the invalid lines with line number, offset and reason",
		doc: `Prints nothing for a valid line; for an invalid one prints
FILE:LINE: offset N: REASON: "INPUT" on standard output (these reports are
validate's output, where the other commands write theirs on standard
error). --quiet prints nothing: the exit status says whether every line is
valid, as grep -q. --errors jsonl prints one JSON record per invalid line,
the other commands' report records.`,
		example: `uriscan validate urls.txt.gz`,
		setup:   setupValidate,
	},
	{
		name:     "resolve",
		synopsis: "--base URI [--non-strict] [FILE...]",
		summary:  "resolve each reference against a base URI (RFC 3986 §5.2)",
		doc: `Writes each reference resolved against the base URI (strict RFC 3986
§5.2), one output line per input line. An invalid line gives an empty output
line, and its position and reason go to standard error.`,
		example: `printf '../g\n?y\n#s\n' | uriscan resolve --base 'http://a/b/c/d;p?q'`,
		setup:   setupResolve,
	},
	{
		name:     "normalize",
		synopsis: "[--level syntax|scheme|crawler|shape|safebrowsing|w3lib] [--repair] [--format text|jsonl | --get TEMPLATE] [--key-file F] [FILE...]",
		summary:  "write each line's RFC 3986 §6 normal form",
		doc: `Writes each line's normal form, one output line per input line: syntax
level (§6.2.2: case, percent-encodings, dot segments), scheme level (also
§6.2.3: default and empty ports, empty http(s) path), or crawler level (also
heuristics that are not RFC equivalences: drop fragment, strip session and
tracking parameters, sort the query, drop an empty query, collapse slashes,
strip www., drop index pages), or shape level (crawler, then ids in the
path written :int, :uuid, :date or :hex and the query reduced to its sorted
keys, so that "similar" URLs are one: dedup --level shape keeps one of
each). --repair percent-encodes what the strict
grammar rejects in an invalid line, as browsers do, and reports it on
standard error; the line still counts as invalid. With --format jsonl each
line is {"line":N,"input":...,"valid":true,"normalized":...,"hash":HEX}, the hash being the
keyed HighwayHash-128 of the normal form (random key unless --key-file). An
invalid line gives an empty line (its JSON error object with jsonl), and its
position and reason go to standard error.`,
		example: `printf 'HTTP://Example.COM:80/a/./b/%%7e\n' | uriscan normalize`,
		setup:   setupNormalize,
	},
	{
		name:     "dedup",
		synopsis: "[--store memory|disk:DIR|pebble:DIR|redis://...] [--key-file F] [--output FILE | --checkpoint F --resume] [--level L] [--extract [extract's options: --log ..., --schemes ..., --base URI]] [--scope rdn=LIST] [--get TEMPLATE] [--batch N] [--workers N] [FILE...]",
		summary:  "write the first line of each equivalence class, in input order",
		doc: `Writes each line whose normal form (--level, as for normalize) has not
been seen before, in input order, and a summary on standard error: lines,
blank, invalid, unique, duplicates. Equivalence is decided on the keyed
128-bit HighwayHash of the normal form. Blank lines are skipped (counted);
invalid ones are reported on standard error and counted, never written.

The seen-set lives in memory (default), on local disk (disk:DIR, survives
restarts: a log of the keys, synced per batch, with an index in memory of
10-21 bytes a key; pebble:DIR keeps a Pebble store instead, slower but for
sets larger than memory, in a uriscan built with -tags pebble, which also
opens an earlier version's Pebble set under disk:DIR; without it both are
refused) or in Redis / Valkey shared by many machines: redis://[USER:PASS@]
HOST[:PORT][/DB] (rediss:// for TLS; query options as go-redis's ParseURL,
plus prefix=P), several HOST:PORT separated by commas or redis+cluster:// for
a Redis Cluster. A disk or Redis store needs --key-file, records the key's
fingerprint and the level on first use, and refuses a run with others.

Nothing is lost under kill -9: each batch of lines is checked against the
store, its new lines written and flushed (synced with --output), the
progress recorded, and only then are its keys added. With --output FILE the
new lines are written exactly once: progress goes to FILE.checkpoint and a
rerun of the same command resumes (the file is cut back to the last
checkpoint and the input is read from there). To standard output they are
written at least once: a kill may repeat the last batch (and cut its last
line short), never lose one; --checkpoint F --resume continues from where
it stopped. Writers sharing a Redis store never lose a URI, but two that
meet the same new one at the same moment may both write it. With --extract the
records are the URIs found in each line, not the lines, as extract finds
them with the same options (--schemes, --any-scheme, --min-scheme, --log
combined|jsonl|columns, --field, --base, --host-field, --columns,
--delimiter); a log line of another shape is invalid. A store or
output error stops the run with the position decided up to. SIGINT and SIGTERM finish the batch, print the summary and exit
130 / 143. With --workers N (default: the number of CPUs) N goroutines
parse, normalize and hash the lines while one decides them in input order
(a memory store in N shards); the output, the reports and the summary are
the same whatever N.`,
		example: `uriscan dedup --store disk:/var/lib/crawl/seen --key-file key.hex --output new.txt frontier.txt`,
		setup:   setupDedup,
	},
	{
		name:     "extract",
		synopsis: "[--format text|jsonl|tsv | --get TEMPLATE] [--log combined [--base URI] | --log jsonl --field PATH [--base URI [--host-field PATH]] | --log columns --columns LIST [--delimiter C]] [--schemes LIST | --any-scheme] [--rejects] [FILE...]",
		summary:  "write the URIs found in logs and free text, in input order",
		doc: `Finds absolute URIs in any text (logs, mail, pages) and writes each one's
bytes on a line of its own, in input order (so "uriscan extract log | sort
-u" works); --format jsonl writes {"line","offset","byte_offset","uri",
"valid","scheme","host"} and tsv the line, offset and URI ("offset" counts
in the line, "byte_offset" in the input; "file" comes first when the run
reads several inputs: docs/output.md). The classification
kernel finds the candidate colons a block at a time; each candidate is
delimited as RFC 3986 Appendix C recommends (whitespace, quotes, <...>,
<URL:...>), loses trailing sentence punctuation (. , ; : ! ? ') and any
unbalanced closing ')' or ']' (Markdown [t](http://a/b) gives http://a/b),
and is then parsed strictly, cut at its first invalid byte if it must be.
Schemes: http and https unless told otherwise. The input is read as a
stream; a URI across two reads is found once.

--log combined reads Common and Combined Log Format lines (Apache, nginx;
their escapes decoded) and writes the request target (origin-form
resolved against --base when given), the referer and the URIs in the
user agent, each with its field in jsonl and tsv; --log jsonl --field PATH
searches the strings at dotted paths of JSON Lines; with --base it writes a
field that is an origin-form request target as a whole ("/a?b=1", Caddy's,
Traefik's, Envoy's request.uri) resolved against --base, with the host of
each line's --host-field PATH ("request.host") when given; --log columns --columns
LIST searches the columns of lines split at each --delimiter byte (a tab by
default), numbered from 1 as cut -f takes them, each match's field "$N"
(a line without the delimiter is column 1 alone; cut passes it whole).
With combined or jsonl, a line of another shape is reported (exit 1).
--summary FILE writes the counts as JSON.`,
		example: `uriscan extract --log combined --base https://example.org/ --format jsonl access.log.gz
  uriscan extract --log columns --columns 3,7 --format tsv export.tsv`,
		setup: setupExtract,
	},
	{
		name:     "cpu",
		synopsis: "",
		summary:  "report the CPU and the classification kernel in use",
		doc: `Prints the CPU (brand, family, cores, cache sizes), the instruction set
extensions uriscan can use, and the kernel it chose: avx512, avx2, neon or
generic. GODEBUG=cpu.avx2=off or cpu.avx512f=off turns kernels off; the
purego build tag builds without assembly.`,
		example: `GODEBUG=cpu.avx512f=off uriscan cpu`,
		setup:   setupCPU,
	},
}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program; main only binds it to the process.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return newEnv(stdin, stdout, stderr).run(args)
}

func (e *env) run(args []string) int {
	e.mu.Lock()
	defer func() {
		e.done = true
		e.mu.Unlock()
	}()
	code := e.dispatch(args)
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

func (e *env) dispatch(args []string) int {
	if len(args) == 0 {
		mainUsage(e.errw)
		return exitUsage
	}
	switch name := args[0]; name {
	case "-h", "-help", "--help":
		mainUsage(e.out)
		return exitOK
	case "--version", "-version", "version":
		e.out.WriteString(versionLine() + "\n")
		return exitOK
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
				return e.usageError(fmt.Sprintf("unknown flag %s (flags go after the command)", name), nil)
			}
			return e.usageError(fmt.Sprintf("unknown command %q", name), nil)
		}
		e.cmd = c
		fs, runCmd := newFlagSet(c)
		files, err := parseInterspersed(fs, args[1:])
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(e.out, c)
			return exitOK
		}
		if err != nil {
			return e.usageError(c.name+": "+flagError(err, fs, args[1:]), c)
		}
		e.rep.withFile, e.rep.cmd = len(files) > 1, c.name
		if f := fs.Lookup("max-line"); f != nil {
			n := f.Value.(flag.Getter).Get().(int)
			if n < 1 || n > uriscan.MaxLength-2 {
				return e.usageError(fmt.Sprintf("%s: --max-line must be between 1 and %d, not %d", c.name, uriscan.MaxLength-2, n), c)
			}
			e.sc.ls.SetMaxLine(n)
		}
		if f := fs.Lookup("errors"); f != nil {
			switch v := f.Value.String(); v {
			case "text", "jsonl":
				e.rep.jsonl = v == "jsonl"
			default:
				return e.usageError(c.name+": --errors must be text or jsonl, not "+strconv.Quote(v), c)
			}
			e.rep.quiet = fs.Lookup("quiet").Value.(flag.Getter).Get().(bool)
			if e.rep.max = fs.Lookup("max-errors").Value.(flag.Getter).Get().(int64); e.rep.max < 0 {
				return e.usageError(c.name+": --max-errors must be 0 (no limit) or more", c)
			}
			if e.allowInvalid = fs.Lookup("allow-invalid").Value.(flag.Getter).Get().(bool); e.allowInvalid && e.rep.max > 0 {
				return e.usageError(c.name+": --allow-invalid and --max-errors contradict each other (one ignores invalid lines for the exit status, the other stops on them)", c)
			}
		}
		if f := fs.Lookup("grammar"); f != nil {
			g, ok := uriscan.ParseGrammar(f.Value.String())
			if !ok {
				return e.usageError(c.name+": --grammar must be rfc3986 or rfc2396, not "+strconv.Quote(f.Value.String()), c)
			}
			e.sc.grammar = g
		}
		if f := fs.Lookup("show-passwords"); f != nil {
			e.rep.showPasswords = f.Value.(flag.Getter).Get().(bool)
		}
		if f := fs.Lookup("verify-input"); f != nil { // (dedup's default is true: see setupDedup)
			e.verifyInput = f.Value.(flag.Getter).Get().(bool)
		}
		if f := fs.Lookup("uri"); f != nil {
			if uris := *f.Value.(*stringsFlag); len(uris) > 0 {
				if len(files) > 0 {
					return e.usageError(c.name+": give --uri or files, not both", c)
				}
				for _, u := range uris {
					if strings.ContainsAny(u, "\n") {
						return e.usageError(c.name+": --uri "+strconv.Quote(shownArg(u, e.rep.redacts()))+" holds a line end", c)
					}
				}
				e.stdin, e.stdinName, files = strings.NewReader(strings.Join(uris, "\n")+"\n"), "<uri>", []string{"-"}
			}
		}
		if f := fs.Lookup("workers"); f != nil {
			switch n := f.Value.(flag.Getter).Get().(int); {
			case n < 0:
				return e.usageError(fmt.Sprintf("%s: --workers must be 0 (the number of CPUs) or more, not %d", c.name, n), c)
			case n == 0:
				f.Value.Set(strconv.Itoa(runtime.GOMAXPROCS(0)))
			}
		}
		if f := fs.Lookup("no-progress"); f != nil && !f.Value.(flag.Getter).Get().(bool) && !e.rep.quiet {
			e.prog = e.startProgress(c.name, files, e.tty)
		}
		return runCmd(e, files)
	}
}

func (e *env) help(args []string) int {
	switch {
	case len(args) == 0:
		mainUsage(e.out)
		return exitOK
	case len(args) > 1:
		return e.usageError("help takes at most one command name", nil)
	case args[0] == "help":
		mainUsage(e.out)
		return exitOK
	}
	if t, ok := helpTopics[args[0]]; ok {
		e.out.WriteString(t)
		return exitOK
	}
	c := lookup(args[0])
	if c == nil {
		return e.usageError(fmt.Sprintf("help: unknown command or topic %q (topics: %s)", args[0], strings.Join(topicNames(), ", ")), nil)
	}
	commandUsage(e.out, c)
	return exitOK
}

// usageError reports a usage error and returns exitUsage; c is the command
// it concerns, or nil.
func (e *env) usageError(msg string, c *command) int {
	e.errw.WriteString("uriscan: " + msg + "\n")
	if c != nil {
		fmt.Fprintf(e.errw, "usage: uriscan %s %s\nRun 'uriscan help %s' for details.\n", c.name, c.synopsis, c.name)
	} else {
		e.errw.WriteString("Run 'uriscan help' for usage.\n")
	}
	return exitUsage
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
number; a plain file is mapped, not read. On a terminal a progress bar is
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
