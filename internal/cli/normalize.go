package cli

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/normalize/compat"
	"github.com/uriscan/uriscan/urikey"
)

// normalizeCommand is uriscan normalize.
var normalizeCommand = command{
	name:     "normalize",
	synopsis: "[--level syntax|scheme|crawler|shape|safebrowsing|w3lib] [--repair] [--format text|jsonl | --get TEMPLATE] [--key-file F] [FILE...]",
	summary:  "write each line's RFC 3986 §6 normal form",
	doc: `Writes each line's normal form, one output line per input line: syntax
level (§6.2.2: case, percent-encodings, dot segments), scheme level (also
§6.2.3: default and empty ports, empty http(s) path), or crawler level (also
heuristics that are not RFC equivalences: drop fragment, strip session and
tracking parameters, sort the query, drop an empty query, collapse slashes,
strip www., drop index pages), or shape level (crawler, then ids in the
path written :int, :uuid, :date or :hex and the query reduced to its sorted
keys, so that "similar" URLs are one: dedup --level shape keeps one of
each). --repair percent-encodes what the strict
grammar rejects in an invalid line, as browsers do, and reports it on
standard error; the line still counts as invalid. With --format jsonl each
line is {"line":N,"input":...,"valid":true,"normalized":...,"hash":HEX}, the hash being the
keyed HighwayHash-128 of the normal form (random key unless --key-file). An
invalid line gives an empty line (its JSON error object with jsonl), and its
position and reason go to standard error.`,
	example: `printf 'HTTP://Example.COM:80/a/./b/%%7e\n' | uriscan normalize`,
	takes:   takesLines | takesPasswords | takesGrammar | takesURI | takesVerify,
	setup:   setupNormalize,
}

// setupNormalize: "uriscan normalize" writes each line's normal form.
func setupNormalize(fs *flagSet) func(*env, []string) error {
	nf := addNormFlags(fs)
	format := fs.String("format", "text", "`text` (one normal form per line), jsonl (JSON with the hash) or surt (each line's SURT key, as the Internet Archive's surt() computes it with its default canonicalization; --level does not apply)")
	surtScheme := fs.Bool("surt-scheme", false, "with --format surt: write the scheme, \"http://(com,example,)/\" (surt's with_scheme)")
	surtComma := fs.Bool("surt-trailing-comma", false, "with --format surt: a \",\" before the \")\" that ends the host (surt's trailing_comma)")
	surtPS := fs.Bool("surt-public-suffix", false, "with --format surt: write the host's registrable domain (ICANN rules) instead of the host, \"(com,example)/\" for www.example.com (surt's public_suffix)")
	surtWWW := fs.Bool("surt-keep-www", false, "with --format surt: keep a leading \"www.\" label (surt's host_massage=False)")
	keyFile := fs.String("key-file", "", "`file` with the 32-byte hash key as 64 hex digits (default: a random key per run)")
	workers := fs.addWorkers("")
	get := addGetFlags(fs, "the normal form of each valid line (an empty line for an invalid one)")
	repair := fs.Bool("repair", false, "percent-encode what strict RFC 3986 rejects in an invalid line, as browsers do, and normalize the result (reported on standard error)")
	return func(e *env, files []string) error {
		lv, cfg, msg := nf.config(fs, "normalize")
		if msg != "" {
			return usageErr(msg, e.cmd)
		}
		tmpl, err := get.compile(e, "normalize", fs, false)
		if err != nil {
			return err
		}
		if tmpl != nil && (fs.given("format") || lv.Raw()) {
			return usageErr("normalize: --get writes the parts of the RFC 3986 normal form (levels syntax, scheme, crawler), one line each: not with --format or this --level", e.cmd)
		}
		jsonl := false
		switch *format {
		case "text":
		case "jsonl":
			jsonl = true
		case "surt":
			for _, f := range []string{"level", "repair", "key-file", "grammar"} {
				if fs.given(f) {
					return usageErr("normalize: --format surt does its own canonicalization (surt's): --"+f+" does not apply", e.cmd)
				}
			}
			opts := compat.SURTOptions{IncludeScheme: *surtScheme, TrailingComma: *surtComma, KeepWWW: *surtWWW}
			return statusErr(e.eachLine(files, *workers, func() lineFn {
				var buf, red []byte
				// The key is of the line as shown, its password redacted:
				// surt reads a URL with no scheme as "http://" + it, and
				// takes the first path segment of one with no host for
				// the host, userinfo and all ("//u:pw@h/p" gives
				// "u:pw@h)/p", "//u:pw@a.b/" "b,u:pw@a)/"), where no
				// redaction of the key could find the password.
				redact := e.rep.redacts()
				opts := opts
				if *surtPS { // surt's public suffix: tldextract's, ICANN rules
					split := e.stores.NewSplit(false)
					opts.PublicSuffix = func(host string) string {
						_, rdn, _, _ := split(host)
						return rdn
					}
				}
				surt := func(dst, raw []byte) ([]byte, error) {
					if redact && uriscan.HasPassword(raw) {
						red = uriscan.AppendRedacted(red[:0], raw)
						raw = red
					}
					return compat.AppendSURT(dst, raw, opts)
				}
				return func(k *sink, name string, s *recordScanner) {
					buf = normalizeRaw(k, name, k.rep.file(name), s, nil, false, buf, surt)
				}
			}))
		default:
			return usageErr("normalize: --format must be text, jsonl or surt, not "+strconv.Quote(*format), e.cmd)
		}
		for _, f := range []string{"surt-scheme", "surt-trailing-comma", "surt-keep-www", "surt-public-suffix"} {
			if fs.given(f) {
				return usageErr("normalize: --"+f+" goes with --format surt", e.cmd)
			}
		}
		// The hash is dedup's key: of the normal form as shown.
		h, err := e.keyHasher(*keyFile, lv, cfg)
		if err != nil {
			return err
		}
		return statusErr(e.eachLine(files, *workers, func() lineFn {
			h := h.Clone()
			var fixed []byte  // reused for every line
			var normed []byte // with --get: the normal form
			tmpl := tmpl
			if tmpl != nil {
				tmpl = tmpl.Clone()
			}
			norm := h.Config() // the text format's: the Hasher's
			raw := func(dst, line []byte) ([]byte, error) { return norm.AppendRaw(dst, line, lv) }
			return func(k *sink, name string, s *recordScanner) {
				if lv.Raw() {
					fixed = normalizeRaw(k, name, k.rep.file(name), s, h, jsonl, fixed, raw)
					return
				}
				buf := k.out
				perr := s.ParseError()
				u := s.URI()
				var rep normalize.Repairs
				if perr != nil && *repair && !errors.Is(perr, uriscan.ErrTooLong) {
					fixed, rep = normalize.Repair(fixed[:0], s.Bytes())
					if v, err := uriscan.Parse(fixed); err == nil {
						u, perr = &v, nil
						if !k.rep.quiet {
							k.err = appendRepair(k.err, name, s.Line(), rep, k.rep)
						}
					}
				}
				if perr != nil {
					k.reportLine(name, s)
				}
				switch {
				case tmpl != nil && perr == nil:
					// The parts of the normal form: it is parsed again (a
					// normal form of a valid URI is valid).
					normed = norm.Append(normed[:0], u, lv)
					if v, err := uriscan.Parse(normed); err == nil {
						buf = appendGet(buf, tmpl, &v, k.rep.redacts())
					}
				case !jsonl && perr == nil:
					start := len(buf)
					buf = norm.Append(buf, u, lv)
					buf = redactDerived(buf, start, k.rep.redacts(), u)
				case jsonl && perr != nil:
					buf = appendSplitInvalid(buf, k.rep.file(name), s.Line(), s.Bytes(), s.Len(), perr, k.rep.redacts())
				case jsonl:
					// The hash is of the normal form as shown (dedup's key:
					// the hasher redacts as the output does).
					sum, canon := h.Sum(u), h.Canonical()
					buf = appendRecordStart(buf, k.rep.file(name))
					buf = strconv.AppendInt(buf, int64(s.Line()), 10)
					buf = append(buf, `,"input":`...)
					buf = appendJSONString(buf, view(shownBytes(s.Bytes(), k.rep.redacts())))
					buf = append(buf, `,"valid":true,"normalized":`...)
					buf = appendJSONString(buf, view(canon))
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
		}))
	}
}

// rawInvalid marks a line a Raw level refused (see normalizeRaw).
var rawInvalid = &uriscan.Error{Err: errors.New("refused by the level")}

// normalizeRaw is normalize at a Raw level (safebrowsing, w3lib) and
// --format surt: canon's form of the line's bytes, valid RFC 3986 or not;
// only a line over the limit or one canon refuses is invalid (then
// s.ParseError is rawInvalid, for the counts). h hashes for jsonl. buf is
// scratch, returned.
func normalizeRaw(k *sink, name, file string, s *recordScanner, h *urikey.Hasher, jsonl bool, buf []byte, canon func(dst, raw []byte) ([]byte, error)) []byte {
	if _, long := s.ls.TooLong(); long {
		k.reportLine(name, s)
		if jsonl {
			k.out = appendSplitInvalid(k.out, file, s.Line(), s.Bytes(), s.Len(), s.ParseError(), k.rep.redacts())
		}
		k.out = append(k.out, '\n')
		return buf
	}
	s.perr = nil
	buf, err := canon(buf[:0], s.Bytes())
	if err != nil {
		reason := strings.TrimPrefix(err.Error(), "compat: ") // the owner's refusal, without the package
		k.err = k.rep.appendLineReport(k.err, name, int64(s.Line()), 0, []byte(reason), s.Bytes(), s.Len())
		if jsonl {
			b := appendRecordStart(k.out, file)
			b = strconv.AppendInt(b, int64(s.Line()), 10)
			b = append(b, `,"input":`...)
			b = appendJSONString(b, view(shownBytes(s.Bytes(), k.rep.redacts())))
			b = append(b, `,"valid":false,"error":{"offset":0,"reason":`...)
			b = appendJSONString(b, reason)
			k.out = append(b, "}}"...)
		}
		k.out = append(k.out, '\n')
		s.perr = rawInvalid
		return buf
	}
	shown := shownBytes(buf, k.rep.redacts())
	if !jsonl {
		k.out = append(append(k.out, shown...), '\n')
		return buf
	}
	sum := h.SumBytes(shown) // as shown: dedup's key
	b := appendRecordStart(k.out, file)
	b = strconv.AppendInt(b, int64(s.Line()), 10)
	b = append(b, `,"input":`...)
	b = appendJSONString(b, view(shownBytes(s.Bytes(), k.rep.redacts())))
	b = append(b, `,"valid":true,"normalized":`...)
	b = appendJSONString(b, view(shown))
	b = append(b, `,"hash":"`...)
	b = hex.AppendEncode(b, sum[:])
	k.out = append(b, "\"}\n"...)
	return buf
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
func appendRepair(b []byte, name string, line int, r normalize.Repairs, rep *reports) []byte {
	if rep.jsonl {
		b = appendRecordStart(b, rep.file(name))
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

// keyHasher is the Hasher of dedup's keys and normalize --hash: with the
// key in keyFile (random without one), level and cfg, of the normal form
// as shown (passwords redacted unless --show-passwords) under the run's
// grammar. A key file that cannot be read is an I/O error (exit 2).
func (e *env) keyHasher(keyFile string, level normalize.Level, cfg normalize.Normalizer) (*urikey.Hasher, error) {
	var key []byte
	if keyFile != "" {
		k, err := urikey.ReadKeyFile(keyFile)
		if err != nil {
			// urikey's error says "urikey:"; the command is this one.
			return nil, errors.New(e.cmdName() + ": " + strings.TrimPrefix(err.Error(), "urikey: "))
		}
		key = k
	}
	h, err := urikey.NewHasher(key, level)
	if err != nil {
		return nil, err
	}
	configure(h, cfg)
	h.KeepPasswords(!e.rep.redacts())
	h.SetGrammar(e.sc.grammar)
	return h, nil
}
