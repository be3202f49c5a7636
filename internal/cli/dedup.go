package cli

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/internal/redisurl"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/urikey"
)

// dedupCommand is uriscan dedup.
var dedupCommand = command{
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
	takes:   takesLines | takesPasswords | takesGrammar,
	setup:   setupDedup,
}

// defaultDedupBatch is how many records dedup decides at once: enough to
// amortize a round trip to a shared store and the syncs of --output, small
// enough to keep output flowing.
const defaultDedupBatch = 1024

// setupDedup: "uriscan dedup" writes the first line of each equivalence
// class, through package frontier, which owns the exactly-once protocol
// (batches, checkpoint, replay, truncation): --output is exactly once,
// standard output at least once. The command reads the inputs, keys each
// line (urikey.Hasher) and reports; the store is opened as a Go
// program would open it (urikey.Hasher.Params).
func setupDedup(fs *flagSet) func(*env, []string) error {
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
	workers := fs.addWorkers("; 1: one goroutine reads, keys and decides each line in turn; more: the workers parse, normalize and hash, and one goroutine decides the records in input order")
	batch := fs.Int("batch", defaultDedupBatch, "at most this many valid `lines` are decided (and committed to the store) at once; a batch also ends at each input's end, before each read that may block (with more workers than one: when the one that decides waits for input), and when it holds 1 MiB of text. Larger batches pay fewer syncs with --output (8192: about 2x the throughput)")
	fs.shared.verifyInput = fs.Bool("verify-input", true, "read each gzip, zstd or bzip2 input to its end first (every member's CRC-32 and length, every frame's and block's checksum) and take none of its lines if it is corrupt or cut short (exit 2), so that no line of a damaged archive is written or recorded in the store; a compressed stream on standard input is copied to a temporary file in $TMPDIR for it. It decompresses twice (gzip with the memory store: 0.65x the speed; see docs/dedup.md). --verify-input=false takes the lines before the damage, then reports the error") // (dispatch sets e.verifyInput)
	return func(e *env, files []string) error {
		lv, cfg, msg := nf.config(fs, "dedup")
		if msg != "" {
			return usageErr(msg, e.cmd)
		}
		if *batch < 1 {
			return usageErr("dedup: --batch must be at least 1", e.cmd)
		}
		shown := redisurl.Redact(*store)
		persistent := *store != "memory"
		if persistent && *keyFile == "" {
			return usageErr("dedup: --store "+shown+" needs --key-file: a store kept across runs only matches the hash key it was made with (make one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > key.hex)", e.cmd)
		}
		if *passFile != "" && !isRedisURL(*store) {
			return usageErr("dedup: --redis-password-file is for a Redis --store (redis://, rediss://, redis+cluster://)", e.cmd)
		}
		ckptName := *ckptFlag
		if ckptName == "" && *output != "" {
			ckptName = *output + ".checkpoint"
		}
		if *resume && ckptName == "" {
			return usageErr("dedup: --resume needs --output or --checkpoint (where the progress is recorded)", e.cmd)
		}
		if ckptName != "" && *output == "" && !persistent {
			return usageErr("dedup: --checkpoint to standard output needs a disk or Redis store: a memory set is gone after the process", e.cmd)
		}
		// The keys are of the forms as shown, passwords redacted unless
		// --show-passwords (urikey.Hasher's rule, which the store
		// records: a store made the other way is refused, not mixed).
		h, err := e.keyHasher(*keyFile, lv, cfg)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			files = []string{"-"}
		}
		// What the store records is what a Go program's hasher with the
		// same settings gives it: either's store is the other's. A memory
		// set's key is random; its checkpoint records the settings.
		params := h.Settings()
		if persistent {
			if params, err = h.Params(); err != nil {
				return errors.New("dedup: " + err.Error())
			}
		}
		d := &deduper{e: e, h: h, start: time.Now()}
		d.summaryFile = *summary
		d.kt = keyer{redacts: e.rep.redacts(), repair: *repair, raw: lv.Raw()}
		if d.kt.raw && (*repair || *extract) {
			return usageErr("dedup: --level "+lv.String()+" reads every line as its owner does: --repair and --extract do not apply", e.cmd)
		}
		if *repair && *extract {
			return usageErr("dedup: --repair and --extract do not go together (extract takes only valid URIs)", e.cmd)
		}
		tmpl, err := get.compile(e, "dedup", fs, *scope != "")
		if err != nil {
			return err
		}
		if tmpl != nil {
			switch {
			case d.kt.raw:
				return usageErr("dedup: --get takes URIs apart; --level "+lv.String()+" reads lines as its owner does", e.cmd)
			case *rebuild:
				return usageErr("dedup: --rebuild adds back the keys of --output's lines: with --get they are templates, not URIs", e.cmd)
			case !persistent && ckptName != "":
				return usageErr("dedup: a resume refills a memory set from --output's lines: with --get they are templates, not URIs (use a disk or Redis store)", e.cmd)
			}
			d.kt.get = tmpl
		}
		if *scope != "" {
			if d.kt.raw {
				return usageErr("dedup: --scope takes URIs apart; --level "+lv.String()+" reads lines as its owner does", e.cmd)
			}
			set, msg := parseScope(*scope, e.stores.NewSplit(*privateSuffixes))
			if msg != "" {
				return usageErr("dedup: --scope: "+msg, e.cmd)
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
			x, lm, err := xo.build(e, "text", nil, false)
			if err != nil {
				return err
			}
			d.kt.x, d.kt.lm = x, lm
			run["extract"] = xo.describe(x)
		} else if xo.set(fs) {
			return usageErr("dedup: --schemes, --any-scheme, --min-scheme, --log, --field, --base, --host-field, --columns and --delimiter go with --extract", e.cmd)
		}
		if *rebuild && !persistent {
			return usageErr("dedup: --rebuild is for a disk or Redis store (a memory set is rebuilt from --output anyway)", e.cmd)
		}
		if *rewind && !strings.HasPrefix(*store, "disk:") {
			return usageErr("dedup: --rewind-store cuts back a disk: store (a key log); --store "+shown+" cannot be cut back (see docs/dedup.md, \"Backups\")", e.cmd)
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
					return errors.New("dedup: " + err.Error())
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
				return errors.New("dedup: " + perr.Error())
			}
			so.Password = pw
		}
		set, err := e.stores.open(*store, *prefix, params, so)
		if err != nil {
			// The store's errors name it (password redacted).
			return errors.New("dedup: " + storeMessage(err, shown) + e.stores.advice(err, *output, resuming))
		}
		d.set = set
		// With workers and a set in memory, the workers decide their
		// chunks in turn (recordTaker.decide), and the Log takes the decisions.
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
			return errors.New(msg)
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
			d.resume = inputPos{File: st.Input, Offset: st.Offset, Line: st.Line}
		}
		e.finish = d.finish
		// Before a read that may block, settle the batch so output keeps up
		// with a slow input ("tail -f log | uriscan dedup"). With one
		// worker that is before each read of the input; with more, before
		// the writer waits for the reader (see lineio.Host's Idle), which on
		// files is rarely. So batches end at --batch records, at each
		// input's end, before such a wait, and when they hold
		// dedupTextMax bytes of text (see feed). With workers, where they
		// end depends on timing; the output does not: a record is written
		// if no record before it has its key, in this batch or in the set,
		// wherever batches end. The checkpoints do depend on it, and a
		// resume replays what its checkpoint records, whatever the
		// workers of either run.
		e.sc.beforeRead = func() { d.commit(); e.flush() }
		d.decided = decided
		d.memory = !persistent
		d.growAt = growFirst
		e.taker = d
		d.kt.sums = d.log.Sums()
		newFn := func() lineFn { return d.newKeyer().line }
		var code int
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
		return statusErr(code)
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
	h     *urikey.Hasher
	// kt is the keyer each goroutine that keys lines copies (newKeyer).
	kt keyer
	// summaryFile is --summary.
	summaryFile string
	ckptName    string
	output      string   // --output
	inputs      []string // the inputs ("-": standard input)
	// resume is where the input begins (a resumed run's: the Log's
	// Start).
	resume inputPos
	// failed: an input error was reported since the last endFile.
	failed bool
	// decided: the set is in memory and the workers decide the chunks in
	// input order (recordTaker.decides).
	decided bool
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

// dedupRecs is what keyers made of lines, in a sink, for the Log: the
// records (record i's text is the sink's out[ends[i-1]:ends[i]]) and the
// lines.
type dedupRecs struct {
	keys  []seen.Key
	ends  []int
	lines []dedupLine
	// isNew holds the records' decisions once decided (recordTaker.decide).
	isNew   []bool
	decided bool
}

func (r *dedupRecs) reset() {
	r.keys, r.ends, r.lines, r.isNew, r.decided = r.keys[:0], r.ends[:0], r.lines[:0], r.isNew[:0], false
}

// trim drops the buffers of r that grew past max bytes (a long line's
// records), as the engine drops an output buffer (see lineio's keepBig).
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
