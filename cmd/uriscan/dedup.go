package main

import (
	"errors"
	"flag"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
)

// dedupBatch is how many records dedup hands the seen-set at once: enough
// to amortize a round trip to a shared store, small enough to keep output
// flowing.
const dedupBatch = 1024

// setupDedup: "uriscan dedup" writes the first line of each equivalence class.
func setupDedup(fs *flag.FlagSet) func(*env, []string) int {
	store := fs.String("store", "memory", "where the seen-set lives: `memory`, disk:DIR or redis://HOST:PORT[,HOST:PORT...]")
	level := fs.String("level", "scheme", "equivalence: `syntax`, scheme or crawler (see uriscan help normalize)")
	keyFile := fs.String("key-file", "", "`file` with the 32-byte hash key as 64 hex digits; persistent and shared stores need the same key every run (default: random)")
	return func(e *env, files []string) int {
		lv, ok := normalize.ParseLevel(*level)
		if !ok {
			return e.usageError("dedup: --level must be syntax, scheme or crawler, not "+strconv.Quote(*level), e.cmd)
		}
		if *store != "memory" && *keyFile == "" {
			e.errw.WriteString("uriscan: dedup: warning: a random hash key makes a " + *store + " store useless across runs; pass --key-file\n")
		}
		h, code := e.hasher(*keyFile, lv)
		if h == nil {
			return code
		}
		set, err := openStore(*store)
		if err != nil {
			return e.usageError("dedup: --store "+strconv.Quote(*store)+": "+err.Error(), e.cmd)
		}
		d := &deduper{e: e, set: set}
		// Before a read that may block, settle the batch so output keeps up
		// with a slow input ("tail -f log | uriscan dedup").
		e.sc.beforeRead = func() { d.flush(); e.flush() }
		code = e.eachRecord(files, func(name string, s *recordScanner) {
			d.lines++
			if s.ParseError() != nil {
				d.invalid++
				e.reportLine(name, s)
				return
			}
			d.keys = append(d.keys, seen.Key(h.Sum(s.URI())))
			d.text = append(d.text, s.Bytes()...)
			d.text = append(d.text, '\n')
			d.ends = append(d.ends, len(d.text))
			if len(d.keys) == dedupBatch {
				d.flush()
			}
		})
		d.flush()
		if err := set.Close(); err != nil && d.err == nil {
			d.err = err
		}
		if d.err != nil {
			e.ioError("dedup: store: " + d.err.Error())
			code = exitUsage
		}
		e.errw.WriteString("uriscan: dedup: lines " + strconv.FormatInt(d.lines, 10) +
			", invalid " + strconv.FormatInt(d.invalid, 10) +
			", unique " + strconv.FormatInt(d.unique, 10) +
			", duplicates " + strconv.FormatInt(d.lines-d.invalid-d.unique, 10) + "\n")
		e.flush()
		return code
	}
}

// deduper holds one batch of valid records on their way to the set.
type deduper struct {
	e                      *env
	set                    seen.Set
	keys                   []seen.Key
	isNew                  []bool
	text                   []byte // the batch's lines, each ending in "\n"
	ends                   []int  // end of each line in text
	lines, invalid, unique int64
	err                    error
}

// flush adds the batch to the set and writes the lines that were new, in
// input order.
func (d *deduper) flush() {
	if len(d.keys) == 0 {
		return
	}
	if d.err == nil {
		d.isNew = append(d.isNew[:0], make([]bool, len(d.keys))...)
		if err := d.set.AddBatch(d.keys, d.isNew); err != nil {
			d.err = err
		} else {
			start := 0
			for i, end := range d.ends {
				if d.isNew[i] {
					d.unique++
					d.e.out.Write(d.text[start:end])
				}
				start = end
			}
		}
	}
	d.keys, d.text, d.ends = d.keys[:0], d.text[:0], d.ends[:0]
}

// openStore opens the seen-set a --store value names.
func openStore(spec string) (seen.Set, error) {
	switch {
	case spec == "memory":
		return seen.NewMemory(1 << 16), nil
	case strings.HasPrefix(spec, "disk:"):
		return openDiskStore(strings.TrimPrefix(spec, "disk:"))
	case strings.HasPrefix(spec, "redis://"):
		return openRedisStore(strings.Split(strings.TrimPrefix(spec, "redis://"), ","))
	}
	return nil, errors.New("want memory, disk:DIR or redis://HOST:PORT[,HOST:PORT...]")
}
