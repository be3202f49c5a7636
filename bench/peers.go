// Package bench compares uriscan with other URL and URI parsers on the
// shared URL lists (../../shared/data/urls/*.txt from this directory).
//
// It is its own module so that the peers' dependencies (and the cgo ones,
// behind build tags) never reach uriscan's go.mod. BenchmarkPeers
// (bench_test.go) runs every peer in one `go test` run for benchstat;
// cmd/compare prints a Markdown table. Build tags add cgo peers:
//
//	uriparser   uriparser, the strict RFC 3986 C library (liburiparser-dev)
//
// Every peer parses the same lines: each file minus a leading UTF-8 byte
// order mark, split at "\n", one trailing "\r" removed, empty lines left
// out. Throughput counts the bytes of those lines, terminators excluded.
package bench

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	neturl "net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	fredbi "github.com/fredbi/uri"
	whatwg "github.com/nlnwa/whatwg-url/url"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/shareddata"
)

// DefaultDataDir is where the shared URL lists are, relative to this
// directory (the working directory of `go test` and of `go run
// ./cmd/compare` started here).
const DefaultDataDir = "../../shared/data/urls"

// Corpus is one URL list, prepared once in every form a peer takes.
type Corpus struct {
	Name   string
	Lines  [][]byte // the records, no terminators, none empty
	Strs   []string // the same records as strings
	Joined []byte   // the records, each followed by "\n" (batch scanners)
	Bytes  int      // the sum of len(Lines[i])
}

// NewCorpus splits data into the records every peer parses.
func NewCorpus(name string, data []byte) *Corpus {
	c := &Corpus{Name: name}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for l := range bytes.SplitSeq(data, []byte("\n")) {
		l = bytes.TrimSuffix(l, []byte("\r"))
		if len(l) == 0 {
			continue
		}
		c.Lines = append(c.Lines, l)
		c.Bytes += len(l)
	}
	c.Joined = make([]byte, 0, c.Bytes+len(c.Lines))
	c.Strs = make([]string, len(c.Lines))
	for _, l := range c.Lines {
		c.Joined = append(c.Joined, l...)
		c.Joined = append(c.Joined, '\n')
	}
	// Lines and Strs alias one copy each, laid out as in the file.
	for i, off := 0, 0; i < len(c.Lines); i++ {
		n := len(c.Lines[i])
		c.Lines[i] = c.Joined[off : off+n : off+n]
		off += n + 1
	}
	all := string(c.Joined)
	for i, off := 0, 0; i < len(c.Lines); i++ {
		n := len(c.Lines[i])
		c.Strs[i] = all[off : off+n]
		off += n + 1
	}
	return c
}

// LoadCorpora reads every *.txt in dir, in name order. It returns an error
// wrapping fs.ErrNotExist when dir holds no lists, so callers can skip.
func LoadCorpora(dir string) ([]*Corpus, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("bench: no URL lists in %s: %w", dir, fs.ErrNotExist)
	}
	slices.Sort(files)
	var cs []*Corpus
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		cs = append(cs, NewCorpus(strings.TrimSuffix(filepath.Base(f), ".txt"), data))
	}
	return cs, nil
}

// FindDataDir returns dir if it holds URL lists, else $URISCAN_DATA/urls,
// else DefaultDataDir found from the location of this source file (so
// cmd/compare works from any working directory of the same checkout),
// else dir.
func FindDataDir(dir string) string {
	if m, _ := filepath.Glob(filepath.Join(dir, "*.txt")); len(m) > 0 {
		return dir
	}
	if d, ok := shareddata.Dir(); ok {
		return filepath.Join(d, "urls")
	}
	if _, file, _, ok := runtime.Caller(0); ok {
		alt := filepath.Join(filepath.Dir(file), DefaultDataDir)
		if m, _ := filepath.Glob(filepath.Join(alt, "*.txt")); len(m) > 0 {
			return alt
		}
	}
	return dir
}

// IsNotExist reports whether err means the URL lists are absent.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// Impl is one peer: a parser and the way it is called.
type Impl struct {
	Name string
	// What is called, and how strictly it validates.
	Desc string
	// Prepare does the per-corpus set-up outside the timed region and
	// returns one pass: parse every record of c once and return how many
	// were accepted.
	Prepare func(c *Corpus) (pass func() int)
	// One, set for the normalizers (NormImpls), handles one line outside
	// any timing: its normal form (or hash, in hex) and whether the line
	// was accepted. It picks the lines all normalizers accept, and tests
	// compare outputs with it.
	One func(line []byte) (out string, ok bool)

	rank int // table order
}

// Baseline is the Name of the peer that ratios are relative to.
const Baseline = "net-url"

var impls = []Impl{
	{
		rank: 10, Name: "uriscan",
		Desc: "uriscan.Parse per line ([]byte): strict RFC 3986 URI-reference, zero-copy split",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				for _, l := range c.Lines {
					if _, err := uriscan.Parse(l); err == nil {
						ok++
					}
				}
				return ok
			}
		},
	},
	{
		rank: 11, Name: "uriscan-batch",
		Desc: "uriscan.LineScanner over the whole file (NewLineScannerBytes): same validation and split, newline-separated records",
		Prepare: func(c *Corpus) func() int {
			s := uriscan.NewLineScannerBytes(c.Joined)
			return func() (ok int) {
				s.ResetBytes(c.Joined)
				for s.Scan() {
					if s.Valid() {
						ok++
					}
				}
				return ok
			}
		},
	},
	{
		rank: 20, Name: Baseline,
		Desc: "net/url.Parse (baseline): lenient, RFC 3986 in spirit, unescapes path, allocates a *URL",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				for _, s := range c.Strs {
					if _, err := neturl.Parse(s); err == nil {
						ok++
					}
				}
				return ok
			}
		},
	},
	{
		rank: 21, Name: "net-url-request",
		Desc: "net/url.ParseRequestURI: as net/url.Parse, but absolute URI or absolute path only, no fragment",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				for _, s := range c.Strs {
					if _, err := neturl.ParseRequestURI(s); err == nil {
						ok++
					}
				}
				return ok
			}
		},
	},
	{
		rank: 30, Name: "fredbi-uri",
		Desc: "github.com/fredbi/uri ParseReference (pure Go): RFC 3986 URI-reference, strict on characters and percent-encoding, plus DNS-name rules for known schemes; IsURIReference is the same code",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				for _, s := range c.Strs {
					if _, err := fredbi.ParseReference(s); err == nil {
						ok++
					}
				}
				return ok
			}
		},
	},
	{
		rank: 31, Name: "whatwg-url",
		Desc: "github.com/nlnwa/whatwg-url Parse (pure Go): WHATWG URL Standard, not RFC 3986; absolute URLs only (no base), lenient, percent-encodes and normalizes",
		Prepare: func(c *Corpus) func() int {
			p := whatwg.NewParser()
			return func() (ok int) {
				for _, s := range c.Strs {
					if _, err := p.Parse(s); err == nil {
						ok++
					}
				}
				return ok
			}
		},
	},
}

// Impls returns the peers compiled into this binary, in table order.
func Impls() []Impl {
	out := slices.Clone(impls)
	slices.SortStableFunc(out, func(a, b Impl) int { return cmp.Compare(a.rank, b.rank) })
	return out
}

// register adds a peer from a file behind a build tag.
func register(i Impl) { impls = append(impls, i) }
