package cli

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan"
	getfmt "github.com/uriscan/uriscan/format"
	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/logformat"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/urikey"
)

// keyer keys a dedup run's lines: what each holds (its records: keys,
// and the texts written for the first occurrences), what the Tally
// counts it as, its report on standard error and its digest (see
// dedupRecs). One per goroutine: it holds its hasher and scratch.
type keyer struct {
	h       *urikey.Hasher
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
		kr.hosts = d.e.stores.NewSplit(kr.private)
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
			k.err = k.rep.appendLineReport(k.err, name, int64(s.Line()), 0, []byte(strings.TrimPrefix(err.Error(), "compat: ")), s.Bytes(), s.Len())
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
