package cli

import (
	"encoding/json"
	"os"
	"strconv"
)

// reports is how a run tells of invalid lines on standard error, and when
// it gives up on them: --quiet, --errors text|jsonl, --max-errors N.
type reports struct {
	quiet bool // no per-line reports
	jsonl bool // one JSON object per report
	// withFile: the run reads more than one input, so a JSON record (and
	// a TSV row) names its "file" (grep's rule for its -H).
	withFile bool
	// cmd names the command in the messages about an input ("uriscan:
	// split: a.txt: no such file or directory").
	cmd string
	max int64 // stop after this many invalid lines (0: never)
	// invalid counts the invalid lines written so far (the writer's).
	invalid int64
	// stopped is set when max was reached.
	stopped bool
	// showPasswords: --show-passwords (see redact.go).
	showPasswords bool
}

// mark is where the output, the reports and dedup's records of lines
// stood after an invalid line, in a sink (see reports.take).
type mark struct{ out, err, lines int }

// countInvalid records that the line just handled was invalid.
func (k *sink) countInvalid() {
	k.invalid = true
	k.nInvalid++
	if k.rep != nil && k.rep.max > 0 {
		k.marks = append(k.marks, mark{len(k.out), len(k.err), len(k.recs.lines)})
	}
}

// take counts the invalid lines of k, which is about to be written, and
// cuts k right after the line that reaches max; true when it did (the run
// stops).
func (r *reports) take(k *sink) bool {
	if r.max == 0 || k.nInvalid == 0 {
		r.invalid += k.nInvalid
		return false
	}
	if r.invalid+k.nInvalid < r.max {
		r.invalid += k.nInvalid
		return false
	}
	m := k.marks[r.max-r.invalid-1]
	if k.ioFail && k.ioAt >= m.err { // its message is cut: so is its status
		k.ioFail, k.inputErr = false, false
	}
	k.out, k.err, k.recs.lines = k.out[:m.out], k.err[:m.err], k.recs.lines[:m.lines]
	r.invalid, r.stopped = r.max, true
	return true
}

// stoppedMsg is said when --max-errors stopped the run.
func (r *reports) stoppedMsg() string {
	return "uriscan: stopped after " + strconv.FormatInt(r.max, 10) + " invalid lines (--max-errors)\n"
}

// appendReport appends the report of s's current, invalid line to b:
// "NAME:LINE: offset N: REASON\n", or a JSON object with --errors jsonl,
// or nothing with --quiet.
func (r *reports) appendReport(b []byte, name string, s *recordScanner) []byte {
	var rb [256]byte
	return r.appendLineReport(b, name, int64(s.Line()), s.perr.Offset, s.perr.AppendReason(rb[:0]), s.Bytes(), s.Len())
}

// appendLongLine appends the report of a line over the limit that the
// caller holds whole (head: its bytes), as appendReport words the report
// of one a LineScanner read past.
func (r *reports) appendLongLine(b []byte, name string, line int64, n, limit int, head []byte) []byte {
	var rb [128]byte
	reason := strconv.AppendInt(append(rb[:0], "line of "...), int64(n), 10)
	reason = strconv.AppendInt(append(reason, " bytes is longer than the limit of "...), int64(limit), 10)
	return r.appendLineReport(b, name, line, limit, append(reason, " bytes"...), head, int64(n))
}

// notice is a notice about input name, as reports go: "uriscan: NAME:
// TEXT", {"notice":TEXT} with --errors jsonl ("file" first by the rule of
// records), nothing with --quiet.
func (r *reports) notice(name, text string) string {
	switch {
	case r.quiet:
		return ""
	case r.jsonl:
		b := []byte("{")
		if file := r.file(name); file != "" {
			b = append(appendJSONString(append(b, `"file":`...), file), ',')
		}
		b = appendJSONString(append(b, `"notice":`...), text)
		return string(append(b, "}\n"...))
	}
	return "uriscan: " + name + ": " + text + "\n"
}

// appendLineReport appends one report of an invalid line (r nil: text):
// "NAME:LINE: offset N: REASON\n"; with --errors jsonl
// {"file","line","offset","reason"[,"input"[,"input_length"]]}, input being
// the line's first echoMax bytes (none if input is nil) and n its length;
// nothing with --quiet.
func (r *reports) appendLineReport(b []byte, name string, line int64, off int, reason, input []byte, n int64) []byte {
	switch {
	case r != nil && r.quiet:
		return b
	case r != nil && r.jsonl:
		b = appendRecordStart(b, r.file(name))
		b = strconv.AppendInt(b, line, 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, int64(off), 10)
		b = append(b, `,"reason":`...)
		b = appendJSONString(b, view(reason))
		if input != nil {
			text := input[:min(len(input), echoMax)]
			shown := shownHead(input, echoMax, int64(len(input)) < n, r.redacts())
			b = append(b, `,"input":`...)
			b = appendJSONString(b, view(shown)) // invalid UTF-8 as U+FFFD
			if n != int64(len(text)) {
				b = append(b, `,"input_length":`...)
				b = strconv.AppendInt(b, n, 10)
			}
		}
		return append(b, "}\n"...)
	}
	b = append(b, name...)
	b = append(b, ':')
	b = strconv.AppendInt(b, line, 10)
	b = append(b, ": offset "...)
	b = strconv.AppendInt(b, int64(off), 10)
	b = append(b, ": "...)
	b = append(b, reason...)
	return append(b, '\n')
}

// writeSummary writes a command's summary as one JSON object to the file
// --summary names (if any) and returns the line for standard error: the
// JSON with --errors jsonl, else text (empty: none).
func (e *env) writeSummary(file string, v any, text string) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // a struct of numbers and strings
	}
	b = append(b, '\n')
	if file != "" {
		if err := os.WriteFile(file, b, 0o644); err != nil {
			e.ioError("--summary: " + err.Error())
		}
	}
	if e.rep.jsonl {
		return string(b)
	}
	return text
}
