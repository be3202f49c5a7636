package main

import (
	"encoding/hex"
	"errors"
	"flag"
	"strconv"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
)

// setupNormalize: "uriscan normalize" writes each line's normal form.
func setupNormalize(fs *flag.FlagSet) func(*env, []string) int {
	nf := addNormFlags(fs)
	format := fs.String("format", "text", "`text` (one normal form per line) or jsonl (JSON with the hash)")
	keyFile := fs.String("key-file", "", "`file` with the 32-byte hash key as 64 hex digits (default: a random key per run)")
	workers := addWorkersFlag(fs)
	repair := fs.Bool("repair", false, "percent-encode what strict RFC 3986 rejects in an invalid line, as browsers do, and normalize the result (reported on standard error)")
	return func(e *env, files []string) int {
		lv, cfg, _, msg := nf.config(fs, "normalize")
		if msg != "" {
			return e.usageError(msg, e.cmd)
		}
		jsonl := false
		switch *format {
		case "text":
		case "jsonl":
			jsonl = true
		default:
			return e.usageError("normalize: --format must be text or jsonl, not "+strconv.Quote(*format), e.cmd)
		}
		h, code := e.hasher(*keyFile, lv)
		if h == nil {
			return code
		}
		configure(h, cfg)
		return e.eachLine(files, *workers, func() lineFn {
			h := h.Clone()
			var fixed []byte   // reused for every line
			norm := h.Config() // the text format's: the Hasher's
			return func(k *sink, name string, s *recordScanner) {
				buf := k.out
				perr := s.ParseError()
				u := s.URI()
				var rep normalize.Repairs
				if perr != nil && *repair && !errors.Is(perr, uriscan.ErrTooLong) {
					fixed, rep = normalize.Repair(fixed[:0], s.Bytes())
					if v, err := uriscan.Parse(fixed); err == nil {
						u, perr = &v, nil
						if !k.rep.quiet {
							k.err = appendRepair(k.err, name, s.Line(), rep, k.rep.jsonl)
						}
					}
				}
				if perr != nil {
					k.reportLine(name, s)
				}
				switch {
				case !jsonl && perr == nil:
					start := len(buf)
					buf = norm.Append(buf, u, lv)
					buf = redactDerived(buf, start, k.rep.redacts(), u)
				case jsonl && perr != nil:
					buf = appendSplitInvalid(buf, recordFile(files, name), s.Line(), s.Bytes(), s.Len(), perr, k.rep.redacts())
				case jsonl:
					sum := h.Sum(u)
					buf = appendRecordStart(buf, recordFile(files, name))
					buf = strconv.AppendInt(buf, int64(s.Line()), 10)
					buf = append(buf, `,"valid":true,"input":`...)
					buf = appendJSONString(buf, view(shownBytes(s.Bytes(), k.rep.redacts())))
					buf = append(buf, `,"normalized":`...)
					if _, _, ok := u.PasswordSpan(); ok && k.rep.redacts() {
						buf = appendJSONString(buf, view(uriscan.AppendRedacted(nil, h.Canonical())))
					} else {
						buf = appendJSONString(buf, view(h.Canonical()))
					}
					buf = append(buf, `,"hash":"`...)
					buf = hex.AppendEncode(buf, sum[:])
					buf = append(buf, '"')
					if rep.Changed() {
						buf = appendRepaired(buf, rep)
					}
					buf = append(buf, '}')
				}
				k.out = append(buf, '\n')
			}
		})
	}
}

// appendRepaired appends ,"repaired":{"trimmed":N,"backslashes":N,"encoded":N,"idna":N}.
func appendRepaired(b []byte, r normalize.Repairs) []byte {
	b = append(b, `,"repaired":{"trimmed":`...)
	b = strconv.AppendInt(b, int64(r.Trimmed), 10)
	b = append(b, `,"backslashes":`...)
	b = strconv.AppendInt(b, int64(r.Backslashes), 10)
	b = append(b, `,"encoded":`...)
	b = strconv.AppendInt(b, int64(r.Encoded), 10)
	b = append(b, `,"idna":`...)
	b = strconv.AppendInt(b, int64(r.IDNA), 10)
	return append(b, '}')
}

// appendRepair appends "NAME:LINE: repaired: ..." (what Repair did) to b.
func appendRepair(b []byte, name string, line int, r normalize.Repairs, jsonl bool) []byte {
	if jsonl {
		b = append(b, `{"file":`...)
		b = appendJSONString(b, name)
		b = append(b, `,"line":`...)
		b = strconv.AppendInt(b, int64(line), 10)
		return append(appendRepaired(b, r), "}\n"...)
	}
	b = append(b, name...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, ": repaired:"...)
	for _, f := range []struct {
		n    int
		what string
	}{{r.Trimmed, "control or space bytes removed"}, {r.Backslashes, "backslashes read as slashes"}, {r.Encoded, "bytes percent-encoded"}, {r.IDNA, "host written as an A-label (IDNA)"}} {
		if f.n > 0 {
			b = append(b, ' ')
			b = strconv.AppendInt(b, int64(f.n), 10)
			b = append(b, ' ')
			b = append(b, f.what...)
		}
	}
	return append(b, '\n')
}

func (e *env) hasher(keyFile string, level normalize.Level) (*normalize.Hasher, int) {
	var key []byte
	if keyFile != "" {
		k, err := normalize.ReadKeyFile(keyFile)
		if err != nil {
			e.ioError(err.Error())
			e.flush()
			return nil, exitUsage
		}
		key = k
	}
	h, err := normalize.NewHasher(key, level)
	if err != nil {
		e.ioError(err.Error())
		e.flush()
		return nil, exitUsage
	}
	return h, 0
}
