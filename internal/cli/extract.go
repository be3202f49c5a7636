package cli

import (
	"flag"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
	getfmt "github.com/uriscan/uriscan/format"
)

// extractCommand is uriscan extract.
var extractCommand = command{
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
	takes: takesLines | takesPasswords | takesVerify,
	setup: setupExtract,
}

// extractOpts are the options of what extract finds, which dedup
// --extract takes too.
type extractOpts struct {
	schemes, logFormat, columns, delimiter, hostField, base *string
	anyScheme                                               *bool
	minScheme                                               *int
	fields                                                  stringsFlag
	names                                                   []string // the flags it defines
}

// addExtractFlags defines the options of what extract finds on fs; with
// prefixes their help ("with --extract, ").
func addExtractFlags(fs *flagSet, with string) *extractOpts {
	o := &extractOpts{}
	had := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { had[f.Name] = true })
	defer fs.VisitAll(func(f *flag.Flag) {
		if !had[f.Name] {
			o.names = append(o.names, f.Name)
		}
	})
	o.schemes = fs.String("schemes", "http,https", with+"the `schemes` that count, comma-separated (case-insensitive)")
	o.anyScheme = fs.Bool("any-scheme", false, with+"take every syntactically valid scheme of at least --min-scheme bytes")
	o.minScheme = fs.Int("min-scheme", 3, with+"the shortest scheme --any-scheme takes, in `bytes` (so that \"a:b\" in prose is not a URI)")
	o.logFormat = fs.String("log", "", with+"read each line as a log line: `combined` (Common or Combined Log Format, Apache and nginx: the request target, the referer and the URIs in the user agent), jsonl (the URIs in the --field strings of JSON Lines) or columns (the URIs in the --columns of lines split at --delimiter, as cut does)")
	o.columns = fs.String("columns", "", "with --log columns, the `list` of columns to search, numbered from 1 as cut -f takes it (\"3\", \"2,7\", \"4-6\", \"5-\"); each match's field is \"$N\"")
	o.delimiter = fs.String("delimiter", "", "with --log columns, the `byte` that ends a column (\"\\t\" or none: a tab); two in a row make an empty column")
	o.hostField = fs.String("host-field", "", "with --log jsonl and --base, the dotted `path` of the field that holds each line's host (\"request.host\"): an origin-form request target (\"/a?b=1\") is resolved against --base with that host")
	fs.Var(&o.fields, "field", "with --log jsonl, the dotted `path` of a string field to search (\"message\", \"http.request.url\"); repeatable")
	o.base = fs.String("base", "", "with --log combined, the absolute `URI` origin-form request targets (\"/a?b\") are resolved against; without it they are written as they are. With --log jsonl, a --field that is such a target as a whole is resolved against it (without it, fields are only searched)")
	return o
}

// describe is o as a dedup checkpoint records it (a resume with other
// options is refused): the schemes, and the log format and its options.
func (o *extractOpts) describe(x *uriscan.Extractor) string {
	d := strings.Join(x.Schemes, ",")
	if x.AnyScheme {
		d = "any scheme of " + strconv.Itoa(x.MinSchemeLen) + "+ bytes"
	}
	if *o.logFormat != "" {
		d += "; --log " + *o.logFormat
		for _, f := range o.fields {
			d += " --field " + f
		}
		for _, f := range []struct{ name, v string }{{"--columns", *o.columns}, {"--delimiter", *o.delimiter}, {"--base", *o.base}, {"--host-field", *o.hostField}} {
			if f.v != "" {
				d += " " + f.name + " " + f.v
			}
		}
	}
	return d
}

// set reports whether any option of o was given on fs.
func (o *extractOpts) set(fs *flagSet) bool {
	for _, n := range o.names {
		if fs.given(n) {
			return true
		}
	}
	return false
}

// build checks o and returns the extractor and, with --log, the log mode
// (format, get and rejects as extract's), or a usage error when the
// options are wrong.
func (o *extractOpts) build(e *env, format string, get *getfmt.Format, rejects bool) (*uriscan.Extractor, *logMode, error) {
	x := &uriscan.Extractor{AnyScheme: *o.anyScheme, MinSchemeLen: *o.minScheme, Rejects: rejects}
	if !*o.anyScheme {
		for _, s := range strings.Split(*o.schemes, ",") {
			if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
				x.Schemes = append(x.Schemes, s)
			}
		}
		if len(x.Schemes) == 0 {
			return nil, nil, usageErr(e.cmd.name+": --schemes names no scheme", e.cmd)
		}
	}
	if *o.logFormat == "" {
		if len(o.fields) > 0 || *o.base != "" || *o.columns != "" || *o.delimiter != "" || *o.hostField != "" {
			return nil, nil, usageErr(e.cmd.name+": --field, --base, --host-field, --columns and --delimiter go with --log", e.cmd)
		}
		return x, nil, nil
	}
	lm := &logMode{kind: *o.logFormat, paths: o.fields, columns: *o.columns, delimiter: *o.delimiter, format: format, x: x, get: get, hostPath: *o.hostField}
	if err := lm.check(e, *o.base); err != nil {
		return nil, nil, err
	}
	return x, lm, nil
}

// setupExtract: "uriscan extract" writes the URIs found in free text.
func setupExtract(fs *flagSet) func(*env, []string) error {
	format := fs.String("format", "text", "`text` (each URI's bytes, one per line), jsonl or tsv (line, offset in the line, URI; the file first when the run reads several inputs)")
	opts := addExtractFlags(fs, "")
	workers := fs.addWorkers("")
	get := addGetFlags(fs, "each URI found (a base-resolved one as resolved)")
	rejects := fs.Bool("rejects", false, "also report the candidates that are no URI (jsonl: \"valid\":false; text and tsv: on standard error)")
	summary := fs.String("summary", "", "write a summary (inputs, bytes, URIs, rejections, invalid log lines) to `FILE` as one JSON object; with --errors jsonl it is also the last line on standard error")
	return func(e *env, files []string) (err error) {
		switch *format {
		case "text", "jsonl", "tsv":
		default:
			return usageErr("extract: --format must be text, jsonl or tsv, not "+strconv.Quote(*format), e.cmd)
		}
		tmpl, err := get.compile(e, "extract", fs, false)
		if err != nil {
			return err
		}
		if tmpl != nil && *format != "text" {
			return usageErr("extract: --get writes its own lines: it goes with --format text", e.cmd)
		}
		x, lm, err := opts.build(e, *format, tmpl, *rejects)
		if err != nil {
			return err
		}
		defer func() {
			if *summary == "" && !e.rep.jsonl {
				return
			}
			sum := extractSummary{Command: "extract", Inputs: max(len(files), 1), Bytes: e.counts.bytes, URIs: e.counts.uris, Rejected: e.counts.rejected, InvalidLines: e.rep.invalid}
			if e.finalLine = e.writeSummary(*summary, sum, ""); e.ioFail {
				err = errReported // the summary could not be written
			}
		}()
		if lm != nil {
			return statusErr(e.parallel(files, max(*workers, 1), false, lm.worker, lm.longLine))
		}
		if *rejects {
			e.longRun = func(k *sink, name string, m uriscan.Match, lineStart int64, head []byte) {
				writeMatch(k, name, *format, "", nil, m, lineStart, head, longRunReason)
			}
		}
		return statusErr(e.parallel(files, max(*workers, 1), true, func(p *pipeline) func(*chunk) {
			x := &uriscan.Extractor{Schemes: x.Schemes, AnyScheme: x.AnyScheme, MinSchemeLen: x.MinSchemeLen, Rejects: x.Rejects}
			var ms []uriscan.Match
			get := tmpl
			if get != nil {
				get = get.Clone()
			}
			return func(c *chunk) {
				ms = x.AppendAfter(ms[:0], c.Data, c.Before)
				for _, m := range ms {
					// Col is in the chunk's text: a line that began before
					// the chunk began at c.LineStart.
					lineStart := c.Off + m.Start - m.Col
					if m.Col == m.Start {
						lineStart = c.LineStart
					}
					text := c.Data[m.Start:m.End]
					m.Start += c.Off
					m.End += c.Off
					m.Line += int64(c.Line)
					emitMatch(p, c, *format, "", get, m, lineStart, text)
				}
			}
		}, nil))
	}
}

// extractSummary is extract's summary (--summary, --errors jsonl).
type extractSummary struct {
	Command      string `json:"command"`
	Inputs       int    `json:"inputs"`
	Bytes        int64  `json:"bytes"`
	URIs         int64  `json:"uris"`
	Rejected     int64  `json:"rejected"`
	InvalidLines int64  `json:"invalid_lines"`
}

// emitMatch writes one match (text its bytes) of chunk c: to the output,
// or, in text and tsv, to standard error if it is a rejection. lineStart
// is the input offset of the line it is in.
func emitMatch(p *pipeline, c *chunk, format, field string, get *getfmt.Format, m uriscan.Match, lineStart int64, text []byte) {
	writeMatch(&c.K, c.Name, format, field, get, m, lineStart, text, "")
	p.handOver(c) // (reports too: a chunk can hold 50,000 rejections)
}

// writeMatch is emitMatch's writing, in k; reason, for a rejection, is
// why it is one ("": it is no URI-reference).
func writeMatch(k *sink, name, format, field string, get *getfmt.Format, m uriscan.Match, lineStart int64, text []byte, reason string) {
	if m.Rejected {
		k.rejected++
	} else {
		k.uris++
	}
	text = shownBytes(text, k.rep.redacts())
	file := k.rep.file(name)
	if m.Rejected && format != "jsonl" {
		switch {
		case k.rep.quiet:
		case k.rep.jsonl:
			k.err = appendMatch(k.err, "jsonl", file, field, m, lineStart, text, reason)
		case format == "tsv":
			k.err = appendMatch(k.err, format, file, field, m, lineStart, text, reason)
		default:
			k.err = appendMatch(k.err, format, name, field, m, lineStart, text, reason)
		}
	} else if get != nil {
		if u, err := uriscan.Parse(text); err == nil { // text is redacted
			k.out = get.Append(k.out, &u)
		}
		k.out = append(k.out, '\n')
	} else {
		k.out = appendMatch(k.out, format, file, field, m, lineStart, text, reason)
	}
}

// longRunReason is the reason given for a run of URI bytes extract skips.
var longRunReason = "a run of " + strconv.Itoa(uriscan.DefaultBufferSize) + " bytes or more that a URI may hold, skipped but for its last " + strconv.Itoa(uriscan.MaxExtractLength) + " (its first bytes shown)"

// appendMatch appends one match in the format: its bytes (text), a JSON
// object or a TSV row (with file first, unless it is ""; a text rejection
// always names it); field is the log field it was found in, or "".
// "offset" is the match's byte offset in its line (m.Start-lineStart),
// as everywhere in uriscan's output; jsonl's "byte_offset" is its offset
// in the input (m.Start), grep -b's.
//
// A rejection with a reason has it in jsonl ("reason") and in text, in
// place of "not a URI".
func appendMatch(b []byte, format, file, field string, m uriscan.Match, lineStart int64, text []byte, reason string) []byte {
	switch format {
	case "jsonl":
		b = appendRecordStart(b, file)
		b = strconv.AppendInt(b, m.Line, 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, m.Start-lineStart, 10)
		b = append(b, `,"byte_offset":`...)
		b = strconv.AppendInt(b, m.Start, 10)
		if field != "" {
			b = append(b, `,"field":`...)
			b = appendJSONString(b, field)
		}
		b = append(b, `,"uri":`...)
		b = appendJSONString(b, view(text))
		if m.Rejected {
			b = append(b, `,"valid":false`...)
			if reason != "" {
				b = append(b, `,"reason":`...)
				b = appendJSONString(b, reason)
			}
		} else {
			u, _ := uriscan.Parse(text)
			b = append(b, `,"valid":true,"scheme":`...)
			if u.IsAbsolute() {
				b = appendJSONString(b, u.Scheme())
			} else {
				b = append(b, "null"...) // a relative reference (a request target)
			}
			b = append(b, `,"host":`...)
			if u.HasAuthority() {
				b = appendJSONString(b, u.Host())
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, '}')
	case "tsv":
		if file != "" {
			b = append(b, file...)
			b = append(b, '\t')
		}
		b = strconv.AppendInt(b, m.Line, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, m.Start-lineStart, 10)
		b = append(b, '\t')
		if field != "" {
			b = append(b, field...)
			b = append(b, '\t')
		}
		if m.Rejected {
			b = append(b, "rejected\t"...)
		}
		b = append(b, text...)
	default:
		if m.Rejected {
			b = append(b, "uriscan: "+file+":"...)
			b = strconv.AppendInt(b, m.Line, 10)
			b = append(b, ": offset "...)
			b = strconv.AppendInt(b, m.Start-lineStart, 10)
			if field != "" {
				b = append(b, ": "...)
				b = append(b, field...)
			}
			if reason == "" {
				reason = "not a URI"
			}
			b = append(b, ": "...)
			b = append(b, reason...)
			b = append(b, ": "...)
			b = appendEcho(b, text, int64(len(text)), false) // redacted by the caller
		} else {
			b = append(b, text...)
		}
	}
	return append(b, '\n')
}
