package bench

import (
	"cmp"
	"encoding/hex"
	"slices"

	"github.com/PuerkitoBio/purell"
	"github.com/minio/highwayhash"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

// The normalization comparison (BenchmarkNormalize, `cmd/compare -mode
// normalize`) times normalizers, and the hash alone, on the lines of each
// shared list that every normalizer compiled in accepts (NormCorpus), so
// every impl does the work on the same lines. Impl.One is the untimed,
// one-line form used to choose those lines and in the tests.

// Baselines of the normalization table.
const (
	NormBaseline   = "purell-safe"
	NormBaseline2  = "uriparser-normalize"
	HeadlineNormID = "uriscan-scheme-hash"
)

// HashKey is the fixed HighwayHash key of the hashing impls.
var HashKey = []byte("uriscan bench key, 32 bytes long")

// sink keeps results alive so the compiler cannot drop the work.
var sink int

var normImpls = []Impl{
	{
		rank: 10, Name: "uriscan-syntax",
		Desc: "uriscan.Parse + normalize.Normalizer.Append(dst[:0], &u, normalize.Syntax) into a reused buffer: RFC 3986 §6.2.2",
		Prepare: func(c *Corpus) func() int {
			return uriscanNormPass(c, normalize.Syntax)
		},
		One: func(l []byte) (string, bool) { return uriscanNormOne(l, normalize.Syntax) },
	},
	{
		rank: 11, Name: "uriscan-scheme",
		Desc: "uriscan.Parse + Normalizer.Append at normalize.Scheme: §6.2.2 and §6.2.3 (default/empty port, empty http(s) path to \"/\")",
		Prepare: func(c *Corpus) func() int {
			return uriscanNormPass(c, normalize.Scheme)
		},
		One: func(l []byte) (string, bool) { return uriscanNormOne(l, normalize.Scheme) },
	},
	{
		rank: 12, Name: HeadlineNormID,
		Desc: "uriscan.Parse + urikey.Hasher.Sum at normalize.Scheme: the normal form, then its keyed HighwayHash-128 (the seen-set key)",
		Prepare: func(c *Corpus) func() int {
			h, err := urikey.NewHasher(HashKey, normalize.Scheme)
			if err != nil {
				panic(err)
			}
			return func() (ok int) {
				var acc byte
				for _, l := range c.Lines {
					u, err := uriscan.Parse(l)
					if err != nil {
						continue
					}
					s := h.Sum(&u)
					acc ^= s[0]
					ok++
				}
				sink += int(acc)
				return ok
			}
		},
		One: oneSchemeHash,
	},
	{
		rank: 13, Name: "uriscan-scheme-hash-preparsed",
		Desc: "urikey.Hasher.Sum at normalize.Scheme on URIs parsed before timing: uriscan-scheme-hash without its uriscan.Parse (not comparable with the peers, which all parse)",
		Prepare: func(c *Corpus) func() int {
			h, err := urikey.NewHasher(HashKey, normalize.Scheme)
			if err != nil {
				panic(err)
			}
			uris := make([]uriscan.URI, 0, len(c.Lines))
			for _, l := range c.Lines {
				if u, err := uriscan.Parse(l); err == nil {
					uris = append(uris, u)
				}
			}
			return func() int {
				var acc byte
				for i := range uris {
					s := h.Sum(&uris[i])
					acc ^= s[0]
				}
				sink += int(acc)
				return len(uris)
			}
		},
		One: oneSchemeHash,
	},
	{
		rank: 20, Name: "highwayhash-only",
		Desc: "github.com/minio/highwayhash Sum128 of the raw line, no parse or normalization: the hash's share of uriscan-scheme-hash",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				var acc byte
				for _, l := range c.Lines {
					s := highwayhash.Sum128(l, HashKey)
					acc ^= s[0]
					ok++
				}
				sink += int(acc)
				return ok
			}
		},
		One: func(l []byte) (string, bool) {
			s := highwayhash.Sum128(l, HashKey)
			return hex.EncodeToString(s[:]), true
		},
	},
	{
		rank: 21, Name: "uriscan-hash-only",
		Desc: "urikey.Hasher.SumBytes of the raw line (uriscan's one-call AVX2 HighwayHash-128, digests equal to highwayhash.Sum128): the hash's share of uriscan-scheme-hash",
		Prepare: func(c *Corpus) func() int {
			h, err := urikey.NewHasher(HashKey, normalize.Scheme)
			if err != nil {
				panic(err)
			}
			return func() (ok int) {
				var acc byte
				for _, l := range c.Lines {
					s := h.SumBytes(l)
					acc ^= s[0]
					ok++
				}
				sink += int(acc)
				return ok
			}
		},
		One: func(l []byte) (string, bool) {
			h, _ := urikey.NewHasher(HashKey, normalize.Scheme)
			s := h.SumBytes(l)
			return hex.EncodeToString(s[:]), true
		},
	},
	{
		rank: 30, Name: NormBaseline,
		Desc: "github.com/PuerkitoBio/purell v1.2.1 NormalizeURLString(s, purell.FlagsSafe) (**baseline**): net/url.Parse, lowercase host, width fold + NFC + IDNA ToASCII of the host, then the flags; returns a new string",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				n := 0
				for _, s := range c.Strs {
					r, err := purell.NormalizeURLString(s, purell.FlagsSafe)
					if err != nil {
						continue
					}
					n += len(r)
					ok++
				}
				sink += n
				return ok
			}
		},
		One: func(l []byte) (string, bool) {
			r, err := purell.NormalizeURLString(string(l), purell.FlagsSafe)
			return r, err == nil
		},
	},
}

func uriscanNormPass(c *Corpus, level normalize.Level) func() int {
	var n normalize.Normalizer
	var buf []byte
	return func() (ok int) {
		total := 0
		for _, l := range c.Lines {
			u, err := uriscan.Parse(l)
			if err != nil {
				continue
			}
			buf = n.Append(buf[:0], &u, level)
			total += len(buf)
			ok++
		}
		sink += total
		return ok
	}
}

func uriscanNormOne(l []byte, level normalize.Level) (string, bool) {
	u, err := uriscan.Parse(l)
	if err != nil {
		return "", false
	}
	var n normalize.Normalizer
	return string(n.Append(nil, &u, level)), true
}

// NormImpls returns the normalizers compiled into this binary (tag
// uriparser adds uriparser-normalize), in table order.
func NormImpls() []Impl {
	out := slices.Clone(normImpls)
	slices.SortStableFunc(out, func(a, b Impl) int { return cmp.Compare(a.rank, b.rank) })
	return out
}

// registerNorm adds a normalizer from a file behind a build tag.
func registerNorm(i Impl) { normImpls = append(normImpls, i) }

// NormCorpus returns the lines of c that every impl accepts (Impl.One), as
// a corpus of its own, and how many lines of all of c each impl accepts.
func NormCorpus(c *Corpus, impls []Impl) (common *Corpus, accepted []int) {
	accepted = make([]int, len(impls))
	var joined []byte
	for _, l := range c.Lines {
		all := true
		for i, impl := range impls {
			if _, ok := impl.One(l); ok {
				accepted[i]++
			} else {
				all = false
			}
		}
		if all {
			joined = append(joined, l...)
			joined = append(joined, '\n')
		}
	}
	return NewCorpus(c.Name, joined), accepted
}

// oneSchemeHash is the untimed one-line form of the scheme-level hash
// impls: the hex digest of the line's normal form.
func oneSchemeHash(l []byte) (string, bool) {
	u, err := uriscan.Parse(l)
	if err != nil {
		return "", false
	}
	h, _ := urikey.NewHasher(HashKey, normalize.Scheme)
	s := h.Sum(&u)
	return hex.EncodeToString(s[:]), true
}
