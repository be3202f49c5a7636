package cli

import (
	"flag"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/uriscan/uriscan"
)

// takes says which of the flags several commands share a command has
// (command.takes): newFlagSet defines them, dispatch reads them.
type takes uint8

const (
	// takesLines: --max-line and the report flags (--quiet, --errors,
	// --max-errors, --allow-invalid, --no-progress): a command that reads
	// lines.
	takesLines     takes = 1 << iota
	takesPasswords       // --show-passwords
	takesGrammar         // --grammar
	takesURI             // --uri (-u): URIs given as arguments
	takesVerify          // --verify-input, off by default (dedup defines its own, on)
)

// flagSet is a command's flags: the flag.FlagSet its setup defines its own
// on, and the shared ones as typed values (nil where the command has no
// such flag), which dispatch reads once the arguments are parsed.
type flagSet struct {
	*flag.FlagSet
	shared sharedFlags
}

// sharedFlags are the values of the flags several commands share.
type sharedFlags struct {
	maxLine       *int
	quiet         *bool
	errors        *string
	maxErrors     *int64
	allowInvalid  *bool
	noProgress    *bool
	showPasswords *bool
	grammar       *string
	uris          *stringsFlag
	verifyInput   *bool
	workers       *int
}

// newFlagSet defines c's flags: the shared ones c.takes, then c's own (its
// setup, which returns the function that runs it).
func newFlagSet(c *command) (*flagSet, func(*env, []string) error) {
	fs := &flagSet{FlagSet: flag.NewFlagSet("uriscan "+c.name, flag.ContinueOnError)}
	fs.SetOutput(io.Discard) // errors and help are printed by dispatch
	fs.Usage = func() {}
	o := &fs.shared
	if c.takes&takesLines != 0 {
		o.maxLine = fs.Int("max-line", uriscan.DefaultMaxLine, "the longest line taken, in `bytes`; a longer one is invalid (reported with its length) and read past without being held in memory")
		fs.addReportFlags()
	}
	if c.takes&takesPasswords != 0 {
		o.showPasswords = fs.Bool("show-passwords", false, "write passwords in userinfo as they are; by default every output and report shows \"user:"+uriscan.Redacted+"@\" (RFC 3986 §7.5)")
	}
	if c.takes&takesGrammar != 0 {
		o.grammar = fs.String("grammar", "rfc3986", "`rfc3986`, or rfc2396: RFC 2396 with RFC 2732's IPv6 literals, the grammar java.net.URI follows (docs/rfc2396.md lists the differences)")
	}
	if c.takes&takesURI != 0 {
		o.uris = new(stringsFlag)
		fs.Var(o.uris, "uri", "a `URI` to read, as if it were an input line, instead of the files; repeatable")
		fs.Var(o.uris, "u", "short for --uri")
	}
	if c.takes&takesVerify != 0 {
		o.verifyInput = fs.Bool("verify-input", false, "read each gzip, zstd or bzip2 input to its end first (every member's CRC-32 and length, every frame's and block's checksum) and take none of its lines if it is corrupt or cut short (exit 2); a compressed stream on standard input is copied to a temporary file in $TMPDIR for it. Without it the lines before the damage are written, then the error")
	}
	return fs, c.setup(fs)
}

// given reports whether the flag name was given on the command line (not
// left at its default): for the messages that name flags that contradict
// each other.
func (fs *flagSet) given(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// addReportFlags defines --quiet, --errors, --max-errors, --allow-invalid
// and --no-progress.
func (fs *flagSet) addReportFlags() {
	o := &fs.shared
	o.quiet = fs.Bool("quiet", false, "do not report invalid lines on standard error (the exit status still says; I/O errors are still reported)")
	fs.BoolVar(o.quiet, "q", false, "short for --quiet")
	o.errors = fs.String("errors", "text", "how invalid lines are reported on standard error: `text` (FILE:LINE: offset N: REASON) or jsonl ({\"line\",\"offset\",\"reason\",\"input\"}, \"file\" first when the run reads several inputs)")
	o.noProgress = fs.Bool("no-progress", false, "draw no progress bar (one is drawn on standard error when it is a terminal)")
	o.allowInvalid = fs.Bool("allow-invalid", false, "invalid lines are still reported, but do not make the exit status 1 (for pipelines under set -o pipefail where invalid lines are expected); not with --max-errors")
	o.maxErrors = fs.Int64("max-errors", 0, "stop after `N` invalid lines, with exit status 1 (0: never); the output stops right after the N-th")
}

// addWorkers defines --workers; more is added to its help. Dispatch makes
// 0 the number of CPUs.
func (fs *flagSet) addWorkers(more string) *int {
	fs.shared.workers = fs.Int("workers", runtime.GOMAXPROCS(0), "how many `goroutines` handle the input (0: the number of CPUs); the output is the same, in input order, whatever the number"+more)
	return fs.shared.workers
}

// flagError words a flag parsing error with the flag as the user typed it
// ("--nope", where the flag package says "-nope").
func flagError(err error, fs *flag.FlagSet, args []string) string {
	msg := err.Error()
	// invalid value "x" for flag -n: parse error
	// invalid boolean value "x" for -q: parse error
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	sep := " for flag -"
	if !ok {
		rest, ok = strings.CutPrefix(msg, "invalid boolean value ")
		sep = " for -"
	}
	if ok {
		if i := strings.Index(rest, sep); i >= 0 {
			value := rest[:i]
			name, why, _ := strings.Cut(rest[i+len(sep)-1:], ": ")
			if want := flagKind(fs, name); want != "" && (why == "parse error" || why == "value out of range") {
				if why == "value out of range" {
					want += " that fits in 64 bits"
				}
				typed := typedName(name, args)
				return typed + " takes " + strings.Replace(want, "NAME", typed, 1) + ", not " + value
			}
			return typedName(name, args) + " takes no " + value + ": " + why
		}
	}
	for _, prefix := range []string{"flag provided but not defined: ", "flag needs an argument: "} {
		name, ok := strings.CutPrefix(msg, prefix)
		if !ok {
			continue
		}
		name = typedName(name, args)
		if strings.HasPrefix(prefix, "flag provided") {
			return "unknown flag " + name
		}
		return "flag " + name + " needs a value"
	}
	return msg
}

// flagKind says what flag name ("-n") of fs takes, for a value it could
// not parse: "a whole number" for an integer; "" if it is not a number or
// a boolean (those say why themselves).
func flagKind(fs *flag.FlagSet, name string) string {
	f := fs.Lookup(strings.TrimLeft(name, "-"))
	if f == nil {
		return ""
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case int, int64:
		return "a whole number"
	case uint, uint64:
		return "a whole number, 0 or more"
	case float64:
		return "a number"
	case bool:
		return "true or false, joined by '=' (NAME=false)"
	case time.Duration:
		return "a duration (500ms, 10s, 5m)"
	}
	return ""
}

// typedName returns the flag name ("-n") as args spell it ("--n").
func typedName(name string, args []string) string {
	bare := strings.TrimLeft(name, "-")
	for _, a := range args {
		if a == "--" {
			break
		}
		if n, _, _ := strings.Cut(a, "="); strings.HasPrefix(n, "-") && strings.TrimLeft(n, "-") == bare {
			return n
		}
	}
	return name
}

// parseInterspersed parses flags that may come before, between or after
// the file names ("resolve urls.txt --base X"). A "--" ends the flags:
// everything after it is a file name.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	args = splitShortFlags(fs, args)
	var files []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(files, rest...), nil
		}
		if len(rest) == 0 {
			return files, nil
		}
		files = append(files, rest[0])
		args = rest[1:]
	}
}

// splitShortFlags writes combined one-letter flags apart, as getopt
// reads them: "-qu URI" is "-q -u URI". Only a group of one-letter flags
// all defined, every one but the last a boolean, is split; anything else
// is left to the flag package (and its error). Arguments after "--" are
// files.
func splitShortFlags(fs *flag.FlagSet, args []string) []string {
	var out []string
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if len(a) < 3 || a[0] != '-' || a[1] == '-' || strings.ContainsRune(a, '=') {
			out = append(out, a)
			continue
		}
		group := a[1:]
		ok := true
		for j := 0; j < len(group) && ok; j++ {
			f := fs.Lookup(group[j : j+1])
			if f == nil {
				ok = false
				break
			}
			if b, isBool := f.Value.(interface{ IsBoolFlag() bool }); j < len(group)-1 && (!isBool || !b.IsBoolFlag()) {
				ok = false
			}
		}
		if !ok {
			out = append(out, a)
			continue
		}
		for j := 0; j < len(group); j++ {
			out = append(out, "-"+group[j:j+1])
		}
	}
	return out
}

// flagSynopsis is a flag's name line in help: "-q, --quiet", "--key-file
// FILE", "--level LEVEL". The placeholder is the usage's quoted word in
// capitals, or, where that word is the first of the values the flag takes
// ("`syntax` (RFC 3986 ...), scheme ..."), the flag's name in capitals
// (its values are then listed in the usage).
func flagSynopsis(f *flag.Flag, short string) string {
	arg, _ := flag.UnquoteUsage(f)
	if arg != "" {
		if listsValues(f) {
			arg = map[string]string{"errors": "FORMAT", "log": "FORMAT"}[f.Name]
			if arg == "" {
				arg = f.Name
			}
		}
		arg = " " + strings.ToUpper(arg)
	}
	if short != "" {
		return "-" + short + ", --" + f.Name + arg
	}
	return "--" + f.Name + arg
}

// listsValues reports whether f's usage lists the values it takes: its
// quoted word, lower case, is the first of them ("`syntax` (RFC 3986
// ...), scheme ...", "...: `memory`, disk:DIR ...").
func listsValues(f *flag.Flag) bool {
	arg, _ := flag.UnquoteUsage(f)
	i := strings.Index(f.Usage, "`"+arg+"`")
	if arg == "" || i < 0 || arg != strings.ToLower(arg) || (i > 0 && !strings.HasSuffix(f.Usage[:i], ": ")) {
		return false
	}
	after := f.Usage[i+len(arg)+2:]
	return strings.HasPrefix(after, " (") || strings.HasPrefix(after, ",") || strings.HasPrefix(after, " or ")
}

// flagUsage is a flag's usage in help, with its default.
func flagUsage(f *flag.Flag) string {
	_, usage := flag.UnquoteUsage(f)
	if d := f.DefValue; d != "" && d != "false" && d != "0" && d != "[]" && !strings.Contains(usage, "(default") {
		usage += " (default " + d + ")"
	}
	return usage
}
