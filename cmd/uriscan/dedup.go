package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/disk"
	redisstore "github.com/uriscan/uriscan/seen/redis"
)

// defaultDedupBatch is how many records dedup decides at once: enough to
// amortize a round trip to a shared store and the syncs of --output, small
// enough to keep output flowing.
const defaultDedupBatch = 1024

// setupDedup: "uriscan dedup" writes the first line of each equivalence
// class.
//
// Each batch of lines goes through four steps, in this order: (1) ask the
// store which keys it holds (read-only); (2) write the new lines, flush,
// and with --output sync the file; (3) with a checkpoint, record where the
// input is decided up to and the output's length; (4) add the new keys to
// the store. A kill between any two steps loses nothing: before (3) the
// batch is not decided (its keys are not in the store, and a restart
// truncates --output to the last checkpoint's length), after it a restart
// adds the batch's keys again. So --output is exactly once, and standard
// output at least once (a kill may repeat the last batch's lines). See
// checkpoint.
func setupDedup(fs *flag.FlagSet) func(*env, []string) int {
	store := fs.String("store", "memory", "where the seen-set lives: `memory`, disk:DIR, redis://[USER:PASS@]HOST[:PORT][/DB] (rediss:// for TLS), redis://HOST:PORT,HOST:PORT... or redis+cluster://... for a Redis Cluster")
	prefix := fs.String("store-prefix", "", "`prefix` of the Redis keys of the set (default "+redisstore.DefaultPrefix+")")
	nf := addNormFlags(fs)
	repair := fs.Bool("repair", false, "percent-encode what strict RFC 3986 rejects in an invalid line, as browsers do, and take the result (reported on standard error; the repaired form is written)")
	keyFile := fs.String("key-file", "", "`file` with the 32-byte hash key as 64 hex digits; required with a disk or Redis store, the same every run (default: random, memory only)")
	output := fs.String("output", "", "write the new lines to `FILE`, exactly once across kills and restarts (progress in FILE.checkpoint; a rerun resumes), instead of standard output")
	ckptFlag := fs.String("checkpoint", "", "record the progress in `FILE` after every batch, for --resume (default with --output: FILE.checkpoint)")
	resume := fs.Bool("resume", false, "continue from --checkpoint instead of the top of the input (automatic with --output)")
	rebuild := fs.Bool("rebuild", false, "take a disk or Redis store that lost keys it had recorded (emptied, deleted, replaced, restored from an older copy: a run is refused) as it is, and when resuming --output add back the keys of the lines it holds and go on; keys of other runs' outputs are not added back")
	summary := fs.String("summary", "", "also write the summary to `FILE`, as one JSON object")
	extract := fs.Bool("extract", false, "take the URIs found in each line (as uriscan extract finds them: logs, free text) instead of the line itself")
	schemes := fs.String("schemes", "http,https", "with --extract, the `schemes` that count, comma-separated")
	batch := fs.Int("batch", defaultDedupBatch, "at most this many valid `lines` are decided (and committed to the store) at once; a batch also ends at each input's end and before each read that may block. Larger batches pay fewer syncs with --output (8192: about 2x the throughput)")
	fs.Bool("verify-input", true, "read each gzip or zstd input to its end first (every member's CRC-32 and length, every frame's checksum) and take none of its lines if it is corrupt or cut short (exit 2), so that no line of a damaged archive is written or recorded in the store; a compressed stream on standard input is copied to a temporary file in $TMPDIR for it. It decompresses twice (gzip with the memory store: 0.65x the speed; see the README). --verify-input=false takes the lines before the damage, then reports the error") // read by dispatch into e.verifyInput
	return func(e *env, files []string) int {
		lv, cfg, msg := nf.config(fs, "dedup")
		if msg != "" {
			return e.usageError(msg, e.cmd)
		}
		if *batch < 1 {
			return e.usageError("dedup: --batch must be at least 1", e.cmd)
		}
		shown := redisstore.RedactURL(*store)
		persistent := *store != "memory"
		if persistent && *keyFile == "" {
			return e.usageError("dedup: --store "+shown+" needs --key-file: a store kept across runs only matches the hash key it was made with (make one with: head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \\n' > key.hex)", e.cmd)
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
		h, code := e.hasher(*keyFile, lv)
		if h == nil {
			return code
		}
		configure(h, cfg)
		// The keys are of the forms as shown, passwords redacted unless
		// --show-passwords (normalize.Hasher's rule, which the store
		// records: a store made the other way is refused, not mixed).
		h.KeepPasswords(!e.rep.redacts())
		h.SetGrammar(e.sc.grammar)
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
		d := &deduper{e: e, h: h, batchMax: *batch, out: e.out, ckptName: ckptName,
			ckpt: checkpoint{Version: checkpointVersion, Store: shown, Params: params, Inputs: files, Output: *output, MaxLine: e.sc.ls.MaxLine()}}
		d.summaryFile = *summary
		d.repair = *repair
		d.raw = lv.Raw()
		if d.raw && (*repair || *extract) {
			return e.usageError("dedup: --level "+lv.String()+" reads every line as its owner does: --repair and --extract do not apply", e.cmd)
		}
		if *repair && *extract {
			return e.usageError("dedup: --repair and --extract do not go together (extract takes only valid URIs)", e.cmd)
		}
		d.ckpt.Repair = *repair
		e.textLines = *extract
		if *extract {
			d.x = &uriscan.Extractor{}
			for _, s := range strings.Split(*schemes, ",") {
				if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
					d.x.Schemes = append(d.x.Schemes, s)
				}
			}
			if len(d.x.Schemes) == 0 {
				return e.usageError("dedup: --schemes names no scheme", e.cmd)
			}
			d.ckpt.Extract = strings.Join(d.x.Schemes, ",")
		} else if isFlagSet(fs, "schemes") {
			return e.usageError("dedup: --schemes goes with --extract", e.cmd)
		}
		if *rebuild && !persistent {
			return e.usageError("dedup: --rebuild is for a disk or Redis store (a memory set is rebuilt from --output anyway)", e.cmd)
		}
		d.rebuildStore = *rebuild
		// A checkpoint that recorded a store's stamp says a store was
		// there: a disk store is not made anew where it is gone.
		var prev checkpoint
		resuming := false
		if ckptName != "" {
			prev, resuming, _ = readCheckpoint(ckptName) // (its errors are open's to report)
		}
		set, err := openStore(*store, *prefix, params, storeOptions{recover: *rebuild, mustExist: resuming && prev.StoreStamp != nil && !*rebuild})
		if err != nil {
			// The store's errors name it (password redacted).
			e.ioError("dedup: " + storeMessage(err, shown) + storeAdvice(err, *output, resuming))
			e.flush()
			return exitUsage
		}
		d.set = set
		if err := d.open(*output, *resume || *output != ""); err != nil {
			set.Close()
			d.unlock()
			e.ioError("dedup: " + err.Error())
			e.flush()
			return exitUsage
		}
		e.finish = d.finish
		e.onInputError = func(msg string) {
			d.ckpt.Failed = append(d.ckpt.Failed, msg)
			d.inputFailed = true
		}
		// Before a read that may block, settle the batch so output keeps up
		// with a slow input ("tail -f log | uriscan dedup").
		e.sc.beforeRead = func() { d.flush(); e.flush() }
		e.endFile = d.endFile
		code = e.eachRecord(files, d.record)
		d.flush()
		if d.err == nil && !e.stopped() && !e.halt && e.werr == nil {
			d.ckpt.Done = true
			d.saveCheckpoint()
		}
		d.finish()
		e.flush()
		if d.err != nil || d.werr != nil || e.ioFail {
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
	Repaired   int64  `json:"repaired,omitempty"` // with --repair: taken repaired
	URIs       *int64 `json:"uris,omitempty"`     // with --extract
	Unique     int64  `json:"unique"`
	Duplicates int64  `json:"duplicates"`
	Resumed    bool   `json:"resumed"`
}

// deduper decides a dedup run's lines, a batch at a time.
type deduper struct {
	e        *env
	set      seen.Set
	h        *normalize.Hasher
	batchMax int

	// The batch: keys of its valid lines, their text (each ending in
	// "\n", line i is text[ends[i-1]:ends[i]]), and its other lines.
	keys    []seen.Key
	text    []byte
	ends    []int
	pending dedupCounts // the batch's lines, blank and invalid
	// x, with --extract, finds the URIs in a line (ms: its matches).
	x  *uriscan.Extractor
	ms []uriscan.Match
	// repair (--repair) takes invalid lines in their repaired form.
	repair   bool
	fixed    []byte
	fixedURI uriscan.URI
	fixedRep normalize.Repairs
	redacted []byte // key's scratch
	raw      bool   // the level is Raw: lines go to rawKey
	rawErr   string // why rawKey refused the last line
	// summaryFile is --summary.
	summaryFile string
	// rebuildStore (--rebuild): a store that lost keys gets --output's
	// keys back on resume.
	rebuildStore bool
	// inputFailed: an input error was reported since the last endFile.
	inputFailed bool
	has         []bool
	newKeys     []seen.Key
	inBatch     map[seen.Key]struct{}

	counts dedupCounts // decided lines
	digest batchDigest // of the batch's lines (or the replayed ones), with a checkpoint
	pos    inputPos    // the input is read and handled up to here
	start  inputPos    // where the batch starts (the last checkpoint's Next)

	// Resuming: the lines up to replayTo were decided by the run before;
	// their keys are added again (replay) and nothing is written.
	replaying    bool
	replayTo     inputPos
	replayDigest string // the checkpoint's BatchDigest
	replay       []seen.Key
	resumed      bool

	out      *bufio.Writer // where the new lines go
	file     *os.File      // --output, or nil
	lockFile *os.File      // holds the lock (see lock)
	outLen   int64         // bytes of the output file decided
	ckptName string        // "" for no checkpoint
	ckpt     checkpoint

	err, werr error  // a store or checkpoint error, an output error: the run stops
	failedAt  string // what failed
	finished  bool
}

// open prepares the output and, when resuming, the position: the
// checkpoint says where the input is decided up to; the output file is
// cut to the length it records; a memory set gets the output's keys back.
func (d *deduper) open(output string, resume bool) error {
	if err := d.lock(output); err != nil {
		return err
	}
	var c checkpoint
	found := false
	if d.ckptName != "" {
		var err error
		if c, found, err = readCheckpoint(d.ckptName); err != nil {
			return err
		}
		if found && !resume {
			return fmt.Errorf("--checkpoint %s exists: pass --resume to continue from it, or remove it to start over", d.ckptName)
		}
		if found {
			if why := c.matches(&d.ckpt); why != "" {
				return fmt.Errorf("checkpoint %s does not belong to this run: %s (remove it to start over)", d.ckptName, why)
			}
		}
	}
	// Before anything is changed: is the store still the one the
	// checkpoint was made against?
	rebuild := false
	if found {
		var err error
		if rebuild, err = d.checkStore(output, c); err != nil {
			return err
		}
	}
	if output != "" {
		f, err := os.OpenFile(output, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		switch {
		case !found && fi.Size() > 0:
			f.Close()
			return fmt.Errorf("--output %s exists and has no checkpoint %s: not overwriting it (remove it, or choose another file)", output, d.ckptName)
		case found && fi.Size() < c.OutputLength:
			f.Close()
			return fmt.Errorf("--output %s has %d bytes, its checkpoint %s says %d were written: the file was changed; remove both to start over (with a new store: a disk or Redis one still holds their keys)", output, fi.Size(), d.ckptName, c.OutputLength)
		}
		if err := f.Truncate(c.OutputLength); err != nil { // 0 without a checkpoint
			f.Close()
			return err
		}
		if _, err := f.Seek(c.OutputLength, io.SeekStart); err != nil {
			f.Close()
			return err
		}
		d.file, d.outLen = f, c.OutputLength
		d.out = bufio.NewWriterSize(f, writeBufSize)
		if _, ok := d.set.(*seen.Memory); ok && found || rebuild {
			if err := d.rebuild(output, c.OutputLength); err != nil {
				return err
			}
		}
	}
	if !found {
		if d.ckptName != "" {
			// Recorded before anything is written: a restart always finds
			// it or an empty output.
			d.saveCheckpoint()
		}
		return d.err
	}
	d.resumed = true
	d.counts, d.start, d.pos = c.Counts, c.Next, c.Next
	// What the runs before found keeps its exit status.
	d.e.invalid = c.Counts.Invalid > 0
	for _, msg := range c.Failed {
		d.e.ioError("dedup: (before the resume) " + msg)
	}
	d.ckpt.Failed = c.Failed
	d.e.start = c.Batch
	if c.Batch.before(c.Next) {
		d.replaying, d.replayTo, d.replayDigest = true, c.Next, c.BatchDigest
		d.pos = c.Batch
	}
	d.ckpt.OutputLength, d.ckpt.Counts, d.ckpt.Batch, d.ckpt.Next = c.OutputLength, c.Counts, c.Batch, c.Next
	return nil
}

// checkStore compares a disk or Redis store with the stamp the checkpoint
// c recorded: a store that is not that one, or holds fewer keys, would
// answer "new" for lines written before. It is refused; with --rebuild
// the keys of the output's lines are to be added back (rebuild), always:
// a store opened with --rebuild was taken as it is, and may have lost
// fewer keys than the last batch added, which no count shows.
func (d *deduper) checkStore(output string, c checkpoint) (rebuild bool, err error) {
	st, ok := d.set.(seen.Stamped)
	if !ok || c.StoreStamp == nil {
		return false, nil // a memory set is rebuilt anyway; an earlier checkpoint has no stamp
	}
	err = st.Check(*c.StoreStamp)
	if err != nil && !errors.Is(err, seen.ErrLost) {
		return false, err
	}
	switch {
	case !d.rebuildStore && err != nil:
		return false, fmt.Errorf("%v\nuriscan: dedup: the checkpoint %s records a run against the store as it was: %s", err, d.ckptName, lostAdvice(output, true))
	case !d.rebuildStore:
		return false, nil
	case err != nil:
		fmt.Fprintf(d.e.errw, "uriscan: dedup: %v\n", err)
	}
	if output == "" {
		return false, nil // --checkpoint to standard output: nothing to add back
	}
	fmt.Fprintf(d.e.errw, "uriscan: dedup: --rebuild: adding back the keys of the %d bytes of --output %s\n", c.OutputLength, output)
	return true, nil
}

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

// storeMessage is err from opening the store --store shown, in the
// command's terms where the library's would not do: the settings a store
// was made with are the flags that make them.
func storeMessage(err error, shown string) string {
	var pe *seen.ParamsError
	if errors.As(err, &pe) {
		stored, given := paramFlags(pe.Stored), paramFlags(pe.Given)
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
	case errors.Is(err, disk.ErrDamaged):
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

// lock keeps two runs from sharing an output or a checkpoint: it locks
// the output file, or a file beside the checkpoint, until the process
// ends.
func (d *deduper) lock(output string) error {
	name := output
	if name == "" {
		if d.ckptName == "" {
			return nil
		}
		name = d.ckptName + ".lock"
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	held, err := lockFile(f)
	if err != nil || held {
		f.Close()
		if held {
			return fmt.Errorf("%s is in use by another uriscan dedup", name)
		}
		return fmt.Errorf("locking %s: %w", name, err)
	}
	d.lockFile = f
	return nil
}

// unlock releases the lock, after the output is closed.
func (d *deduper) unlock() {
	if d.lockFile != nil {
		d.lockFile.Close()
		d.lockFile = nil
	}
}

// rebuild adds the keys of the first n bytes of the output file to a
// memory set: what the run before had seen.
func (d *deduper) rebuild(name string, n int64) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	var ls uriscan.LineScanner
	ls.Reset(io.LimitReader(f, n))
	ls.SetMaxLine(d.e.sc.ls.MaxLine())
	var keys []seen.Key
	for ls.Scan() {
		if d.raw {
			k, ok := d.rawKey(ls.Bytes())
			if !ok {
				return fmt.Errorf("--output %s: line %d is refused by --level %s: the file was changed; remove it and its checkpoint to start over", name, ls.Line(), d.h.Level())
			}
			keys = append(keys, k)
		} else if g := d.e.sc.grammar; g != uriscan.RFC3986 {
			u, err := g.Parse(ls.Bytes())
			if err != nil {
				return fmt.Errorf("--output %s: line %d is not a URI-reference by %s: the file was changed; remove it and its checkpoint to start over", name, ls.Line(), g)
			}
			keys = append(keys, d.key(&u))
		} else if !ls.Valid() {
			return fmt.Errorf("--output %s: line %d is not a URI-reference: the file was changed; remove it and its checkpoint to start over", name, ls.Line())
		} else {
			keys = append(keys, d.key(ls.URI()))
		}
		if len(keys) == 8192 {
			if err := d.set.Insert(keys); err != nil {
				return err
			}
			keys = keys[:0]
		}
	}
	if err := ls.Err(); err != nil {
		return err
	}
	return d.set.Insert(keys)
}

// key is the seen-set key of u: the digest of its normal form as the
// output shows it, the password redacted unless --show-passwords (the
// hasher's rule: two URIs that differ only in their password, written the
// same, are one; and the key of a line read back from --output after a
// crash is the key it was written with).
func (d *deduper) key(u *uriscan.URI) seen.Key { return seen.Key(d.h.Sum(u)) }

// rawKey is key at a Raw level (safebrowsing, w3lib), for any line: the
// digest of its owner's canonical form as shown; false, with the reason
// in d.rawErr, when the owner refuses the line.
func (d *deduper) rawKey(text []byte) (seen.Key, bool) {
	sum, err := d.h.SumRaw(text)
	if err != nil {
		d.rawErr = strings.TrimPrefix(err.Error(), "normalize: ")
		return seen.Key{}, false
	}
	return seen.Key(sum), true
}

// record takes one input line.
func (d *deduper) record(name string, s *recordScanner) {
	pos := inputPos{File: d.e.fileIdx, Offset: s.ls.NextOffset(), Line: s.Line()}
	blank := s.Len() == 0
	if d.ckptName != "" {
		d.digest.add(s.Bytes())
	}
	if d.replaying {
		switch {
		case d.x != nil:
			if _, long := s.ls.TooLong(); !long {
				d.ms = d.x.Append(d.ms[:0], s.Bytes())
				for _, m := range d.ms {
					u, _ := uriscan.Parse(s.Bytes()[m.Start:m.End])
					d.replay = append(d.replay, d.key(&u))
				}
			}
		case d.raw && !blank:
			if _, long := s.ls.TooLong(); !long {
				if k, ok := d.rawKey(s.Bytes()); ok {
					d.replay = append(d.replay, k)
				}
			}
		case s.ParseError() == nil && !blank:
			d.replay = append(d.replay, d.key(s.URI()))
		case d.repair && s.ParseError() != nil && d.repairLine(s):
			d.replay = append(d.replay, d.key(&d.fixedURI))
		}
		d.pos = pos
		if !pos.before(d.replayTo) {
			d.endReplay()
		}
		return
	}
	d.pos = pos
	d.pending.Lines++
	_, long := s.ls.TooLong()
	switch {
	case blank:
		d.pending.Blank++
	case d.x != nil && !long:
		// The URIs in the line, each a record (valid: Extract parses them).
		d.ms = d.x.Append(d.ms[:0], s.Bytes())
		for _, m := range d.ms {
			b := s.Bytes()[m.Start:m.End]
			u, _ := uriscan.Parse(b)
			d.pending.URIs++
			d.keys = append(d.keys, d.key(&u))
			d.text = appendURI(d.text, &u, d.e.rep.redacts())
			d.text = append(d.text, '\n')
			d.ends = append(d.ends, len(d.text))
		}
		if len(d.keys) >= d.batchMax {
			d.flush()
		}
	case d.raw && !long:
		// A Raw level reads any line as its owner does.
		k, ok := d.rawKey(s.Bytes())
		if !ok {
			s.perr = rawInvalid
			d.pending.Invalid++
			d.e.errw.Write(d.e.rep.appendLineReport(nil, name, int64(s.Line()), 0, []byte(d.rawErr), s.Bytes(), s.Len()))
			break
		}
		s.perr = nil
		d.keys = append(d.keys, k)
		d.text = append(d.text, shownBytes(s.Bytes(), d.e.rep.redacts())...)
		d.text = append(d.text, '\n')
		d.ends = append(d.ends, len(d.text))
		if len(d.keys) >= d.batchMax {
			d.flush()
		}
	case s.ParseError() != nil && d.repaired(name, s):
		// Taken in its repaired form (and still invalid for the exit
		// status, as normalize --repair).
		d.pending.Repaired++
		d.keys = append(d.keys, d.key(&d.fixedURI))
		d.text = appendURI(d.text, &d.fixedURI, d.e.rep.redacts())
		d.text = append(d.text, '\n')
		d.ends = append(d.ends, len(d.text))
		if len(d.keys) >= d.batchMax {
			d.flush()
		}
	case s.ParseError() != nil: // (with --extract, only a line over the limit)
		d.pending.Invalid++
		d.e.reportLine(name, s)
	default:
		d.keys = append(d.keys, d.key(s.URI()))
		d.text = appendURI(d.text, s.URI(), d.e.rep.redacts())
		d.text = append(d.text, '\n')
		d.ends = append(d.ends, len(d.text))
		if len(d.keys) >= d.batchMax {
			d.flush()
		}
	}
}

// repairLine, with --repair, repairs s's invalid line into d.fixed and
// parses it into d.fixedURI; false when it is not repaired (a line over
// the limit, or one Repair cannot mend).
func (d *deduper) repairLine(s *recordScanner) bool {
	if !d.repair {
		return false
	}
	if _, long := s.ls.TooLong(); long || d.x != nil {
		return false
	}
	var rep normalize.Repairs
	d.fixed, rep = normalize.Repair(d.fixed[:0], s.Bytes())
	u, err := uriscan.Parse(d.fixed)
	if err != nil {
		return false
	}
	d.fixedURI, d.fixedRep = u, rep
	return true
}

// repaired is repairLine, reporting the repair on standard error.
func (d *deduper) repaired(name string, s *recordScanner) bool {
	if !d.repairLine(s) {
		return false
	}
	if !d.e.rep.quiet {
		d.e.errw.Write(appendRepair(nil, name, s.Line(), d.fixedRep, d.e.rep.jsonl))
	}
	return true
}

// endReplay adds the replayed keys: the last batch of the run before,
// whose keys may not have reached the store.
func (d *deduper) endReplay() {
	d.replaying = false
	if d.pos != d.replayTo {
		d.fail("resume", fmt.Errorf("the input does not match the checkpoint: a line ends at %s:%d offset %d, the checkpoint at line %d offset %d",
			d.inputName(d.pos.File), d.pos.Line, d.pos.Offset, d.replayTo.Line, d.replayTo.Offset))
		return
	}
	if got := d.digest.String(); got != d.replayDigest {
		d.fail("resume", fmt.Errorf("the input changed since the checkpoint: the lines from %s:%d to %d differ from the ones it recorded (remove the checkpoint to start over)",
			d.inputName(d.pos.File), d.ckpt.Batch.Line+1, d.replayTo.Line))
		return
	}
	d.digest = batchDigest{}
	if err := d.set.Insert(d.replay); err != nil {
		d.fail("store", err)
	}
	d.replay = nil
}

// endFile ends a batch at the end of each input, so a batch never spans
// two.
func (d *deduper) endFile() {
	failed := d.inputFailed
	d.inputFailed = false
	if d.replaying {
		switch {
		case failed:
			// (Reported above: unreadable, or it failed --verify-input.)
			d.fail("resume", fmt.Errorf("%s could not be read up to the checkpoint's position (line %d, offset %d), so the batch the checkpoint ends with cannot be replayed; rerun once it can be read", d.inputName(d.e.fileIdx), d.replayTo.Line, d.replayTo.Offset))
		case !d.e.stopped() && !d.e.halt && d.e.sc.Err() == nil:
			d.fail("resume", fmt.Errorf("%s ended before the checkpoint's position (line %d, offset %d)", d.inputName(d.e.fileIdx), d.replayTo.Line, d.replayTo.Offset))
		}
		return
	}
	d.flush()
	// The next input starts at its top.
	if d.err == nil && d.werr == nil && d.e.fileIdx+1 < len(d.ckpt.Inputs) {
		d.pos = inputPos{File: d.e.fileIdx + 1}
		d.start = d.pos
	}
}

// fail stops the run on a store, checkpoint or resume error.
func (d *deduper) fail(what string, err error) {
	if d.err == nil && d.werr == nil {
		d.err, d.failedAt = err, what
	}
	d.e.halt = true
}

// flush decides the batch: which lines are new (the store's answer and
// the batch's own repeats), writes them, records the checkpoint, then adds
// their keys to the store.
func (d *deduper) flush() {
	if d.err != nil || d.werr != nil || d.replaying {
		return
	}
	d.newKeys = d.newKeys[:0]
	if len(d.keys) > 0 {
		if cap(d.has) < len(d.keys) {
			d.has = make([]bool, len(d.keys), max(len(d.keys), d.batchMax))
		}
		d.has = d.has[:len(d.keys)]
		if err := d.set.Contains(d.keys, d.has); err != nil {
			d.fail("store", err)
			return
		}
		if d.inBatch == nil {
			d.inBatch = make(map[seen.Key]struct{}, d.batchMax)
		}
		clear(d.inBatch)
		start, written := 0, int64(0)
		for i, end := range d.ends {
			k := d.keys[i]
			if _, dup := d.inBatch[k]; !d.has[i] && !dup {
				d.inBatch[k] = struct{}{}
				d.newKeys = append(d.newKeys, k)
				d.out.Write(d.text[start:end])
				written += int64(end - start)
			}
			start = end
		}
		if err := d.syncOutput(); err != nil {
			d.werr, d.failedAt = err, "output"
			d.e.halt = true
			return
		}
		d.outLen += written
		d.pending.Unique += int64(len(d.newKeys))
	} else if d.pending.Lines == 0 {
		return // nothing read since the last checkpoint
	}
	before := d.counts
	d.counts.Lines += d.pending.Lines
	d.counts.Blank += d.pending.Blank
	d.counts.Invalid += d.pending.Invalid
	d.counts.Repaired += d.pending.Repaired
	d.counts.URIs += d.pending.URIs
	d.counts.Unique += d.pending.Unique
	d.ckpt.Batch, d.ckpt.Next, d.ckpt.BatchDigest = d.start, d.pos, d.digest.String()
	d.saveCheckpoint()
	if d.err != nil {
		// Not recorded, so not decided: a rerun decides it again.
		d.counts = before
		return
	}
	d.pending = dedupCounts{}
	d.digest = batchDigest{}
	if len(d.newKeys) > 0 {
		if err := d.set.Insert(d.newKeys); err != nil {
			d.fail("store", err)
		}
	}
	d.start = d.pos
	d.keys, d.text, d.ends = d.keys[:0], d.text[:0], d.ends[:0]
}

// syncOutput flushes the new lines, and syncs an --output file.
func (d *deduper) syncOutput() error {
	if err := d.out.Flush(); err != nil {
		return err
	}
	if d.file != nil {
		return d.file.Sync()
	}
	return nil
}

// saveCheckpoint records the progress, if there is a checkpoint.
func (d *deduper) saveCheckpoint() {
	if d.ckptName == "" {
		return
	}
	d.ckpt.OutputLength, d.ckpt.Counts = d.outLen, d.counts
	if st, ok := d.set.(seen.Stamped); ok {
		// The keys of the batches before this one are in the store.
		stamp := st.Stamp()
		d.ckpt.StoreStamp = &stamp
	}
	if err := d.ckpt.write(d.ckptName); err != nil {
		d.fail("checkpoint", err)
	}
}

// finish closes the store and the output and prints the summary; once.
func (d *deduper) finish() {
	if d.finished {
		return
	}
	d.finished = true
	if err := d.set.Close(); err != nil && d.err == nil {
		d.fail("store", err)
	}
	if d.file != nil {
		if err := d.file.Close(); err != nil && d.werr == nil && d.err == nil {
			d.werr, d.failedAt = err, "output"
		}
	}
	d.unlock()
	e := d.e
	c := d.counts
	var b []byte
	b = append(b, "uriscan: dedup: lines "...)
	b = strconv.AppendInt(b, c.Lines, 10)
	b = append(b, ", blank "...)
	b = strconv.AppendInt(b, c.Blank, 10)
	b = append(b, ", invalid "...)
	b = strconv.AppendInt(b, c.Invalid, 10)
	if c.Repaired > 0 {
		b = append(b, ", repaired "...)
		b = strconv.AppendInt(b, c.Repaired, 10)
	}
	records := c.Lines - c.Blank - c.Invalid
	if d.x != nil {
		b = append(b, ", uris "...)
		b = strconv.AppendInt(b, c.URIs, 10)
		records = c.URIs
	}
	b = append(b, ", unique "...)
	b = strconv.AppendInt(b, c.Unique, 10)
	b = append(b, ", duplicates "...)
	b = strconv.AppendInt(b, records-c.Unique, 10)
	if d.resumed {
		b = append(b, " (resumed from "...)
		b = append(b, d.ckptName...)
		b = append(b, ')')
	}
	b = append(b, '\n')
	sum := dedupSummary{Command: "dedup", Lines: c.Lines, Blank: c.Blank, Invalid: c.Invalid, Repaired: c.Repaired, Unique: c.Unique, Duplicates: records - c.Unique, Resumed: d.resumed}
	if d.x != nil {
		sum.URIs = &c.URIs
	}
	e.finalLine = e.writeSummary(d.summaryFile, sum, string(b))
	if err := errors.Join(d.err, d.werr); err != nil {
		name := d.inputName(d.start.File)
		undecided := d.pending.Lines
		msg := fmt.Sprintf("dedup: %s: %v\nuriscan: dedup: stopped: the input is decided up to %s:%d; %d lines read after it were not decided, and the rest of the input was not read",
			d.failedAt, err, name, d.start.Line, undecided)
		switch {
		case errors.Is(err, seen.ErrLost):
			msg += "; " + lostAdvice(d.ckpt.Output, d.ckptName != "")
		case d.ckptName != "":
			msg += "; rerun with --resume (automatic with --output) to continue"
		}
		e.ioError(msg)
	}
}

// inputName names input i for messages.
func (d *deduper) inputName(i int) string {
	if i >= len(d.ckpt.Inputs) || d.ckpt.Inputs[i] == "-" {
		return stdinName
	}
	return d.ckpt.Inputs[i]
}

// openStore opens the seen-set a --store value names, recording or
// checking params in a persistent one.
func openStore(spec, prefix string, params seen.Params, so storeOptions) (seen.Set, error) {
	switch {
	case spec == "memory":
		return seen.NewMemory(1 << 16), nil
	case strings.HasPrefix(spec, "disk:"):
		return openDiskStore(spec[5:], params, so)
	case isRedisURL(spec):
		return redisstore.OpenURL(spec, &redisstore.Options{Prefix: prefix, Params: params, Recover: so.recover})
	}
	return nil, errors.New("--store " + redisstore.RedactURL(spec) + ": want memory, disk:DIR, or a redis://, rediss:// or redis+cluster:// URL")
}
