package cli

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/uriscan/uriscan"
	getfmt "github.com/uriscan/uriscan/format"
	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/internal/redisurl"
	"github.com/uriscan/uriscan/logformat"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
)

// defaultDedupBatch is how many records dedup decides at once: enough to
// amortize a round trip to a shared store and the syncs of --output, small
// enough to keep output flowing.
const defaultDedupBatch = 1024

// setupDedup: "uriscan dedup" writes the first line of each equivalence
// class, through package frontier, which owns the exactly-once protocol
// (batches, checkpoint, replay, truncation): --output is exactly once,
// standard output at least once. The command reads the inputs, keys each
// line (normalize.Hasher) and reports; the store is opened as a Go
// program would open it (normalize.Hasher.Params).
func setupDedup(fs *flag.FlagSet) func(*env, []string) int {
	store := fs.String("store", "memory", "where the seen-set lives: `memory`, disk:DIR (a key log), pebble:DIR (Pebble, for sets larger than memory, in a uriscan built with -tags pebble, which also opens an earlier version's Pebble set under disk:DIR; without it both are refused), redis://[USER:PASS@]HOST[:PORT][/DB] (rediss:// for TLS), redis://HOST:PORT,HOST:PORT... or redis+cluster://... for a Redis Cluster")
	prefix := fs.String("store-prefix", "", "`prefix` of the Redis keys of the set (default "+redisurl.DefaultPrefix+")")
	passFile := fs.String("redis-password-file", "", "read the password of a Redis --store whose URL has none from the first line of `FILE` (its line end trimmed), not from the command line, which every user of the machine can see; without it, $"+envRedisPassword+" holds it. A password in the URL wins over both, the file over the variable")
	nf := addNormFlags(fs)
	repair := fs.Bool("repair", false, "percent-encode what strict RFC 3986 rejects in an invalid line, as browsers do, and take the result (reported on standard error; the repaired form is written)")
	keyFile := fs.String("key-file", "", "`file` with the 32-byte hash key as 64 hex digits; required with a disk or Redis store, the same every run (default: random, memory only)")
	output := fs.String("output", "", "write the new lines to `FILE`, exactly once across kills and restarts (progress in FILE.checkpoint; a rerun resumes), instead of standard output")
	ckptFlag := fs.String("checkpoint", "", "record the progress in `FILE` after every batch, for --resume (default with --output: FILE.checkpoint)")
	resume := fs.Bool("resume", false, "continue from --checkpoint instead of the top of the input (automatic with --output)")
	rebuild := fs.Bool("rebuild", false, "take a disk or Redis store that lost keys it had recorded (emptied, deleted, replaced, restored from an older copy: a run is refused) as it is, and when resuming --output add back the keys of the lines it holds and go on; keys of other runs' outputs are not added back. A resume with --rebuild may name another --store than its checkpoint's (a new one, where the old one is ahead of the checkpoint): it gets the keys of --output's lines")
	rewind := fs.Bool("rewind-store", false, "when the checkpoint is older than a disk: store (a key log) that holds later batches of this run (the output and its checkpoint were put back from a copy), cut the key log back to the checkpoint's batch and go on, instead of refusing: what was added after that batch goes, keys of runs without a checkpoint too; refused when another run with a checkpoint wrote to the store since")
	summary := fs.String("summary", "", "also write the summary to `FILE`, as one JSON object")
	extract := fs.Bool("extract", false, "take the URIs found in each line (as uriscan extract finds them: logs, free text) instead of the line itself")
	xo := addExtractFlags(fs, "with --extract, ")
	scope := fs.String("scope", "", "keep only the URIs whose registrable domain is in `rdn=LIST` (comma-separated: rdn=example.com,example.org; ICANN rules unless --private-suffixes): the others are not written or recorded, and are counted out of scope (with --extract, left out)")
	privateSuffixes := fs.Bool("private-suffixes", false, "with --scope or --get, count the Public Suffix List's private section too (user.github.io is then its own registrable domain)")
	get := getFlags{private: privateSuffixes, spec: fs.String("get", "", "write `TEMPLATE` for the first URI of each equivalence class instead of its line (as written, not its normal form), in trurl's --get syntax (uriscan help get); not with a memory store and --output (a resume refills the set from the output's lines), nor with --rebuild")}
	workers := addWorkersFlag(fs, "; 1: one goroutine reads, keys and decides each line in turn; more: the workers parse, normalize and hash, and one goroutine decides the records in input order")
	batch := fs.Int("batch", defaultDedupBatch, "at most this many valid `lines` are decided (and committed to the store) at once; a batch also ends at each input's end, before each read that may block (with more workers than one: when the one that decides waits for input), and when it holds 1 MiB of text. Larger batches pay fewer syncs with --output (8192: about 2x the throughput)")
	fs.Bool("verify-input", true, "read each gzip, zstd or bzip2 input to its end first (every member's CRC-32 and length, every frame's and block's checksum) and take none of its lines if it is corrupt or cut short (exit 2), so that no line of a damaged archive is written or recorded in the store; a compressed stream on standard input is copied to a temporary file in $TMPDIR for it. It decompresses twice (gzip with the memory store: 0.65x the speed; see docs/dedup.md). --verify-input=false takes the lines before the damage, then reports the error") // read by dispatch into e.verifyInput
	return func(e *env, files []string) int {
		lv, cfg, msg := nf.config(fs, "dedup")
		if msg != "" {
			return e.usageError(msg, e.cmd)
		}
		if *batch < 1 {
			return e.usageError("dedup: --batch must be at least 1", e.cmd)
		}
		shown := redisurl.Redact(*store)
		persistent := *store != "memory"
		if persistent && *keyFile == "" {
			return e.usageError("dedup: --store "+shown+" needs --key-file: a store kept across runs only matches the hash key it was made with (make one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > key.hex)", e.cmd)
		}
		if *passFile != "" && !isRedisURL(*store) {
			return e.usageError("dedup: --redis-password-file is for a Redis --store (redis://, rediss://, redis+cluster://)", e.cmd)
		}
		ckptName := *ckptFlag
		if ckptName == "" && *output != "" {
			ckptName = *output + ".checkpoint"
		}
		if *resume && ckptName == "" {
			return e.usageError("dedup: --resume needs --output or --checkpoint (where the progress is recorded)", e.cmd)
		}
		if ckptName != "" && *output == "" && !persistent {
			return e.usageError("dedup: --checkpoint to standard output needs a disk or Redis store: a memory set is gone after the process", e.cmd)
		}
		// The keys are of the forms as shown, passwords redacted unless
		// --show-passwords (normalize.Hasher's rule, which the store
		// records: a store made the other way is refused, not mixed).
		h, code := e.keyHasher(*keyFile, lv, cfg)
		if h == nil {
			return code
		}
		if len(files) == 0 {
			files = []string{"-"}
		}
		// What the store records is what a Go program's hasher with the
		// same settings gives it: either's store is the other's. A memory
		// set's key is random; its checkpoint records the settings.
		params := h.Settings()
		if persistent {
			var err error
			if params, err = h.Params(); err != nil {
				e.ioError("dedup: " + err.Error())
				e.flush()
				return exitUsage
			}
		}
		d := &deduper{e: e, h: h, start: time.Now()}
		d.summaryFile = *summary
		d.kt = keyer{redacts: e.rep.redacts(), repair: *repair, raw: lv.Raw()}
		if d.kt.raw && (*repair || *extract) {
			return e.usageError("dedup: --level "+lv.String()+" reads every line as its owner does: --repair and --extract do not apply", e.cmd)
		}
		if *repair && *extract {
			return e.usageError("dedup: --repair and --extract do not go together (extract takes only valid URIs)", e.cmd)
		}
		tmpl, code, ok := get.compile(e, "dedup", fs, *scope != "")
		if !ok {
			return code
		}
		if tmpl != nil {
			switch {
			case d.kt.raw:
				return e.usageError("dedup: --get takes URIs apart; --level "+lv.String()+" reads lines as its owner does", e.cmd)
			case *rebuild:
				return e.usageError("dedup: --rebuild adds back the keys of --output's lines: with --get they are templates, not URIs", e.cmd)
			case !persistent && ckptName != "":
				return e.usageError("dedup: a resume refills a memory set from --output's lines: with --get they are templates, not URIs (use a disk or Redis store)", e.cmd)
			}
			d.kt.get = tmpl
		}
		if *scope != "" {
			if d.kt.raw {
				return e.usageError("dedup: --scope takes URIs apart; --level "+lv.String()+" reads lines as its owner does", e.cmd)
			}
			set, msg := parseScope(*scope, linked.NewSplit(*privateSuffixes))
			if msg != "" {
				return e.usageError("dedup: --scope: "+msg, e.cmd)
			}
			d.kt.scope, d.kt.private = set, *privateSuffixes
		}
		// What the checkpoint records of this run, besides its inputs: a
		// resume with other settings is refused.
		run := map[string]string{"store": shown, "max-line": strconv.Itoa(e.sc.ls.MaxLine())}
		if tmpl != nil {
			run["get"] = *get.spec // the output's lines are its
			if *privateSuffixes {
				run["get"] += " (private suffixes)"
			}
		}
		for k, v := range params {
			run[k] = v
		}
		if *repair {
			run["repair"] = "true"
		}
		if *scope != "" {
			run["scope"] = *scope
			if *privateSuffixes {
				run["scope"] += " (private suffixes)"
			}
		}
		e.textLines = *extract
		if *extract {
			x, lm, code, ok := xo.build(e, "text", nil, false)
			if !ok {
				return code
			}
			d.kt.x, d.kt.lm = x, lm
			run["extract"] = xo.describe(x)
		} else if xo.set(fs) {
			return e.usageError("dedup: --schemes, --any-scheme, --min-scheme, --log, --field, --base, --host-field, --columns and --delimiter go with --extract", e.cmd)
		}
		if *rebuild && !persistent {
			return e.usageError("dedup: --rebuild is for a disk or Redis store (a memory set is rebuilt from --output anyway)", e.cmd)
		}
		if *rewind && !strings.HasPrefix(*store, "disk:") {
			return e.usageError("dedup: --rewind-store cuts back a disk: store (a key log); --store "+shown+" cannot be cut back (see docs/dedup.md, \"Backups\")", e.cmd)
		}
		resuming := false
		var stamp *seen.Stamp
		// A checkpoint that recorded a store's stamp says a store was
		// there: a disk store is not made anew where it is gone.
		if ckptName != "" {
			if _, err := os.Stat(ckptName); err == nil {
				resuming = true
				// A checkpoint that cannot be read stops the run before the
				// store is opened (or made) and the output touched.
				if stamp, err = frontier.LastStamp(ckptName); err != nil {
					e.ioError("dedup: " + err.Error())
					e.flush()
					return exitUsage
				}
			}
		}
		so := StoreOptions{Recover: *rebuild, MustExist: stamp != nil && !*rebuild}
		if isRedisURL(*store) {
			if w := redisPasswordWarning(*passFile); w != "" {
				fmt.Fprintln(e.errw, "uriscan: dedup: "+w)
			}
			pw, perr := redisPassword(*passFile, os.Getenv)
			if perr != nil {
				e.ioError("dedup: " + perr.Error())
				e.flush()
				return exitUsage
			}
			so.Password = pw
		}
		set, err := openStore(*store, *prefix, params, so)
		if err != nil {
			// The store's errors name it (password redacted).
			e.ioError("dedup: " + storeMessage(err, shown) + storeAdvice(err, *output, resuming))
			e.flush()
			return exitUsage
		}
		d.set = set
		// With workers and a set in memory, the workers decide their
		// chunks in turn (env.decide), and the Log takes the decisions.
		decided := *workers > 1 && !persistent
		d.log, err = frontier.Open(set, frontier.Options{
			Output: *output, Writer: e.out, Checkpoint: ckptName, Resume: *resume,
			Inputs: files, Run: run, Batch: *batch,
			KeyOf: d.keyOf, Rebuild: *rebuild, SetEntry: "store", Decided: decided, Rewind: *rewind,
			OnRewind: func(dropped int64) {
				fmt.Fprintf(e.errw, "uriscan: dedup: --rewind-store: cut the key log back to the checkpoint's batch: %d keys of later batches dropped\n", dropped)
			},
			OnRebuild: func(lost error, n int64) {
				if lost != nil {
					fmt.Fprintf(e.errw, "uriscan: dedup: %v\n", lost)
				}
				if *output != "" {
					fmt.Fprintf(e.errw, "uriscan: dedup: --rebuild: adding back the keys of the %d bytes of --output %s\n", n, *output)
				} else {
					fmt.Fprintf(e.errw, "uriscan: dedup: --rebuild: taking the store as it is\n")
				}
			},
		})
		if err != nil {
			set.Close()
			msg := "dedup: " + err.Error()
			switch {
			case errors.Is(err, seen.ErrLost):
				msg += "\nuriscan: dedup: the checkpoint " + ckptName + " records a run against the store as it was: " + lostAdvice(*output, true)
			case errors.Is(err, frontier.ErrStoreAhead):
				msg += "\nuriscan: dedup: " + aheadAdvice(*store, *output, ckptName, isRewinder(set))
			}
			e.ioError(msg)
			e.flush()
			return exitUsage
		}
		d.ckptName, d.output, d.inputs = ckptName, *output, files
		d.decidedLen.Store(set.Len()) // (refilled from --output on resume)
		if d.log.Resumed() {
			// What the runs before found keeps its exit status.
			e.invalid = d.log.Tally().Other["invalid"] > 0
			for _, msg := range d.log.Errors() {
				e.ioError("dedup: (before the resume) " + msg)
			}
			st := d.log.Start()
			e.start = inputPos{File: st.Input, Offset: st.Offset, Line: st.Line}
		}
		e.finish = d.finish
		e.onInputError = func(msg string) {
			d.log.InputError(msg)
			d.inputFailed = true
		}
		// Before a read that may block, settle the batch so output keeps up
		// with a slow input ("tail -f log | uriscan dedup"). With one
		// worker that is before each read of the input; with more, before
		// the writer waits for the reader (see pipeline.next), which on
		// files is rarely. So batches end at --batch records, at each
		// input's end, before such a wait, and when they hold
		// dedupTextMax bytes of text (see feed). With workers, where they
		// end depends on timing; the output does not: a record is written
		// if no record before it has its key, in this batch or in the set,
		// wherever batches end. The checkpoints do depend on it, and a
		// resume replays what its checkpoint records, whatever the
		// workers of either run.
		e.sc.beforeRead = func() { d.commit(); e.flush() }
		e.endFile = d.endFile
		e.feed = d.feed
		if decided {
			e.decide = d.decide
		}
		d.memory = !persistent
		d.growAt = growFirst
		e.memHeld = func() int64 {
			if persistent {
				return -1 // (Pebble's caches; a client's buffers)
			}
			return memBytesPerKey * d.setLen()
		}
		d.kt.sums = d.log.Sums()
		newFn := func() lineFn { return d.newKeyer().line }
		if *workers == 1 {
			code = e.streamLines(files, newFn)
		} else {
			code = e.eachLine(files, *workers, newFn)
		}
		d.finish()
		e.flush()
		if d.log.Err() != nil || d.closeErr != nil || e.ioFail {
			code = exitUsage // (e.ioFail: also a --summary that could not be written)
		}
		return code
	}
}

// dedupSummary is dedup's summary as JSON (--summary, --errors jsonl).
type dedupSummary struct {
	Command    string `json:"command"`
	Lines      int64  `json:"lines"`
	Blank      int64  `json:"blank"`
	Invalid    int64  `json:"invalid"`
	Repaired   int64  `json:"repaired,omitempty"`     // with --repair: taken repaired
	OutOfScope *int64 `json:"out_of_scope,omitempty"` // with --scope
	URIs       *int64 `json:"uris,omitempty"`         // with --extract
	Unique     int64  `json:"unique"`
	Duplicates int64  `json:"duplicates"`
	Resumed    bool   `json:"resumed"`
}

// deduper feeds a dedup run's frontier.Log with the records its keyers
// make of the lines (see feed).
type deduper struct {
	e     *env
	start time.Time // for the summary's time and rate
	set   seen.Set
	log   *frontier.Log
	h     *normalize.Hasher
	// kt is the keyer each goroutine that keys lines copies (newKeyer).
	kt keyer
	// summaryFile is --summary.
	summaryFile string
	ckptName    string
	output      string   // --output
	inputs      []string // the inputs ("-": standard input)
	// inputFailed: an input error was reported since the last endFile.
	inputFailed bool
	// text counts the bytes of the records given to the Log since it
	// last decided a batch (see dedupTextMax).
	text int
	// memory: the store is in memory; limitAt is its size past which the
	// memory limit is raised (see env.limitMemory).
	memory  bool
	limitAt int64
	// growAt is the set's size at which growSet next looks; sizes are
	// the inputs' sizes (-1: a stream), found then.
	growAt int64
	sizes  []int64
	// decidedLen is the set's size after the last decide; setMu is held
	// by decide, and by finish to close the set (setClosed).
	decidedLen atomic.Int64
	setMu      sync.Mutex
	setClosed  bool
	closeErr   error // closing the store
	finished   bool
}

// keyer keys a dedup run's lines: what each holds (its records: keys,
// and the texts written for the first occurrences), what the Tally
// counts it as, its report on standard error and its digest (see
// dedupRecs). One per goroutine: it holds its hasher and scratch.
type keyer struct {
	h       *normalize.Hasher
	redacts bool
	sums    bool // the Log takes each line's digest (frontier.Log.Sums)
	// x, with --extract, finds the URIs in a line (ms: its matches); lm,
	// with --log too, reads the line as a log line (lw: this keyer's).
	x  *uriscan.Extractor
	ms []uriscan.Match
	lm *logMode
	lw *logWorker
	// k and name: the sink and input of the line lw reads; bad is set when
	// it is not in the log format.
	k    *sink
	name string
	bad  bool
	// repair (--repair) takes invalid lines in their repaired form.
	repair   bool
	fixed    []byte
	fixedURI uriscan.URI
	fixedRep normalize.Repairs
	raw      bool // the level is Raw: lines go to SumRaw
	// scope (--scope): the registrable domains kept, lowercase; hosts
	// splits hosts under rules (each keyer its own).
	scope   map[string]bool
	private bool // --private-suffixes
	// get (--get) writes the template for each URI taken (each keyer
	// its own clone).
	get   *getfmt.Format
	hosts hostSplit // each keyer its own
}

// dedupRecs is what keyers made of lines, in a sink, for the Log: the
// records (record i's text is the sink's out[ends[i-1]:ends[i]]) and the
// lines.
type dedupRecs struct {
	keys  []seen.Key
	ends  []int
	lines []dedupLine
	// isNew holds the records' decisions once decided (env.decide).
	isNew   []bool
	decided bool
}

func (r *dedupRecs) reset() {
	r.keys, r.ends, r.lines, r.isNew, r.decided = r.keys[:0], r.ends[:0], r.lines[:0], r.isNew[:0], false
}

// trim drops the buffers of r that grew past max bytes (a long line's
// records), as the pipeline drops an output buffer (see keepBig).
func (r *dedupRecs) trim(max int) {
	if cap(r.keys)*int(unsafe.Sizeof(seen.Key{})) > max {
		r.keys = nil
	}
	if cap(r.ends)*int(unsafe.Sizeof(0)) > max {
		r.ends = nil
	}
	if cap(r.lines)*int(unsafe.Sizeof(dedupLine{})) > max {
		r.lines = nil
	}
	if cap(r.isNew) > max {
		r.isNew = nil
	}
}

// size is how many bytes r holds.
func (r *dedupRecs) size() int {
	return len(r.keys)*int(unsafe.Sizeof(seen.Key{})) + len(r.ends)*int(unsafe.Sizeof(0)) + len(r.lines)*int(unsafe.Sizeof(dedupLine{}))
}

// dedupLine is one input line, keyed: its records end at keys[recs], its
// report is the sink's err[errFrom:errTo] (written unless the Log replays
// the line), count is what the Tally counts it as (countNames), next
// where it ends (offset and line number: the Log's Position, its input
// the writer's), sum its digest where the Log takes it.
type dedupLine struct {
	off                  int64
	line                 int
	sum                  frontier.LineSum
	recs, errFrom, errTo int32 // (a sink holds at most a line's output past pieceSize)
	count                uint8
}

// The counts of lines in the Tally's Other: countNames[dedupLine.count].
const (
	countBlank = 1 + iota
	countInvalid
	countRepaired
	countOutOfScope
)

var countNames = [...]string{countBlank: "blank", countInvalid: "invalid", countRepaired: "repaired", countOutOfScope: "out_of_scope"}

// lostAdvice says what to do about a store that lost keys; resuming: a
// checkpoint records a run (with --output: of output's lines) against it.
func lostAdvice(output string, resuming bool) string {
	others := "rebuild the store from the outputs of the runs that filled it (uriscan dedup --store NEW --key-file K [the same level flags] OUTPUTS... >/dev/null)"
	switch {
	case resuming && output != "":
		return "a resume would write again lines --output " + output + " holds. Rerun with --rebuild to add back the keys of its lines and go on (keys of other runs' outputs are not added back: " + others + " first), or remove " + output + " and its checkpoint and start over with a new store"
	case resuming:
		return "a resume would write again lines written before it: " + others + ", or rerun with --rebuild to take the store as it is"
	}
	return "lines it held would be new again: " + others + ", or rerun with --rebuild to take it as it is"
}

// isRewinder reports whether set can be cut back (--rewind-store).
func isRewinder(set seen.Set) bool {
	_, ok := set.(frontier.Rewinder)
	return ok
}

// aheadAdvice says how to recover from a store ahead of the checkpoint
// (frontier.ErrStoreAhead): --rebuild cannot (it only adds keys).
func aheadAdvice(store, output, ckpt string, rewinder bool) string {
	newStore := "rerun with a new store and --rebuild (--store disk:NEWDIR --rebuild: the new store gets the keys of --output " + output + "'s lines and the run goes on; keys that other runs added to the old store are not in it: add their outputs first, uriscan dedup --store disk:NEWDIR --key-file K [the same level flags] OUTPUTS... >/dev/null)"
	if output == "" {
		newStore = "rerun with a new store and --rebuild (lines written before the checkpoint are then taken for new again: add the outputs of the runs that filled the old store to the new one first, uriscan dedup --store disk:NEWDIR --key-file K [the same level flags] OUTPUTS... >/dev/null)"
	}
	if isRedisURL(store) {
		newStore += " (for Redis, a new store is another --store-prefix, or another database)"
	}
	s := "to recover, put back the newer " + ckpt + " (and its output) if you have them; or " + newStore
	if rewinder {
		s += "; or rerun with --rewind-store to cut this key log back to the checkpoint's batch (the keys of the later batches go)"
	}
	return s + ". --rebuild alone cannot mend it: it only adds keys. Back up an output, its checkpoint and the store together (docs/dedup.md, \"Backups\")"
}

// storeMessage is err from opening the store --store shown, in the
// command's terms where the library's would not do: the settings a store
// was made with are the flags that make them.
func storeMessage(err error, shown string) string {
	var pe *seen.ParamsError
	if errors.As(err, &pe) {
		stored, given := paramFlags(pe.Stored), paramFlags(pe.Given)
		if slices.Equal(stored, given) {
			// What differs has no flag (an entry of an earlier version,
			// the store's format): the store's own words.
			return pe.Error() + " (no flag of this version makes the store's: use another store)"
		}
		return "--store " + shown + " was made with " + strings.Join(without(stored, given), " ") +
			"; this run has " + strings.Join(without(given, stored), " ") + ": rerun with the store's, or use another store"
	}
	return err.Error()
}

// without returns the flags of a that are not in b (or "(no flag)").
func without(a, b []string) []string {
	var out []string
	for _, f := range a {
		if !slices.Contains(b, f) {
			out = append(out, f)
		}
	}
	if out == nil {
		out = []string{"(no flag)"}
	}
	return out
}

// paramFlags writes a store's Params (normalize.Hasher.Params) as the
// flags that make them.
func paramFlags(p seen.Params) []string {
	var f []string
	if lv, ok := p["level"]; ok {
		f = append(f, "--level "+lv)
	}
	raw := p["level"] == "safebrowsing" || p["level"] == "w3lib"
	if hs, ok := p["heuristics"]; ok {
		for _, h := range strings.Split(hs, ",") {
			if h != "strip-params" || p["strip-params"] == "" {
				f = append(f, "--"+h)
			}
		}
	}
	if sp, ok := p["strip-params"]; ok {
		for _, name := range strings.Split(sp, ",") {
			f = append(f, "--strip-param "+name)
		}
	}
	if _, ok := p["dot-segments"]; !ok && !raw {
		f = append(f, "--keep-encoded-dots")
	}
	if _, ok := p["rootless-dots"]; !ok && !raw {
		f = append(f, "--keep-rootless-dots")
	}
	if p["ipv6"] == "rfc5952" {
		f = append(f, "--ipv6-rfc5952")
	}
	if g, ok := p["grammar"]; ok {
		f = append(f, "--grammar "+g)
	}
	if _, ok := p["passwords"]; !ok {
		f = append(f, "--show-passwords")
	}
	if fp, ok := p["key-fingerprint"]; ok {
		f = append(f, "--key-file (the key whose fingerprint is "+fp+")")
	}
	return f
}

// storeAdvice is what to do about err from opening the store, or "".
func storeAdvice(err error, output string, resuming bool) string {
	var pe *seen.ParamsError
	switch {
	case linked.Damaged != nil && linked.Damaged(err):
		if resuming && output != "" {
			return "\nuriscan: dedup: once it is removed, rerun with --rebuild to add back the keys of --output " + output + "'s lines into a new store and go on"
		}
		return "\nuriscan: dedup: once it is removed, rebuild it from the outputs of the runs that filled it (uriscan dedup --store NEW --key-file K [the same level flags] OUTPUTS... >/dev/null)"
	case errors.Is(err, seen.ErrLost):
		return "\nuriscan: dedup: the store is not what it was; " + lostAdvice(output, resuming)
	case errors.As(err, &pe):
		return "" // storeMessage says it
	case errors.Is(err, seen.ErrNoParams):
		return "\nuriscan: dedup: nothing says how its keys were made: use another store (--store)"
	}
	return ""
}

// keyOf is the key of a line of --output, as it was written: used to
// refill a memory set on resume, and by --rebuild.
func (d *deduper) keyOf(line []byte) (seen.Key, error) {
	sum, err := d.h.SumRaw(line)
	return seen.Key(sum), err
}

// newKeyer returns a keyer for one goroutine: kt's settings, its own
// hasher and scratch.
func (d *deduper) newKeyer() *keyer {
	kr := d.kt
	kr.h = d.h.Clone()
	if kr.scope != nil {
		kr.hosts = linked.NewSplit(kr.private)
	}
	if kr.x != nil {
		x := *kr.x
		kr.x = &x
	}
	if kr.get != nil {
		kr.get = kr.get.Clone()
	}
	p := &kr
	if kr.lm != nil {
		kr.lw = kr.lm.newLogWorker(math.MaxInt, d.e.rep.jsonl, func(_ logformat.Field, m uriscan.Match, _ int64, text []byte) {
			if u, err := uriscan.Parse(text); err == nil && !m.Rejected {
				p.add(p.k, &u) // (out of scope: left out)
			}
		}, func(line int64, off int, reason string) {
			p.k.err = p.k.rep.appendLineReport(p.k.err, p.name, line, off, []byte(reason), nil, 0)
			p.bad = true
		})
	}
	return p
}

// line keys one input line into k (see dedupRecs). Its records are the
// line's URI (valid, or repaired with --repair), the URIs in it with
// --extract, or with a Raw level the line as its owner reads it; none for
// a blank or invalid line. A key is the digest of the normal form as the
// output shows it, the password redacted unless --show-passwords (the
// hasher's rule: two URIs that differ only in their password, written the
// same, are one; and the key of a line read back from --output after a
// crash is the key it was written with). s's parse error is left as the
// exit status counts the line: cleared for a line of text with
// --extract, and set by a Raw level.
func (kr *keyer) line(k *sink, name string, s *recordScanner) {
	r := &k.recs
	from, count := len(k.err), uint8(0)
	_, long := s.ls.TooLong()
	if kr.x != nil && !long {
		s.perr = nil // text, not a URI: only a line over the limit is invalid
	}
	switch {
	case s.Len() == 0:
		count = countBlank
	case kr.lw != nil && !long:
		// The URIs in the log line's fields, each a record; a line of
		// another shape is invalid, as extract --log counts it.
		kr.k, kr.name, kr.bad = k, name, false
		kr.lw.logLine(bytes.TrimSuffix(s.Bytes(), []byte{'\r'}), int64(s.Line()), 0)
		if kr.bad {
			s.perr, count = rawInvalid, countInvalid
		}
	case kr.x != nil && !long:
		// The URIs in the line, each a record (valid: Extract parses them).
		kr.ms = kr.x.Append(kr.ms[:0], s.Bytes())
		for _, m := range kr.ms {
			u, _ := uriscan.Parse(s.Bytes()[m.Start:m.End])
			kr.add(k, &u) // (out of scope: left out)
		}
	case kr.raw && !long:
		// A Raw level reads any line as its owner does.
		sum, err := kr.h.SumRaw(s.Bytes())
		if err != nil {
			s.perr, count = rawInvalid, countInvalid
			k.err = k.rep.appendLineReport(k.err, name, int64(s.Line()), 0, []byte(strings.TrimPrefix(err.Error(), "normalize: ")), s.Bytes(), s.Len())
			break
		}
		s.perr = nil
		k.out = append(k.out, shownBytes(s.Bytes(), kr.redacts)...)
		r.keys, r.ends = append(r.keys, seen.Key(sum)), append(r.ends, len(k.out))
	case s.ParseError() != nil && kr.repairLine(s):
		// Taken in its repaired form (and still invalid for the exit
		// status, as normalize --repair).
		if !k.rep.quiet {
			k.err = appendRepair(k.err, name, s.Line(), kr.fixedRep, k.rep)
		}
		count = countRepaired
		kr.add(k, &kr.fixedURI)
	case s.ParseError() != nil: // (with --extract, only a line over the limit)
		count = countInvalid
		k.reportLine(name, s)
	default:
		if !kr.add(k, s.URI()) {
			count = countOutOfScope
		}
	}
	ln := dedupLine{recs: int32(len(r.keys)), errFrom: int32(from), errTo: int32(len(k.err)), count: count, off: s.ls.NextOffset(), line: s.Line()}
	if kr.sums {
		ln.sum = frontier.SumLine(s.Bytes())
	}
	r.lines = append(r.lines, ln)
}

// add adds the record of u to k, its key and its text, and reports
// whether it did: not when it is out of --scope.
func (kr *keyer) add(k *sink, u *uriscan.URI) bool {
	sum := kr.h.Sum(u)
	if kr.scope != nil && !kr.inScope(kr.h.Canonical()) {
		return false
	}
	if kr.get != nil {
		k.out = appendGet(k.out, kr.get, u, kr.redacts)
	} else {
		k.out = appendURI(k.out, u, kr.redacts)
	}
	k.recs.keys = append(k.recs.keys, seen.Key(sum))
	k.recs.ends = append(k.recs.ends, len(k.out))
	return true
}

// repairLine, with --repair, repairs s's invalid line into kr.fixed and
// parses it into kr.fixedURI; false when it is not repaired (a line over
// the limit, or one Repair cannot mend).
func (kr *keyer) repairLine(s *recordScanner) bool {
	if !kr.repair {
		return false
	}
	if _, long := s.ls.TooLong(); long || kr.x != nil {
		return false
	}
	var rep normalize.Repairs
	kr.fixed, rep = normalize.Repair(kr.fixed[:0], s.Bytes())
	u, err := uriscan.Parse(kr.fixed)
	if err != nil {
		return false
	}
	kr.fixedURI, kr.fixedRep = u, rep
	return true
}

// feed gives the Log the records keyers made of lines (k.recs), in input
// order (the lines of input e.fileIdx), and writes their reports, but for
// the lines the Log replays (the last batch of the run before, reported
// then). The Log decides, writes and commits them a batch at a time. k
// is left with what follows the last line on standard error (an input
// error), for drain. A Log error stops the run (e.halt) at the line: what
// follows is neither taken nor said, as the streaming loop stops.
func (d *deduper) feed(k *sink) {
	r := &k.recs
	rec, text, said := int32(0), 0, int32(0) // the next record, its text's start, k.err written
	for i := range r.lines {
		ln := &r.lines[i]
		if ln.errTo > said {
			if d.log.Replaying() {
				d.e.errw.Write(k.err[said:ln.errFrom]) // (a note on the input)
			} else {
				d.e.errw.Write(k.err[said:ln.errTo])
			}
			said = ln.errTo
		}
		if ln.count != 0 {
			d.log.Count(countNames[ln.count])
		}
		for ; rec < ln.recs; rec++ {
			if r.decided {
				d.log.AddDecided(r.keys[rec], k.out[text:r.ends[rec]], r.isNew[rec])
			} else {
				d.log.Add(r.keys[rec], k.out[text:r.ends[rec]])
			}
			d.text += r.ends[rec] - text
			text = r.ends[rec]
		}
		if d.log.EndLineSum(ln.sum, frontier.Position{Input: d.e.fileIdx, Offset: ln.off, Line: ln.line}) != nil {
			d.e.halt = true
			said = int32(len(k.err))
			k.ioFail, k.inputErr = false, false
			break
		}
		if d.log.Pending() == 0 {
			d.text = 0 // decided (a full batch)
		}
	}
	k.err = k.err[:copy(k.err, k.err[said:])]
	k.ioAt = max(0, k.ioAt-int(said))
	k.out = k.out[:0]
	if d.memory && d.e.decide == nil && len(r.lines) > 0 && d.set.Len() >= d.growAt { // (with workers: decide)
		d.growSet(d.e.fileIdx, r.lines[len(r.lines)-1].off)
	}
	r.reset()
	if d.text > dedupTextMax {
		d.commit()
	}
	if d.memory && d.e.memBase > 0 && d.setLen() > d.limitAt {
		// The set in memory grew: so does the memory limit.
		n := d.setLen()
		d.limitAt = n + n/8
		d.e.limitMemory()
	}
}

// decide decides the records of k, of input file, in the set in memory
// (env.decide): in a worker, or in the goroutine that feeds the Log, one
// at a time in input order (see decideChunk), so the set is never used by
// two at once.
func (d *deduper) decide(k *sink, file int) {
	d.setMu.Lock()
	defer d.setMu.Unlock()
	if d.setClosed {
		return // (a signal's finish: the records stay undecided, unwritten)
	}
	r := &k.recs
	r.isNew = slices.Grow(r.isNew[:0], len(r.keys))[:len(r.keys)]
	if d.set.AddBatch(r.keys, r.isNew) != nil {
		return // (closed: undecided, the Log refuses the records)
	}
	r.decided = true
	n := d.set.Len()
	d.decidedLen.Store(n)
	if n >= d.growAt && len(r.lines) > 0 {
		d.growSet(file, r.lines[len(r.lines)-1].off)
	}
}

// setLen is the number of keys in the set in memory, as its last decision
// left it where the workers decide (env.decide): the goroutine that feeds
// the Log does not read the set then.
func (d *deduper) setLen() int64 {
	if d.e.decide != nil {
		return d.decidedLen.Load()
	}
	return d.set.Len()
}

// setsGrown counts growSet's Grow calls (for the tests).
var setsGrown atomic.Int64

// growFirst is the size of a set in memory at which dedup first sizes it
// for the rest of the input (growSet); growMax times its keys, or
// growFloor keys (a table of 32 MiB), is the most it grows it to at once.
const (
	growFirst = 1 << 14
	growMax   = 8
	growFloor = 1 << 20
)

// growSet sizes the set in memory for the keys the rest of the input will
// likely bring, from the new keys so far per byte of input read (input
// file, offset off): a set of n keys after a fraction p of the inputs'
// bytes is grown to hold n/p (seen.Memory.Grow), so that a run of new
// keys does not pay for the set's doublings on the way (see docs/dedup.md's
// figures). The estimate is of the files' sizes: a compressed file,
// larger read than stored, gives a lower one; standard input and other
// streams, none. If the new keys come early and duplicates later, the
// set holds room it does not use: at most growMax times its keys, or
// growFloor keys.
func (d *deduper) growSet(file int, off int64) {
	n := d.set.Len()
	d.growAt = 2 * n // when to look again
	g, ok := d.set.(interface{ Grow(int) })
	if !ok {
		return
	}
	if d.sizes == nil {
		d.sizes = make([]int64, len(d.inputs))
		for i, name := range d.inputs {
			d.sizes[i] = -1
			if fi, err := os.Stat(name); name != "-" && err == nil && fi.Mode().IsRegular() {
				d.sizes[i] = fi.Size()
			}
		}
	}
	var read, total int64
	for i, sz := range d.sizes {
		if sz < 0 {
			return // a stream: its size is unknown
		}
		total += sz
		if i < file {
			read += sz
		}
	}
	read += off
	if file >= len(d.sizes) || read <= 0 || read >= total {
		return
	}
	est := int64(float64(n) * float64(total) / float64(read))
	target := min(est, max(growMax*n, growFloor))
	if target > n {
		g.Grow(int(target - n))
		d.growAt = max(d.growAt, target)
		setsGrown.Add(1)
	}
}

// memBytesPerKey bounds the memory a seen-set in memory takes a key, its
// growth included (seen.Memory: 21 to 43 bytes a key, and the old table
// beside the new one while it grows).
const memBytesPerKey = 64

// dedupTextMax is how many bytes of text (new or not) a batch holds at
// most: memory stays bounded whatever the lines' length (one worker
// decides its batch before each read anyway, which bounds it likewise).
const dedupTextMax = 1 << 20

// commit decides the pending batch (before a read that may block, or
// when it holds dedupTextMax).
func (d *deduper) commit() {
	d.text = 0
	if d.log.Commit() != nil {
		d.e.halt = true
	}
}

// endFile ends each input: a batch never spans two.
func (d *deduper) endFile() {
	d.text = 0 // (EndInput decides the batch)
	failed := d.inputFailed
	d.inputFailed = false
	var err error
	switch {
	case failed:
		// (Reported above: unreadable, or it failed --verify-input.)
		err = errors.New("it could not be read (see above)")
	case d.e.stopped() || d.e.halt:
		return // finish commits what was read
	case d.e.sc.Err() != nil:
		err = d.e.sc.Err()
	}
	if d.log.EndInput(d.e.fileIdx, err) != nil {
		d.e.halt = true
	}
}

// finish decides what was read, records the run done unless it stopped
// early, closes the output and the store, and prints the summary; once.
func (d *deduper) finish() {
	if d.finished {
		return
	}
	d.finished = true
	e := d.e
	if d.log.Err() == nil && !e.stopped() && !e.halt && e.werr == nil {
		d.log.Finish()
	} else {
		d.log.Commit() // (a signal, --max-errors: what was read is decided)
		d.log.Close()
	}
	// A signal's finish runs while the workers may decide (env.decide):
	// the set is closed once none does, and none does after.
	d.setMu.Lock()
	d.setClosed = true
	closeErr := d.set.Close()
	d.setMu.Unlock()
	if closeErr != nil && d.log.Err() == nil {
		d.closeErr = closeErr
	}
	c := d.log.Tally()
	blank, invalid, repaired := c.Other["blank"], c.Other["invalid"], c.Other["repaired"]
	var b []byte
	b = append(b, "uriscan: dedup: lines "...)
	b = strconv.AppendInt(b, c.Lines, 10)
	b = append(b, ", blank "...)
	b = strconv.AppendInt(b, blank, 10)
	b = append(b, ", invalid "...)
	b = strconv.AppendInt(b, invalid, 10)
	if repaired > 0 {
		b = append(b, ", repaired "...)
		b = strconv.AppendInt(b, repaired, 10)
	}
	outOfScope := c.Other["out_of_scope"]
	if d.kt.scope != nil {
		b = append(b, ", out of scope "...)
		b = strconv.AppendInt(b, outOfScope, 10)
	}
	if d.kt.x != nil {
		b = append(b, ", uris "...)
		b = strconv.AppendInt(b, c.Records, 10)
	}
	b = append(b, ", unique "...)
	b = strconv.AppendInt(b, c.Unique, 10)
	b = append(b, ", duplicates "...)
	b = strconv.AppendInt(b, c.Duplicates(), 10)
	if d.log.Resumed() {
		b = append(b, " (resumed from "...)
		b = append(b, d.ckptName...)
		b = append(b, ')')
	}
	if e.tty != nil && isTerminal(e.tty) {
		// On a terminal, the time and the rate; not in a log or a
		// pipe, where stderr stays the same from run to run.
		b = appendElapsed(b, time.Since(d.start), c.Lines)
	}
	b = append(b, '\n')
	sum := dedupSummary{Command: "dedup", Lines: c.Lines, Blank: blank, Invalid: invalid, Repaired: repaired, Unique: c.Unique, Duplicates: c.Duplicates(), Resumed: d.log.Resumed()}
	if d.kt.x != nil {
		sum.URIs = &c.Records
	}
	if d.kt.scope != nil {
		sum.OutOfScope = &outOfScope
	}
	e.finalLine = e.writeSummary(d.summaryFile, sum, string(b))
	err := d.log.Err()
	if err == nil && d.closeErr != nil {
		err = &frontier.Error{Step: "store", Err: d.closeErr}
	}
	if err != nil {
		at := d.log.Decided()
		name := d.inputName(at.Input)
		msg := fmt.Sprintf("dedup: %v\nuriscan: dedup: stopped: the input is decided up to %s:%d; %d lines read after it were not decided, and the rest of the input was not read",
			err, name, at.Line, d.log.Pending())
		switch {
		case errors.Is(err, seen.ErrLost):
			msg += "; " + lostAdvice(d.output, d.ckptName != "")
		case d.ckptName != "":
			msg += "; rerun with --resume (automatic with --output) to continue"
		}
		e.ioError(msg)
	}
}

// inputName names input i for messages.
func (d *deduper) inputName(i int) string {
	if i >= len(d.inputs) || d.inputs[i] == "-" {
		return stdinName
	}
	return d.inputs[i]
}

// openStore opens the seen-set a --store value names, recording or
// checking params in a persistent one.
func openStore(spec, prefix string, params seen.Params, so StoreOptions) (seen.Set, error) {
	switch {
	case spec == "memory":
		return seen.NewMemory(1 << 16), nil
	case strings.HasPrefix(spec, "disk:"):
		return openDiskStore("disk", spec[5:], params, so)
	case strings.HasPrefix(spec, "pebble:"):
		return openDiskStore("pebble", spec[7:], params, so)
	case isRedisURL(spec):
		return linked.OpenRedis(spec, prefix, params, so)
	}
	return nil, errors.New("--store " + redisurl.Redact(spec) + ": want memory, disk:DIR, pebble:DIR, or a redis://, rediss:// or redis+cluster:// URL")
}

// appendElapsed appends the summary's "; 1.2s, 2.5 M lines/s" for lines
// taken in d.
func appendElapsed(b []byte, d time.Duration, lines int64) []byte {
	b = append(b, "; "...)
	b = append(b, d.Round(time.Millisecond).String()...)
	if s := d.Seconds(); s > 0 && lines > 0 {
		b = append(b, ", "...)
		b = appendSI(b, float64(lines)/s)
		if b[len(b)-1] != ' ' {
			b = append(b, ' ')
		}
		b = append(b, "lines/s"...)
	}
	return b
}

// parseScope reads --scope: "rdn=" and registrable domains, comma-separated,
// each one under rules; msg says what is wrong.
func parseScope(v string, split hostSplit) (set map[string]bool, msg string) {
	list, ok := strings.CutPrefix(v, "rdn=")
	if !ok {
		return nil, "want rdn=DOMAIN[,DOMAIN...], not " + strconv.Quote(v)
	}
	set = map[string]bool{}
	for _, d := range strings.Split(list, ",") {
		d = strings.ToLower(strings.TrimSpace(d))
		if d == "" {
			continue
		}
		if _, rdn, _, ok := split(d); !ok || rdn != d {
			why := "not a registrable domain"
			if ok {
				why = "its registrable domain is " + rdn
			}
			return nil, strconv.Quote(d) + " is " + why + " (a public suffix plus one label: example.com, example.co.uk)"
		}
		set[d] = true
	}
	if len(set) == 0 {
		return nil, "rdn= names no domain"
	}
	return set, ""
}

// inScope reports whether the URI whose normal form is canon is in
// --scope: whether the registrable domain of the normal form's host (lower
// case, percent-decoded where unreserved, A-labels at the crawler level)
// is one of the scope's.
func (kr *keyer) inScope(canon []byte) bool {
	u, err := uriscan.Parse(canon)
	if err != nil {
		return false
	}
	_, rdn, _, ok := kr.hosts(u.Host())
	if !ok || len(rdn) > 253 {
		return false
	}
	var buf [253]byte
	for i := 0; i < len(rdn); i++ {
		c := rdn[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return kr.scope[string(buf[:len(rdn)])]
}
