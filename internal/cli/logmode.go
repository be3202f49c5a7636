package cli

import (
	"bytes"
	"strconv"
	"strings"
	"unsafe"

	"github.com/uriscan/uriscan"
	getfmt "github.com/uriscan/uriscan/format"
	"github.com/uriscan/uriscan/logformat"
)

// stringsFlag is a repeatable flag: each use adds a value.
type stringsFlag []string

func (f *stringsFlag) String() string { return strings.Join(*f, ",") }

func (f *stringsFlag) Set(v string) error {
	*f = append(*f, v)
	return nil
}

// logMode is extract --log: each line is a log line, and only its fields
// are searched. For the Combined Log Format (logformat.ParseCombined):
// the request target is one URI-reference (origin-form "/a?b" resolved
// against --base when given, absolute-form "http://h/a" as it is), so is
// the referer; the user agent, and a request line of another shape, are
// searched as free text. For JSON Lines (logformat.JSONField): each --field
// string is searched as free text. For delimited lines (logformat.Columns):
// each --columns column is searched as free text. A line that is not in the
// format is reported (line, offset, why) and makes the exit status 1; a
// blank line is skipped.
type logMode struct {
	kind      string // "combined", "jsonl" or "columns"
	paths     []string
	columns   string // --columns LIST
	delimiter string // --delimiter
	cols      *logformat.Columns
	format    string
	x         *uriscan.Extractor // the schemes and options
	base      *uriscan.URI
	hostPath  string         // --host-field, or ""
	get       *getfmt.Format // --get, or nil
}

// check validates the flags: a usage error when they are wrong.
func (lm *logMode) check(e *env, base string) error {
	if lm.kind != "columns" && (lm.columns != "" || lm.delimiter != "") {
		return usageErr(e.cmd.name+": --columns and --delimiter go with --log columns", e.cmd)
	}
	if lm.kind != "jsonl" && lm.hostPath != "" {
		return usageErr(e.cmd.name+": --host-field goes with --log jsonl", e.cmd)
	}
	switch lm.kind {
	case "combined":
		if len(lm.paths) > 0 {
			return usageErr(e.cmd.name+": --field goes with --log jsonl", e.cmd)
		}
	case "columns":
		if len(lm.paths) > 0 || base != "" {
			return usageErr(e.cmd.name+": --field and --base do not go with --log columns (--columns LIST picks the columns)", e.cmd)
		}
		if lm.columns == "" {
			return usageErr(e.cmd.name+": --log columns needs --columns LIST", e.cmd)
		}
		sep, ok := delimiterByte(lm.delimiter)
		if !ok {
			return usageErr(e.cmd.name+": --delimiter must be one byte other than a newline, or \\t for a tab, not "+strconv.Quote(lm.delimiter), e.cmd)
		}
		c, err := logformat.ParseColumns(sep, lm.columns)
		if err != nil {
			return usageErr(e.cmd.name+": --columns: "+err.Error(), e.cmd)
		}
		lm.cols = c
	case "jsonl":
		if len(lm.paths) == 0 {
			return usageErr(e.cmd.name+": --log jsonl needs --field PATH", e.cmd)
		}
		if lm.hostPath != "" && base == "" {
			return usageErr(e.cmd.name+": --host-field needs --base (its scheme; the host comes from the field)", e.cmd)
		}
		paths := lm.paths
		if lm.hostPath != "" {
			paths = append(paths[:len(paths):len(paths)], lm.hostPath)
		}
		for _, p := range paths {
			if _, _, err := logformat.JSONField(nil, nil, []byte("{}"), p); err != nil {
				return usageErr(e.cmd.name+": --field "+strconv.Quote(p)+": "+err.Error(), e.cmd)
			}
		}
	default:
		return usageErr(e.cmd.name+": --log must be combined, jsonl or columns, not "+strconv.Quote(lm.kind), e.cmd)
	}
	if base != "" {
		b, err := uriscan.ParseString(base)
		if err != nil || !b.IsAbsolute() {
			return usageErr(e.cmd.name+": --base "+strconv.Quote(shownArg(base, e.rep.redacts()))+" is not an absolute URI", e.cmd)
		}
		lm.base = &b
	}
	return nil
}

// longLine makes the handler of a line over --max-line (the reader's own
// streaming scanner reads past it): it is reported, as the line commands
// report it.
func (lm *logMode) longLine() lineFn {
	return func(k *sink, name string, s *recordScanner) {
		if s.ParseError() != nil {
			k.reportLine(name, s)
		}
	}
}

// logWorker is one worker's state in log mode.
type logWorker struct {
	*logMode
	get *getfmt.Format // its own clone of logMode's
	// --host-field: the field, the line's base and its bytes
	hostField   []logformat.Field
	lineBaseURI uriscan.URI
	baseBuf     []byte
	p           *pipeline
	x           uriscan.Extractor
	fields      []logformat.Field
	scratch     []byte
	ms          []uriscan.Match
	buf         []byte
	maxLine     int
	// emit takes each URI found (m.Rejected: a rejection), text its bytes
	// (resolved against --base if it was), in the line at lineOff; bad
	// takes a line that is not in the format (reason: why).
	emit  func(f logformat.Field, m uriscan.Match, lineOff int64, text []byte)
	bad   func(line int64, off int, reason string)
	jsonl bool   // the reports are JSON (--errors jsonl): reasons name the kind
	c     *chunk // the chunk in hand (worker)
}

// newLogWorker returns a worker state of lm that gives what it finds to
// emit and its bad lines to bad.
func (lm *logMode) newLogWorker(maxLine int, jsonl bool, emit func(logformat.Field, uriscan.Match, int64, []byte), bad func(int64, int, string)) *logWorker {
	w := &logWorker{logMode: lm, maxLine: maxLine, emit: emit, bad: bad, jsonl: jsonl}
	if lm.get != nil {
		w.get = lm.get.Clone()
	}
	w.x = uriscan.Extractor{Schemes: lm.x.Schemes, AnyScheme: lm.x.AnyScheme, MinSchemeLen: lm.x.MinSchemeLen, Rejects: lm.x.Rejects}
	return w
}

// worker makes a chunk handler for one worker.
func (lm *logMode) worker(p *pipeline) func(*chunk) {
	var w *logWorker
	w = lm.newLogWorker(p.maxLine, p.e.rep.jsonl, func(f logformat.Field, m uriscan.Match, lineOff int64, text []byte) {
		emitMatch(p, w.c, w.format, f.Name, w.get, m, lineOff, text)
	}, func(line int64, off int, reason string) {
		w.c.K.err = w.c.K.rep.appendLineReport(w.c.K.err, w.c.Name, line, off, []byte(reason), nil, 0)
		w.c.K.countInvalid()
	})
	w.p = p
	return w.chunk
}

func (w *logWorker) chunk(c *chunk) {
	w.c = c
	data, line, off := c.Data, int64(c.Line), c.Off
	for len(data) > 0 {
		l := data
		next := len(data)
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, next = data[:i], i+1
		}
		data = data[next:]
		line++
		lineOff := off
		off += int64(next)
		l = bytes.TrimSuffix(l, []byte{'\r'})
		switch {
		case len(l) == 0:
			continue
		case len(l) > w.maxLine:
			// A line over the limit that the reader kept whole (a read
			// input holds lines up to the limit and a chunk): reported
			// as the reader's own scanner reports a longer one.
			c.K.err = c.K.rep.appendLongLine(c.K.err, c.Name, line, len(l), w.maxLine, l)
			c.K.countInvalid()
			continue
		}
		w.logLine(l, line, lineOff)
		w.p.handOver(c)
	}
}

// logLine gives the URIs of one log line l (no line end; line its number,
// lineOff its input offset) to w.emit, or the line to w.bad.
func (w *logWorker) logLine(l []byte, line, lineOff int64) {
	switch w.kind {
	case "combined":
		w.combined(l, line, lineOff)
	case "columns":
		w.fields = w.cols.Append(w.fields[:0], l)
		for _, f := range w.fields {
			w.search(f, l, line, lineOff)
		}
	default:
		w.jsonlLine(l, line, lineOff)
	}
}

// lineError reports a line that is not in the log format.
func (w *logWorker) lineError(line int64, off int, why string) {
	reason := "not a Common or Combined Log Format line: "
	switch {
	case w.jsonl:
		reason = "not a " + w.kind + " log line: "
	case w.kind != "combined":
		reason = "not a JSON object line: "
	}
	w.bad(line, off, reason+why)
}

func (w *logWorker) combined(l []byte, line, lineOff int64) {
	var err error
	w.fields, w.scratch, err = logformat.ParseCombined(w.fields[:0], w.scratch[:0], l)
	if err != nil {
		le := err.(*logformat.Error)
		w.lineError(line, le.Offset, le.Reason)
		return
	}
	for _, f := range w.fields {
		switch f.Name {
		case logformat.NameRequest:
			w.whole(f, l, line, lineOff, true)
		case logformat.NameReferer:
			w.whole(f, l, line, lineOff, false)
		default: // the user agent, a request line of another shape
			w.search(f, l, line, lineOff)
		}
	}
}

// jsonlLine writes the URIs of a JSON line's --field strings. With --base, a
// field that is as a whole an origin-form request target ("/a?b=1", as
// Caddy, Traefik and Envoy log request.uri) is written as combined writes
// the request target: resolved against --base, whose authority is the
// line's --host-field when it has one. Without --base every field is
// searched (a message "/var/log/x failed, see https://..." is text).
func (w *logWorker) jsonlLine(l []byte, line, lineOff int64) {
	base := w.base
	if w.hostPath != "" {
		base = w.lineBase(l, base)
	}
	for _, path := range w.paths {
		var err error
		w.fields, w.scratch, err = logformat.JSONField(w.fields[:0], w.scratch[:0], l, path)
		if err != nil {
			le := err.(*logformat.Error)
			w.lineError(line, le.Offset, le.Reason)
			return
		}
		for _, f := range w.fields {
			if base != nil && isOriginForm(f.Value) {
				w.wholeAgainst(f, l, line, lineOff, true, base)
				continue
			}
			w.search(f, l, line, lineOff)
		}
	}
}

// lineBase is --base with the authority the line's --host-field gives, or
// --base when the field is absent or not an authority.
func (w *logWorker) lineBase(l []byte, base *uriscan.URI) *uriscan.URI {
	fs, _, err := logformat.JSONField(w.hostField[:0], nil, l, w.hostPath)
	w.hostField = fs
	if err != nil || len(fs) == 0 || len(fs[0].Value) == 0 {
		return base
	}
	w.baseBuf = append(append(append(w.baseBuf[:0], base.Scheme()...), "://"...), fs[0].Value...)
	n := len(w.baseBuf)
	w.baseBuf = append(w.baseBuf, base.Path()...)
	b, err := uriscan.Parse(w.baseBuf)
	if err != nil || !b.HasAuthority() || len(b.Authority()) != n-len(base.Scheme())-3 {
		return base // not an authority: "h/x", "h?q", "a b"
	}
	w.lineBaseURI = b
	return &w.lineBaseURI
}

// delimiterByte reads --delimiter: one byte, "\t" for a tab; "" is a tab.
// A newline or carriage return, which end lines, is refused.
func delimiterByte(s string) (byte, bool) {
	switch {
	case s == "" || s == `\t`:
		return '\t', true
	case len(s) == 1 && s[0] != '\n' && s[0] != '\r':
		return s[0], true
	}
	return 0, false
}

// inLine reports whether v is a part of l (not decoded into scratch).
func inLine(v, l []byte) bool {
	if len(v) == 0 || len(l) == 0 {
		return false
	}
	vp, lp := uintptr(unsafe.Pointer(unsafe.SliceData(v))), uintptr(unsafe.Pointer(unsafe.SliceData(l)))
	return vp >= lp && vp-lp < uintptr(len(l))
}

// search writes the URIs in a field's text, each at its offset in the
// input when the field was not decoded, else at the field's.
func (w *logWorker) search(f logformat.Field, l []byte, line, lineOff int64) {
	w.ms = w.x.Append(w.ms[:0], f.Value)
	exact := inLine(f.Value, l)
	for _, m := range w.ms {
		text := f.Value[m.Start:m.End]
		at := lineOff + int64(f.Offset)
		if exact {
			at += m.Start
		}
		m.Start, m.End, m.Line = at, at+int64(len(text)), line
		w.emit(f, m, lineOff, text)
	}
}

// whole writes a field that is one URI-reference (the request target, the
// referer): resolved against --base if it is an origin-form target, and
// only if its scheme counts (a relative one always does). One that is not
// a URI-reference is a rejection (reported with --rejects).
func (w *logWorker) whole(f logformat.Field, l []byte, line, lineOff int64, request bool) {
	w.wholeAgainst(f, l, line, lineOff, request, w.base)
}

// wholeAgainst is whole with the base URI given.
func (w *logWorker) wholeAgainst(f logformat.Field, l []byte, line, lineOff int64, request bool, base *uriscan.URI) {
	v := f.Value
	at := lineOff + int64(f.Offset)
	m := uriscan.Match{Start: at, End: at + int64(len(v)), Line: line}
	if request && (string(v) == "*" || authorityForm(v)) {
		return // OPTIONS *, CONNECT host:port: no URI
	}
	u, err := uriscan.Parse(v)
	if err != nil {
		if w.x.Rejects {
			m.Rejected = true
			w.emit(f, m, lineOff, v)
		}
		return
	}
	if u.IsAbsolute() {
		if !w.schemeCounts(u.Scheme()) {
			return
		}
	} else if request && base != nil {
		if w.buf, err = uriscan.Resolve(w.buf[:0], base, &u, 0); err != nil {
			return
		}
		v = w.buf
	}
	w.emit(f, m, lineOff, v)
}

func (w *logWorker) schemeCounts(s string) bool {
	if w.x.AnyScheme {
		return len(s) >= max(w.x.MinSchemeLen, 1)
	}
	for _, t := range w.x.Schemes {
		if strings.EqualFold(s, t) {
			return true
		}
	}
	return false
}

// authorityForm reports whether a request target is host:port (CONNECT,
// RFC 9112 §3.2.3), which parses as a scheme and a path but names no
// resource.
func authorityForm(v []byte) bool {
	i := bytes.LastIndexByte(v, ':')
	if i <= 0 || i == len(v)-1 || bytes.IndexByte(v, '/') >= 0 {
		return false
	}
	for _, d := range v[i+1:] {
		if d < '0' || d > '9' {
			return false
		}
	}
	return true
}

// isOriginForm reports whether v is, as a whole, a path-absolute relative
// reference: "/" and a path, with a query perhaps (RFC 7230's origin-form).
func isOriginForm(v []byte) bool {
	if len(v) == 0 || v[0] != '/' || len(v) > 1 && v[1] == '/' {
		return false
	}
	u, err := uriscan.Parse(v)
	return err == nil && !u.IsAbsolute() && !u.HasAuthority()
}
