package cli

import (
	"strconv"

	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/urikey"
)

// normFlags are the normalizer's options on normalize and dedup: the
// level, each crawler heuristic by name, the parameters to strip, and the
// opt-in RFC forms.
type normFlags struct {
	level       *string
	keepDots    *bool
	keepRoot    *bool
	ipv6        *bool
	heuristics  []*bool
	stripParams stringsFlag
}

// heuristicFlags are the crawler heuristics (normalize.Heuristics) on the
// command line, each a flag named as normalize names it
// (Heuristics.String: the names a store records).
var heuristicFlags = []struct {
	h     normalize.Heuristics
	usage string
}{
	{normalize.DropFragment, "remove the fragment"},
	{normalize.StripParams, "remove session and click-tracking query parameters (utm_*, gclid, jsessionid...; or the --strip-param names)"},
	{normalize.SortQuery, "sort the query's parameters by name, stably"},
	{normalize.DropEmptyQuery, "remove a \"?\" with nothing after it"},
	{normalize.RemoveDuplicateSlashes, "turn runs of \"/\" in the path into one"},
	{normalize.StripWWW, "remove a leading \"www.\" from the host"},
	{normalize.DropIndexPages, "remove a last path segment that is a default index page (index.html, default.aspx...)"},
	{normalize.IDNA, "write a Unicode (percent-encoded UTF-8) host as its A-label, by UTS #46 as browsers look it up"},
}

func addNormFlags(fs *flagSet) *normFlags {
	f := &normFlags{
		level:    fs.String("level", "scheme", "`syntax` (RFC 3986 §6.2.2), scheme (§6.2.2 and §6.2.3), crawler (scheme and every non-RFC heuristic below; with heuristic flags, only those), shape (crawler, then ids in the path as :int, :uuid, :date, :hex and the query as its sorted keys: \"similar\" URLs are one, as uro and urldedupe -s see them), safebrowsing (Google Safe Browsing's canonicalization) or w3lib (Python w3lib's canonicalize_url, as Scrapy fingerprints requests); the last two read any line as their owner does"),
		keepDots: fs.Bool("keep-encoded-dots", false, "keep a path segment written %2E or %2E%2E encoded instead of removing it as a dot segment (RFC 3986 §6.2.2's order), so that normal forms resolve references as the original does"),
		keepRoot: fs.Bool("keep-rootless-dots", false, "keep the dot segments of a rootless path (\"foo:a/../b\" stays, instead of RFC 3986 §6.2.2.3's \"foo:/b\"), the normal form of uriscan before 2026-12, so that references with an empty path resolve against normal forms exactly as against the original; a relative reference's rootless path keeps them either way"),
		ipv6:     fs.Bool("ipv6-rfc5952", false, "write IPv6 hosts in RFC 5952's text form (compressed, lower case), as net/netip does: another equivalence than RFC 3986's"),
	}
	for _, h := range heuristicFlags {
		f.heuristics = append(f.heuristics, fs.Bool(h.h.String(), false, "crawler heuristic: "+h.usage+" (implies --level crawler)"))
	}
	fs.Var(&f.stripParams, "strip-param", "a query parameter `NAME` that --strip-params removes, case-insensitive, \"*\" for any run of bytes (\"utm_*\"); repeatable; implies --strip-params and replaces its default list")
	return f
}

// config returns the level and the normalizer the flags give, or a usage
// error. (What a persistent store records of them is the hasher's:
// urikey.Hasher.Params.)
func (f *normFlags) config(fs *flagSet, cmd string) (normalize.Level, normalize.Normalizer, string) {
	lv, ok := normalize.ParseLevel(*f.level)
	if !ok {
		return 0, normalize.Normalizer{}, cmd + ": --level must be syntax, scheme, crawler, shape, safebrowsing or w3lib, not " + strconv.Quote(*f.level)
	}
	if lv.Raw() {
		for _, name := range []string{"keep-encoded-dots", "keep-rootless-dots", "ipv6-rfc5952", "strip-param"} {
			if fs.given(name) {
				return 0, normalize.Normalizer{}, cmd + ": --" + name + " applies to the RFC levels and crawler, not --level " + *f.level + " (which is its owner's canonicalization, exactly)"
			}
		}
		for i, h := range heuristicFlags {
			if *f.heuristics[i] {
				return 0, normalize.Normalizer{}, cmd + ": --" + h.h.String() + " applies at --level crawler, not " + *f.level + " (which is its owner's canonicalization, exactly)"
			}
		}
		return lv, normalize.Normalizer{}, ""
	}
	n := normalize.Normalizer{KeepEncodedDots: *f.keepDots, KeepRootlessDots: *f.keepRoot, IPv6RFC5952: *f.ipv6}
	for i, h := range heuristicFlags {
		if *f.heuristics[i] || h.h == normalize.StripParams && len(f.stripParams) > 0 {
			n.Heuristics |= h.h
		}
	}
	if len(f.stripParams) > 0 {
		n.StripParams = f.stripParams
	}
	if n.Heuristics != 0 {
		if fs.given("level") && lv != normalize.Crawler && lv != normalize.Shape {
			return 0, n, cmd + ": the heuristic flags apply at --level crawler or shape (on top of scheme), not " + *f.level
		}
		if lv != normalize.Shape {
			lv = normalize.Crawler
		}
	}
	return lv, n, ""
}

// configure gives h the normalizer's options.
func configure(h *urikey.Hasher, n normalize.Normalizer) {
	c := h.Config()
	c.Heuristics, c.StripParams, c.KeepEncodedDots, c.KeepRootlessDots, c.IPv6RFC5952 = n.Heuristics, n.StripParams, n.KeepEncodedDots, n.KeepRootlessDots, n.IPv6RFC5952
}
