package main

import (
	"flag"
	"strconv"
	"strings"

	"github.com/uriscan/uriscan/normalize"
)

// normFlags are the normalizer's options on normalize and dedup: the
// level, each crawler heuristic by name, the parameters to strip, and the
// opt-in RFC forms.
type normFlags struct {
	level       *string
	keepDots    *bool
	ipv6        *bool
	heuristics  []*bool
	stripParams stringsFlag
}

// heuristicFlags name the crawler heuristics (normalize.Heuristics) on
// the command line.
var heuristicFlags = []struct {
	name  string
	h     normalize.Heuristics
	usage string
}{
	{"drop-fragment", normalize.DropFragment, "remove the fragment"},
	{"strip-params", normalize.StripParams, "remove session and click-tracking query parameters (utm_*, gclid, jsessionid...; or the --strip-param names)"},
	{"sort-query", normalize.SortQuery, "sort the query's parameters by name, stably"},
	{"drop-empty-query", normalize.DropEmptyQuery, "remove a \"?\" with nothing after it"},
	{"collapse-slashes", normalize.RemoveDuplicateSlashes, "turn runs of \"/\" in the path into one"},
	{"strip-www", normalize.StripWWW, "remove a leading \"www.\" from the host"},
	{"drop-index", normalize.DropIndexPages, "remove a last path segment that is a default index page (index.html, default.aspx...)"},
	{"idna", normalize.IDNA, "write a Unicode (percent-encoded UTF-8) host as its A-label, by UTS #46 as browsers look it up"},
}

func addNormFlags(fs *flag.FlagSet) *normFlags {
	f := &normFlags{
		level:    fs.String("level", "scheme", "`syntax` (RFC 3986 §6.2.2), scheme (§6.2.2 and §6.2.3), crawler (scheme and every non-RFC heuristic below; with heuristic flags, only those), safebrowsing (Google Safe Browsing's canonicalization) or w3lib (Python w3lib's canonicalize_url, as Scrapy fingerprints requests); the last two read any line as their owner does"),
		keepDots: fs.Bool("keep-encoded-dots", false, "keep a path segment written %2E or %2E%2E encoded instead of removing it as a dot segment (RFC 3986 §6.2.2's order), so that normal forms resolve references as the original does"),
		ipv6:     fs.Bool("ipv6-rfc5952", false, "write IPv6 hosts in RFC 5952's text form (compressed, lower case), as net/netip does: another equivalence than RFC 3986's"),
	}
	for _, h := range heuristicFlags {
		f.heuristics = append(f.heuristics, fs.Bool(h.name, false, "crawler heuristic: "+h.usage+" (implies --level crawler)"))
	}
	fs.Var(&f.stripParams, "strip-param", "a query parameter `NAME` that --strip-params removes, case-insensitive, \"*\" for any run of bytes (\"utm_*\"); repeatable; implies --strip-params and replaces its default list")
	return f
}

// config returns the level and the normalizer the flags give, and the
// seen-set parameters that record them (what a persistent store must
// match); or a usage error.
func (f *normFlags) config(fs *flag.FlagSet, cmd string) (normalize.Level, normalize.Normalizer, map[string]string, string) {
	lv, ok := normalize.ParseLevel(*f.level)
	if !ok {
		return 0, normalize.Normalizer{}, nil, cmd + ": --level must be syntax, scheme, crawler, safebrowsing or w3lib, not " + strconv.Quote(*f.level)
	}
	if lv.Raw() {
		for _, name := range []string{"keep-encoded-dots", "ipv6-rfc5952", "strip-param"} {
			if isFlagSet(fs, name) {
				return 0, normalize.Normalizer{}, nil, cmd + ": --" + name + " applies to the RFC levels and crawler, not --level " + *f.level + " (which is its owner's canonicalization, exactly)"
			}
		}
		for i, h := range heuristicFlags {
			if *f.heuristics[i] {
				return 0, normalize.Normalizer{}, nil, cmd + ": --" + h.name + " applies at --level crawler, not " + *f.level + " (which is its owner's canonicalization, exactly)"
			}
		}
		return lv, normalize.Normalizer{}, map[string]string{"level": lv.String()}, ""
	}
	n := normalize.Normalizer{KeepEncodedDots: *f.keepDots, IPv6RFC5952: *f.ipv6}
	var names []string
	for i, h := range heuristicFlags {
		if *f.heuristics[i] || h.h == normalize.StripParams && len(f.stripParams) > 0 {
			n.Heuristics |= h.h
			names = append(names, h.name)
		}
	}
	if len(f.stripParams) > 0 {
		n.StripParams = f.stripParams
	}
	if n.Heuristics != 0 {
		if isFlagSet(fs, "level") && lv != normalize.Crawler {
			return 0, n, nil, cmd + ": the heuristic flags apply at --level crawler (on top of scheme), not " + *f.level
		}
		lv = normalize.Crawler
	}
	params := map[string]string{"level": lv.String()}
	if !n.KeepEncodedDots {
		// Since issue 11, "%2E" segments are removed as dot segments: a
		// store made before (which kept them) is refused, and
		// --keep-encoded-dots goes on with it.
		params["dot-segments"] = "rfc3986"
	}
	if n.IPv6RFC5952 {
		params["ipv6"] = "rfc5952"
	}
	if lv == normalize.Crawler && (n.Heuristics == 0 || n.Heuristics&normalize.IDNA != 0) {
		// Since issue 11 the crawler level writes IDN hosts as A-labels:
		// a crawler-level store made before is refused, not mixed.
		params["idna"] = "uts46"
	}
	if n.Heuristics != 0 {
		params["heuristics"] = strings.Join(names, ",")
	}
	if n.StripParams != nil {
		params["strip-params"] = strings.Join(n.StripParams, ",")
	}
	return lv, n, params, ""
}

// configure gives h the normalizer's options.
func configure(h *normalize.Hasher, n normalize.Normalizer) {
	c := h.Config()
	c.Heuristics, c.StripParams, c.KeepEncodedDots, c.IPv6RFC5952 = n.Heuristics, n.StripParams, n.KeepEncodedDots, n.IPv6RFC5952
}
