// Package uriscan validates and splits URI-references (RFC 3986) at memory
// speed, with zero allocations.
//
// # What is scanned
//
// Parse and ParseString accept exactly the URI-reference rule of RFC 3986
// Appendix A, strictly: every rule, including the nine IPv6address forms
// with an embedded IPv4 ls32, IPvFuture, dec-octet with first-match-wins
// between IPv4address and reg-name ("01.2.3.4" and "1.2.3.4.5" are
// reg-names), the path-noscheme colon rule ("a:b" has scheme "a", "./a:b"
// is relative, "1a:b" is invalid), pct-encoded triplets in every component
// that allows them, and "[" "]" only around an IP-literal. Nothing is
// decoded or normalized; see RFC 3986 §6 for that (package normalize).
// Deviations from the RFC: none known. Inputs longer than 2 GiB are not
// supported (offsets are 32-bit).
//
// # How
//
// Scanning runs in two stages (the README and docs/kernels.md describe them, with the masks
// and the kernels). A kernel classifies the
// input 64 bytes at a time into bit masks: invalid bytes (which never
// appear in a URI), structural bytes (the gen-delims and "%"), newlines,
// and the structural bytes that still matter after the authority
// ("?", "#", "%", "[", "]"). The walk then visits only the set bits,
// reading the byte at each to learn which delimiter it is, and checks the
// few short ranges that need more than a byte class (scheme, port, IP
// literals, the two hex digits after "%"). The scalar kernel in
// classify_generic.go is the reference that every SIMD kernel must equal.
//
// LineScanner is the batch form: a buffer or stream of newline-separated
// references is classified once, window by window, and the walk takes the
// records from the masks, with no per-line kernel call or allocation.
//
// # CPUs, build tags and GODEBUG
//
// On amd64 the AVX-512 kernel (F, BW and VBMI) or the AVX2 kernel runs, on
// arm64 the NEON kernel, elsewhere the scalar one; Kernel reports which.
// The choice is made once at start-up from golang.org/x/sys/cpu, which
// honours GODEBUG=cpu.avx512f=off and cpu.avx2=off (the latter turns off
// both amd64 kernels); a SIMD kernel that does not match the scalar one on
// a start-up self-check is never used. Every dispatch decision of every
// package (kernel, batch assembly, normalizer hints, HighwayHash) is made
// in one place, internal/cpufeat, from which `uriscan cpu` reports. The
// purego build tag (noasm is accepted as its alias) compiles no assembly
// in any package.
//
// # Aliasing
//
// A URI holds offsets, not copies: one from Parse refers to the caller's
// slice, one from ParseString to the string, one from a LineScanner to the
// scanner's buffer (valid until the next Scan). Errors copy what they
// quote.
//
// # Errors
//
// An invalid reference gives a *Error with the byte offset of the first
// offending byte and a cause for errors.Is. The offset is defined so that
// any two conforming implementations agree on it:
//
//  1. Split the input into components the way Appendix B does, with the
//     colon rule: the scheme is the text before the first ":" if that ":"
//     comes before any "/", "?" or "#"; "//" after it (or at the start)
//     opens an authority that runs to the next "/", "?" or "#"; the path
//     runs to the first "?" or "#", the query to the first "#", the
//     fragment to the end. In the authority, userinfo runs to the first
//     "@"; a host starting with "[" runs to the first "]"; otherwise the
//     host runs to the first ":" after the userinfo and the port follows.
//  2. The offset is the smallest offset at which one of these holds:
//     a byte that is never valid in a URI; a scheme that is empty (offset
//     0), does not begin with ALPHA (offset 0), or holds a byte other than
//     ALPHA / DIGIT / "+" / "-" / "."; a "%" not followed by two HEXDIG; a
//     "[" or "]" other than the brackets of an IP-literal host; a second
//     "@" in the authority; a second "#"; a port byte that is not DIGIT;
//     an IP-literal without "]" (offset: end of the authority; its text up
//     to there is still checked by the rules that follow); a byte
//     after the "]" other than ":" (its offset); an IPvFuture that stops
//     matching "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) (the
//     offset where it stops, or of the "]" if it is too short); an IPv6
//     literal byte other than HEXDIG, ":" or "." (its offset); an IPv6
//     literal of such bytes that is not an IPv6address (the offset of its
//     first byte, just after "[").
//
// These rules accept exactly the strings the ABNF accepts; a test checks
// that against an independent recursive-descent transcription of
// Appendix A (internal/abnf).
package uriscan
