package cli

import (
	"strconv"
)

// splitCommand is uriscan split.
var splitCommand = command{
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
	takes:   takesLines | takesPasswords | takesGrammar | takesURI | takesVerify,
	setup:   setupSplit,
}

// setupSplit: "uriscan split" writes one record per input line: a JSON
// object, or a TSV row (tsv.go).
func setupSplit(fs *flagSet) func(*env, []string) error {
	workers := fs.addWorkers("")
	flags := fs.Bool("flags", false, "add the RFC 3986 §7 security warnings of each valid URI: \"warnings\" (rare-ipv4, password, userinfo-like-host, host-not-utf8, mixed-script, encoded-nul, encoded-slash, encoded-backslash, encoded-dot-segment) and \"ipv4\", the address a rare IPv4 form is read as")
	format := fs.String("format", "jsonl", "`jsonl` (one JSON object per line) or tsv (one row per line, PostgreSQL COPY text format: \\N for an undefined component; columns in uriscan help split)")
	header := fs.Bool("header", false, "with --format tsv, write the column names first")
	domains := fs.Bool("domains", false, "add each record's host split at its public suffix: etld, rdn (the registrable domain) and subdomain; null (\\N) when the host has none: an IP address, a single label, a public suffix itself (ICANN rules unless --private-suffixes)")
	get := addGetFlags(fs, "each valid line (an empty line for an invalid one, which is reported)")
	return func(e *env, files []string) error {
		tmpl, err := get.compile(e, "split", fs, *domains)
		if err != nil {
			return err
		}
		if tmpl != nil {
			for _, f := range []string{"format", "header", "flags", "domains"} {
				if fs.given(f) {
					return usageErr("split: --get writes its own lines: --"+f+" does not apply", e.cmd)
				}
			}
			return statusErr(e.eachLine(files, *workers, func() lineFn {
				tmpl := tmpl.Clone()
				return func(k *sink, name string, s *recordScanner) {
					if s.ParseError() != nil {
						k.reportLine(name, s)
					} else {
						k.out = appendGet(k.out, tmpl, s.URI(), k.rep.redacts())
					}
					k.out = append(k.out, '\n')
				}
			}))
		}
		tsv := false
		switch *format {
		case "jsonl":
		case "tsv":
			tsv = true
		default:
			return usageErr("split: --format must be jsonl or tsv, not "+strconv.Quote(*format), e.cmd)
		}
		if *header && !tsv {
			return usageErr("split: --header goes with --format tsv", e.cmd)
		}
		if *header {
			e.out.Write(appendSplitTSVHeader(nil, len(files) > 1, *flags, *domains))
		}
		return statusErr(e.eachLine(files, *workers, func() lineFn {
			var hosts hostSplit
			if *domains {
				hosts = get.splitter(&e.stores)
			}
			return func(k *sink, name string, s *recordScanner) {
				file := k.rep.file(name)
				switch perr := s.ParseError(); {
				case perr != nil && tsv:
					k.out = appendSplitTSVInvalid(k.out, file, s.Line(), s.Bytes(), perr, k.rep.redacts(), *flags)
					if hosts != nil {
						k.out = append(k.out, "\t\\N\t\\N\t\\N"...)
					}
					k.reportLine(name, s)
				case perr != nil:
					k.out = appendSplitInvalid(k.out, file, s.Line(), s.Bytes(), s.Len(), perr, k.rep.redacts())
					k.reportLine(name, s)
				case tsv:
					k.out = appendSplitTSVValid(k.out, file, s.Line(), s.URI(), k.rep.redacts())
					if *flags {
						k.out = appendSplitTSVFlags(k.out, s.URI(), s.URI().Warnings())
					}
					if hosts != nil {
						k.out = appendDomainsTSV(k.out, hosts, s.URI())
					}
				default:
					k.out = appendSplitValid(k.out, file, s.Line(), s.URI(), k.rep.redacts())
					if *flags {
						k.out = appendWarningsJSON(k.out[:len(k.out)-1], s.URI(), s.URI().Warnings())
						k.out = append(k.out, '}')
					}
					if hosts != nil {
						k.out = appendDomainsJSON(k.out[:len(k.out)-1], hosts, s.URI())
						k.out = append(k.out, '}')
					}
				}
				k.out = append(k.out, '\n')
			}
		}))
	}
}
