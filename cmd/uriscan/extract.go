package main

import (
	"errors"
	"flag"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
)

// setupExtract: "uriscan extract" writes the URIs found in free text.
func setupExtract(fs *flag.FlagSet) func(*env, []string) int {
	format := fs.String("format", "text", "`text` (each URI's bytes, one per line), jsonl or tsv (file, line, offset, URI)")
	schemes := fs.String("schemes", "http,https", "the `schemes` that count, comma-separated (case-insensitive)")
	anyScheme := fs.Bool("any-scheme", false, "take every syntactically valid scheme of at least --min-scheme bytes")
	minScheme := fs.Int("min-scheme", 3, "the shortest scheme --any-scheme takes, in `bytes` (so that \"a:b\" in prose is not a URI)")
	rejects := fs.Bool("rejects", false, "also report the candidates that are no URI (jsonl: \"valid\":false; text and tsv: on standard error)")
	return func(e *env, files []string) int {
		switch *format {
		case "text", "jsonl", "tsv":
		default:
			return e.usageError("extract: --format must be text, jsonl or tsv, not "+strconv.Quote(*format), e.cmd)
		}
		x := &uriscan.Extractor{AnyScheme: *anyScheme, MinSchemeLen: *minScheme, Rejects: *rejects}
		if !*anyScheme {
			for _, s := range strings.Split(*schemes, ",") {
				if s = strings.ToLower(strings.TrimSpace(s)); s != "" {
					x.Schemes = append(x.Schemes, s)
				}
			}
			if len(x.Schemes) == 0 {
				return e.usageError("extract: --schemes names no scheme", e.cmd)
			}
		}
		if len(files) == 0 {
			files = []string{"-"}
		}
		var buf []byte
		for _, file := range files {
			if e.werr != nil || e.stopped() {
				break
			}
			in, err := e.open(file)
			if err != nil {
				e.inputError(err.Error())
				in.close()
				continue
			}
			s := uriscan.NewExtractScanner(x, &flushReader{r: in.r, flush: e.flush, mu: &e.mu, stop: e.stopped})
			for e.werr == nil && s.Scan() {
				for _, m := range s.Matches() {
					buf = appendMatch(buf[:0], *format, in.name, m, s.Bytes(m))
					if m.Rejected && *format != "jsonl" {
						e.errw.Write(buf)
						continue
					}
					e.out.Write(buf)
				}
			}
			if err := s.Err(); err != nil && !errors.Is(err, errInterrupted) {
				e.inputError(in.name + ": " + err.Error())
			}
			if err := in.close(); err != nil {
				e.inputError(in.name + ": " + err.Error())
			}
		}
		e.flush()
		if e.werr != nil {
			e.errw.WriteString("uriscan: writing output: " + e.werr.Error() + "\n")
		}
		return e.status()
	}
}

// appendMatch renders one match in the output format.
func appendMatch(b []byte, format, name string, m uriscan.Match, text []byte) []byte {
	switch format {
	case "jsonl":
		b = append(b, `{"file":`...)
		b = appendJSONString(b, name)
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, m.Line, 10)
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, m.Start, 10)
		b = append(b, `,"uri":`...)
		b = appendJSONString(b, string(text))
		if m.Rejected {
			b = append(b, `,"valid":false`...)
		} else {
			u, _ := uriscan.Parse(text)
			b = append(b, `,"valid":true,"scheme":`...)
			b = appendJSONString(b, u.Scheme())
			b = append(b, `,"host":`...)
			if u.HasAuthority() {
				b = appendJSONString(b, u.Host())
			} else {
				b = append(b, "null"...)
			}
		}
		b = append(b, '}')
	case "tsv":
		b = append(b, name...)
		b = append(b, '\t')
		b = strconv.AppendInt(b, m.Line, 10)
		b = append(b, '\t')
		b = strconv.AppendInt(b, m.Start, 10)
		b = append(b, '\t')
		if m.Rejected {
			b = append(b, "rejected\t"...)
		}
		b = append(b, text...)
	default:
		if m.Rejected {
			b = append(b, "uriscan: "+name+":"...)
			b = strconv.AppendInt(b, m.Line, 10)
			b = append(b, ": offset "...)
			b = strconv.AppendInt(b, m.Start, 10)
			b = append(b, ": not a URI: "...)
			b = appendEcho(b, text, int64(len(text)))
		} else {
			b = append(b, text...)
		}
	}
	return append(b, '\n')
}
