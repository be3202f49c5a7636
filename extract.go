package uriscan

import (
	"bytes"
	"io"
	"math/bits"

	"github.com/uriscan/uriscan/classify"
)

// Extractor finds absolute URIs in free text: logs, mail, pages. The
// classification kernel finds the candidates a block at a time (a ':'
// among 64 bytes is one bit of its masks); scalar code only looks at those
// colons: it walks back over the scheme, forward over the bytes a URI may
// hold, delimits the candidate as RFC 3986 Appendix C recommends, and
// hands it to the strict scanner.
//
// # What is a match
//
// A candidate is a scheme (the longest run of scheme characters before a
// ':' that starts with a letter; it must be one of Schemes,
// case-insensitively), the ':', and the bytes after it up to the first
// byte that cannot occur in a URI (space, control, '"', '<', '>', '\\',
// '^', '`', '{', '|', '}', DEL, non-ASCII). So "<URL:http://a/b>",
// "<http://a/b>", "\"http://a/b\"" and whitespace delimit a URI as Appendix
// C recommends. Then, in a loop until nothing changes:
//
//   - trailing sentence punctuation is not part of the URI: . , ; : ! ? '
//   - a trailing ')' or ']' is kept only when it closes a bracket opened
//     inside the candidate ("https://en.wikipedia.org/wiki/Go_(language)"
//     stays whole; "(see http://a/b)" gives "http://a/b"; so does the
//     Markdown "[t](http://a/b)");
//   - the candidate is parsed strictly (RFC 3986); if it fails, it is cut
//     at the first offending byte ("[http://a/b](http://a/b)" gives the
//     two URIs).
//
// What remains is a match if it parses and has more than its scheme and
// ':' (with "//", a non-empty host), and does not end inside what a
// reader takes for its userinfo (up to the last '@' before the first
// '/', '?' or '#' after "//": "http://u:p@q@h/" gives no
// "http://u:p@q", whose host would be the end of the password). A
// candidate that leaves no match is a rejection (see Rejects). Matches do
// not overlap and come in input order.
//
// A scheme inside what a reader takes for an authority is none, and no
// candidate: in "//user:pw@host/p" and "//x@user:pw@host/p" (the nearest
// '/', '?', '#' or byte no URI holds before "user" is the second '/' of a
// "//"), "user:pw@host/p" is the userinfo and host of a network-path
// reference, not a URI (that would show the password), unless its ':' is
// followed by "//" ("//http://a/" holds "http://a/").
type Extractor struct {
	// Schemes are the schemes that count (lower case); nil means "http"
	// and "https". AnyScheme takes every syntactically valid scheme of
	// at least MinSchemeLen bytes (default 3, so that "a:b" in prose is
	// not a URI).
	Schemes      []string
	AnyScheme    bool
	MinSchemeLen int
	// Rejects makes Append report candidates that leave no match, with
	// Rejected set, instead of dropping them.
	Rejects bool

	masks [extractChunk / blockSize]blockMasks
	// before is the byte that precedes the text (AppendAfter), 0 if none.
	before byte
	// walkFrom and walkStop remember inAuthority's last walk back, from
	// the scheme at walkFrom to walkStop, so that the walks of one text
	// together cost one pass; walkFrom is -1 when none is known.
	walkFrom, walkStop int
	// eng is the engine whose kernel classifies the text (the tests run
	// each); nil means dispatch's.
	eng *engine
}

// Match is one URI found in a text: its bytes are text[Start:End] (offsets
// from the start of the text, or of the stream for a Scanner). Line is its
// line number, counting '\n' from 1, and Col its byte offset in that line:
// Start less the offset after the last '\n' before it (Col == Start when
// there is none). Rejected is set, with Rejects, for a candidate that left
// no URI; Start:End is then the candidate.
type Match struct {
	Start, End int64
	Line, Col  int64
	Rejected   bool
}

// extractChunk is how many bytes are classified at once: the masks of a
// chunk stay in L1 while its colons are confirmed.
const extractChunk = 64 * blockSize

// Append appends the matches in text to dst and returns it. It does not
// allocate beyond growing dst.
func (x *Extractor) Append(dst []Match, text []byte) []Match {
	return x.AppendAfter(dst, text, 0)
}

// AppendAfter is Append for a piece of a longer text: before is the byte
// that precedes it (0 if none), which the piece's first match may depend
// on ("\x22http://a/" holds the escape \x22 of nginx's logs only after a
// backslash). Pieces cut after a line end, or after any other byte no URI
// holds, give the matches of the whole text.
func (x *Extractor) AppendAfter(dst []Match, text []byte, before byte) []Match {
	x.before = before
	dst, _, _, _ = x.appendFrom(dst, text, 0, len(text), 0, 1)
	return dst
}

// appendFrom finds the matches whose colon lies in text[from:to] and that
// start at or after done; line is the line number at text[from]. It
// returns dst, the end of the last match (or done), the line number at
// text[to] and the offset after the last '\n' in text[from:to] (0 if
// none). The lines and their starts come from the newline masks.
func (x *Extractor) appendFrom(dst []Match, text []byte, from, to, done int, line int64) ([]Match, int, int64, int) {
	x.walkFrom = -1
	k := x.kernel()
	lineStart := 0 // after the last '\n' before block b
	for c := from; c < to; c += extractChunk {
		n := min(extractChunk, to-c)
		nb := (n + blockSize - 1) / blockSize
		classifyBlocks(x.masks[:nb], text[c:c+n], k)
		lines := line // at the start of block b
		for b := range nb {
			m := &x.masks[b]
			// ':' and '@' are the structural bytes that are neither in
			// the tail set (? # % [ ]) nor delimiters (/ ? #).
			colons := m.structural &^ (m.tail | m.delim)
			at := c + b*blockSize
			for colons != 0 {
				i := at + bits.TrailingZeros64(colons)
				colons &= colons - 1
				if text[i] != ':' || i < done {
					continue
				}
				start, end, ok := x.candidate(text, i, c, c+n)
				if start < 0 {
					continue
				}
				if start < done {
					continue
				}
				// No '\n' lies between start and the colon (a URI holds
				// none): the line is the colon's.
				before := m.newline & (1<<uint(i-at) - 1)
				l, ls := lines+int64(bits.OnesCount64(before)), lineStart
				if before != 0 {
					ls = at + 64 - bits.LeadingZeros64(before)
				}
				if ok {
					dst = append(dst, Match{Start: int64(start), End: int64(end), Line: l, Col: int64(start - ls)})
					done = end
				} else if x.Rejects {
					dst = append(dst, Match{Start: int64(start), End: int64(end), Line: l, Col: int64(start - ls), Rejected: true})
					done = end
				}
			}
			lines += int64(bits.OnesCount64(m.newline))
			if m.newline != 0 {
				lineStart = at + 64 - bits.LeadingZeros64(m.newline)
			}
		}
		line = lines
	}
	return dst, done, line, lineStart
}

// runEnd returns the index of the first byte at or after i that cannot be
// in a URI, or len(text): from the chunk's invalid masks (text[c:cEnd] is
// the chunk classified), then byte by byte past the chunk.
func (x *Extractor) runEnd(text []byte, i, c, cEnd int) int {
	for i < cEnd {
		b := (i - c) / blockSize
		bit := uint(i-c) % blockSize
		if inv := x.masks[b].invalid >> bit; inv != 0 {
			return min(i+bits.TrailingZeros64(inv), cEnd)
		}
		i += blockSize - int(bit)
	}
	// No byte of the chunk from i on ends the run: go on past the chunk.
	i = min(i, cEnd)
	for i < len(text) && classify.Table[text[i]]&classify.Invalid == 0 {
		i++
	}
	return i
}

// candidate delimits the URI whose scheme ends at the ':' text[i]. It
// (text[c:cEnd] is the chunk whose masks x holds.) It
// returns start < 0 if there is no candidate there (no allowed scheme),
// else the candidate's bounds and whether it is a match (else: a
// rejection, with the bounds of the whole candidate).
func (x *Extractor) candidate(text []byte, i, c, cEnd int) (start, end int, ok bool) {
	s := i
	for s > 0 && classify.Table[text[s-1]]&(classify.SchemeChar|classify.Alpha) != 0 {
		s--
	}
	// An escaped byte before it is not part of the scheme: nginx logs a
	// '"' inside a quoted field as \x22, and "\x22https://h/" holds
	// "https".
	prev := x.before
	if s > 0 {
		prev = text[s-1]
	}
	if prev == '\\' && i-s > 3 && text[s]|0x20 == 'x' && isHexDigit(text[s+1]) && isHexDigit(text[s+2]) {
		s += 3
	}
	// A scheme begins with a letter: "+http://" (a user agent's bot URL)
	// and "1http://" hold "http".
	for s < i && classify.Table[text[s]]&classify.Alpha == 0 {
		s++
	}
	if s == i || !x.allowed(text[s:i]) {
		return -1, 0, false
	}
	if x.inAuthority(text, s) && !(i+2 < len(text) && text[i+1] == '/' && text[i+2] == '/') {
		return -1, 0, false // "//user:pw@host": a userinfo, not a scheme
	}
	e := x.runEnd(text, i+1, c, cEnd)
	whole := e
	for {
		e = trimEnd(text[s:e]) + s
		if e <= i+1 {
			return s, whole, false
		}
		off := validPrefix(text[s:e], x.kernel())
		if off < 0 {
			break
		}
		if s+off < e {
			e = s + off
		} else {
			e-- // it ended too soon ("http://[::1"): shorter, until it parses
		}
	}
	// More than "scheme:"; with an authority, a host. The schemes whose
	// URIs always have a host (RFC 9110 §4.2: http, https; and ws, wss,
	// ftp) need "//" and one.
	rest := text[i+1 : e]
	slashes := len(rest) >= 2 && rest[0] == '/' && rest[1] == '/'
	if !slashes && needsHost(text[s:i]) {
		return s, whole, false
	}
	if slashes {
		// A match that ends before the last '@' of the authority a reader
		// sees in the candidate shows part of its userinfo as the rest
		// of a URI ("http://u:p@q@h/" cut at its second '@'): none.
		if at := readerUserinfoEnd(text[i+3 : whole]); at >= 0 && e <= i+3+at {
			return s, whole, false
		}
		h := 2
		if at := bytes.IndexByte(rest[2:], '@'); at >= 0 && bytes.IndexAny(rest[2:2+at], "/?#") < 0 {
			h += at + 1
		}
		if h >= len(rest) || rest[h] == '/' || rest[h] == '?' || rest[h] == '#' || rest[h] == ':' {
			return s, whole, false
		}
	}
	return s, e, true
}

// inAuthority reports whether the scheme that starts at text[s] is inside
// what a reader takes for an authority: the nearest byte before it that is
// '/', '?', '#' or a byte no URI holds is the second '/' of a "//".
func (x *Extractor) inAuthority(text []byte, s int) bool {
	j := s // text[j-1] is the nearest such byte, once found
	for j > 0 {
		if j == x.walkFrom {
			j = x.walkStop // the rest of the walk is known
			break
		}
		c := text[j-1]
		if c == '/' || c == '?' || c == '#' || classify.Table[c]&classify.Invalid != 0 {
			break
		}
		j--
	}
	x.walkFrom, x.walkStop = s, j
	switch {
	case j >= 2:
		return text[j-1] == '/' && text[j-2] == '/'
	case j == 1:
		return text[0] == '/' && x.before == '/'
	}
	return false
}

// readerUserinfoEnd returns the index of the last '@' in auth before its
// first '/', '?' or '#', or -1: where what a reader takes for the
// userinfo of the authority that auth starts ends.
func readerUserinfoEnd(auth []byte) int {
	if n := bytes.IndexAny(auth, "/?#"); n >= 0 {
		auth = auth[:n]
	}
	return bytes.LastIndexByte(auth, '@')
}

// needsHost reports whether URIs of scheme always have an authority with a
// host.
func needsHost(scheme []byte) bool {
	switch len(scheme) {
	case 2:
		return equalFold(scheme, "ws")
	case 3:
		return equalFold(scheme, "wss") || equalFold(scheme, "ftp")
	case 4:
		return equalFold(scheme, "http")
	case 5:
		return equalFold(scheme, "https")
	}
	return false
}

// trimEnd returns the length of c without trailing sentence punctuation
// and unbalanced closing brackets.
func trimEnd(c []byte) int {
	n := len(c)
	for n > 0 {
		switch c[n-1] {
		case '.', ',', ';', ':', '!', '?', '\'':
			n--
			continue
		case ')':
			if bytes.Count(c[:n], []byte("(")) < bytes.Count(c[:n], []byte(")")) {
				n--
				continue
			}
		case ']':
			if bytes.Count(c[:n], []byte("[")) < bytes.Count(c[:n], []byte("]")) {
				n--
				continue
			}
		}
		break
	}
	return n
}

// kernel is the kernel x classifies with: its engine's, else dispatch's.
func (x *Extractor) kernel() kernelID {
	if x.eng != nil {
		return x.eng.kernel
	}
	return dispatch.kernel
}

// validPrefix parses c strictly, classified with kernel k, and returns -1
// if it is a URI-reference, else the offset of the first byte at which it
// goes wrong.
func validPrefix(c []byte, k kernelID) int {
	if len(c) < shortBlocks*blockSize {
		var m [shortBlocks + 1]blockMasks
		return validPrefixIn(c, m[:], k)
	}
	var m [winBlocks + 1]blockMasks
	return validPrefixIn(c, m[:], k)
}

// validPrefixIn is validPrefix with the masks m (see cursor.m).
func validPrefixIn(c []byte, m []blockMasks, k kernelID) int {
	var w walker
	var u URI
	w.m, w.eng.kernel = m, k
	w.walkAll(&u, bytesToString(c))
	if w.errOff == noError {
		return -1
	}
	return w.errOff
}

// allowed reports whether scheme counts.
func (x *Extractor) allowed(scheme []byte) bool {
	if x.AnyScheme {
		min := x.MinSchemeLen
		if min <= 0 {
			min = 3
		}
		return len(scheme) >= min
	}
	if x.Schemes == nil {
		return len(scheme) == 4 && equalFold(scheme, "http") || len(scheme) == 5 && equalFold(scheme, "https")
	}
	for _, s := range x.Schemes {
		if len(s) == len(scheme) && equalFold(scheme, s) {
			return true
		}
	}
	return false
}

// equalFold compares an ASCII scheme with a lower-case name.
func equalFold(b []byte, lower string) bool {
	for i := range b {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// MaxExtractLength is the longest candidate an ExtractScanner keeps
// across reads: a run of URI bytes longer than this (a token of megabytes,
// a binary blob) is dropped, with any URI in it.
const MaxExtractLength = 64 << 10

// ExtractScanner finds the matches of an Extractor in a stream, a read
// buffer at a time; a URI that straddles two reads is found once, with
// its offsets in the stream. Each Scan hands out the matches settled by
// one read (Matches); Bytes gives a match's bytes until the next Scan.
type ExtractScanner struct {
	x    *Extractor
	r    io.Reader
	buf  []byte
	have int   // bytes of buf read
	from int   // buf[:from] is settled: dropped at the next Scan
	base int64 // stream offset of buf[0]
	line int64 // line number at buf[from]
	// lineStart is the stream offset after the last '\n' settled (where
	// the line at buf[from] starts).
	lineStart int64
	matches   []Match
	err       error
	eof       bool
	before    byte // the byte before buf[0] (see AppendAfter)
}

// NewExtractScanner returns a scanner of r's matches by x.
func NewExtractScanner(x *Extractor, r io.Reader) *ExtractScanner {
	return &ExtractScanner{x: x, r: r, buf: make([]byte, DefaultBufferSize), line: 1}
}

// Scan reads on until it has matches to hand out and reports whether it
// has; false at the end of the input (see Err).
func (s *ExtractScanner) Scan() bool {
	s.matches = s.matches[:0]
	for !s.eof {
		// Drop what is settled; keep the unfinished run of URI bytes.
		s.have = copy(s.buf, s.buf[s.from:s.have])
		s.base += int64(s.from)
		s.from = 0
		empty := 0
		for !s.eof && s.have < len(s.buf) {
			m, err := s.r.Read(s.buf[s.have:])
			s.have += m
			if err != nil {
				s.eof = true
				if err != io.EOF {
					s.err = err
				}
			}
			if m > 0 {
				break
			}
			if empty++; empty >= maxEmptyReads {
				s.eof, s.err = true, io.ErrNoProgress
			}
		}
		text := s.buf[:s.have]
		// Everything up to the last byte that cannot be in a URI is
		// settled: a candidate there ends at or before it.
		safe := len(text)
		if !s.eof || s.err != nil {
			// Before the end (and at a read error, which cuts the input
			// short: a truncated archive) a run of URI bytes that reaches
			// the end of what was read may go on, so it is not settled;
			// after a read error it is dropped, as the line commands drop
			// a cut last line.
			safe = lastInvalid(text) + 1
			if safe == 0 && !s.eof {
				if len(text) < len(s.buf) {
					continue // read more
				}
				// A run longer than the buffer: drop all but its end.
				safe = len(text) - MaxExtractLength
				s.line += int64(bytes.Count(text[:safe], []byte("\n")))
				s.from, s.before = safe, text[safe-1]
				continue
			}
		}
		s.x.before = s.before
		var ls int
		s.matches, _, s.line, ls = s.x.appendFrom(s.matches, text, 0, safe, 0, s.line)
		for i := range s.matches {
			m := &s.matches[i]
			if m.Col == m.Start { // in the line the read began in
				m.Col += s.base - s.lineStart
			}
			m.Start += s.base
			m.End += s.base
		}
		if ls > 0 {
			s.lineStart = s.base + int64(ls)
		}
		s.from = safe
		if safe > 0 {
			s.before = text[safe-1] // see AppendAfter
		}
		if len(s.matches) > 0 {
			return true
		}
	}
	return false
}

// Matches returns the matches the last Scan settled.
func (s *ExtractScanner) Matches() []Match { return s.matches }

// Bytes returns the bytes of a match of the last Scan.
func (s *ExtractScanner) Bytes(m Match) []byte { return s.buf[m.Start-s.base : m.End-s.base] }

// Err returns the read error that ended the input, or nil at its end.
// After a read error, the run of URI bytes the error cut (from the last
// byte that cannot be in a URI to the cut) is not scanned: a URI there
// may be cut short.
func (s *ExtractScanner) Err() error { return s.err }

// lastInvalid returns the index of the last byte of text that cannot be in
// a URI, or -1.
func lastInvalid(text []byte) int {
	for i := len(text) - 1; i >= 0; i-- {
		if classify.Table[text[i]]&classify.Invalid != 0 {
			return i
		}
	}
	return -1
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}
