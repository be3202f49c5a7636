// Package compat writes the canonical forms of other tools, byte for byte,
// so that keys made by uriscan match theirs:
//
//   - AppendW3lib: Python w3lib's canonicalize_url, on which Scrapy's
//     request fingerprints are built;
//   - AppendSURT: the Internet Archive's surt(), the key Heritrix, the
//     Wayback Machine and Common Crawl's CDX indexes sort by;
//   - AppendSafeBrowsing: Google Safe Browsing's URL canonicalization, the
//     lookup key of its blocklists.
//
// None of them is an RFC 3986 equivalence, and each reads any bytes, as
// its owner reads a line, not only a URI that parses: an input the owner
// refuses is an error of this package (ErrW3libNotUTF8, ErrSURTBlank,
// ErrSafeBrowsingNoHost, ...). Package normalize has the RFC 3986 normal
// forms; its levels W3lib and SafeBrowsing are AppendW3lib and
// AppendSafeBrowsing.
package compat
