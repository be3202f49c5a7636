package normalize

import (
	"bytes"
	"slices"
	"strings"
)

// Heuristics are crawler canonicalizations that are NOT RFC 3986
// equivalences: each can merge URIs that a server treats as different.
// They apply at level Crawler, on top of Scheme, in the order listed. Pick
// the set that matches your crawler (docs/normalization.md compares them with purell
// and with Google Safe Browsing canonicalization).
type Heuristics uint32

const (
	// DropFragment removes the fragment ("#..."): servers never see it.
	DropFragment Heuristics = 1 << iota
	// StripParams removes query parameters whose names are in
	// Normalizer.StripParams (default DefaultStripParams: session IDs and
	// utm_* and other click trackers), case-insensitively; a "*" in a name
	// stands for any run of bytes ("utm_*", "*sessionid*").
	StripParams
	// SortQuery sorts the query's "&"-separated parameters by name, stably
	// (parameters with equal names keep their order).
	SortQuery
	// DropEmptyQuery removes a "?" with nothing after it.
	DropEmptyQuery
	// RemoveDuplicateSlashes turns runs of "/" in the path into one.
	RemoveDuplicateSlashes
	// StripWWW removes the leading "www." labels of a reg-name host
	// ("www.www.a.com" gives "a.com").
	StripWWW
	// DropIndexPages removes a last path segment that is a default index
	// page (index.html, index.htm, index.php, index.asp, index.aspx,
	// default.asp, default.aspx, index.shtml, index.jsp, index.cgi).
	DropIndexPages
	// IDNA writes a reg-name host that is Unicode once percent-decoded
	// ("b%C3%BCcher.example") in its A-label form ("xn--bcher-kva.example"),
	// by UTS #46's lookup profile (golang.org/x/net/idna.Lookup), as
	// browsers resolve it. A host UTS #46 rejects, or whose bytes are not
	// UTF-8, keeps its percent-encoded form.
	IDNA

	// AllHeuristics is every heuristic; it is what level Crawler uses when
	// Normalizer.Heuristics is zero.
	AllHeuristics = DropFragment | StripParams | SortQuery | DropEmptyQuery |
		RemoveDuplicateSlashes | StripWWW | DropIndexPages | IDNA
)

// DefaultStripParams are the query parameters StripParams removes when
// Normalizer.StripParams is nil: session identifiers and click trackers.
var DefaultStripParams = []string{
	"utm_*", "gclid", "dclid", "fbclid", "msclkid", "yclid", "mc_cid", "mc_eid",
	"jsessionid", "phpsessid", "sid", "sessionid", "session_id", "aspsessionid*", "cfid", "cftoken",
}

var indexPages = []string{
	"index.html", "index.htm", "index.php", "index.asp", "index.aspx", "default.asp",
	"default.aspx", "index.shtml", "index.jsp", "index.cgi",
}

// crawl applies the heuristics h to the Scheme-level normal form in
// dst[start:], in place, using the scratch buffer.
func (n *Normalizer) crawl(dst []byte, start int, h Heuristics) []byte {
	s := dst[start:]
	// Split the normal form again: it parses, and its layout is simple.
	frag := bytes.IndexByte(s, '#')
	if frag < 0 {
		frag = len(s)
	}
	q := bytes.IndexByte(s[:frag], '?')
	pathEnd := frag
	if q >= 0 {
		pathEnd = q
	}
	// The path starts after "scheme:" and "//authority", if any.
	p := 0
	if c := bytes.IndexByte(s[:pathEnd], ':'); c >= 0 && bytes.IndexAny(s[:c], "/?#") < 0 {
		p = c + 1
	}
	hostStart, hostEnd := -1, -1
	if bytes.HasPrefix(s[p:pathEnd], []byte("//")) {
		hostStart = p + 2
		end := bytes.IndexByte(s[hostStart:pathEnd], '/')
		if end < 0 {
			end = pathEnd - hostStart
		}
		p = hostStart + end
		hostEnd = p
		if at := bytes.LastIndexByte(s[hostStart:hostEnd], '@'); at >= 0 {
			hostStart += at + 1
		}
		if hostStart < hostEnd && s[hostStart] != '[' {
			if c := bytes.LastIndexByte(s[hostStart:hostEnd], ':'); c >= 0 {
				hostEnd = hostStart + c
			}
		}
	}
	out := n.scratch[:0]
	out = append(out, s[:hostStartOr(hostStart, p)]...)
	if hostStart >= 0 {
		host := s[hostStart:hostEnd]
		if h&IDNA != 0 && len(host) > 0 && host[0] != '[' {
			// The A-label goes to the end of dst (its spare room) and
			// is read back from there: out is the scratch buffer.
			if a, ok := appendIDNAHost(dst[len(dst):], host); ok {
				host = a
			}
		}
		// Every leading "www." label, so that the normal form is a fixed
		// point ("www.www.0" gave "www.0", then "0": found by FuzzNormalize).
		for h&StripWWW != 0 && bytes.HasPrefix(host, []byte("www.")) && len(host) > 4 {
			host = host[4:]
		}
		out = append(out, host...)
		out = append(out, s[hostEnd:p]...)
	}
	path := s[p:pathEnd]
	pathStart := len(out)
	for i := 0; i < len(path); i++ {
		if h&RemoveDuplicateSlashes != 0 && path[i] == '/' && i > 0 && path[i-1] == '/' {
			continue
		}
		out = append(out, path[i])
	}
	if h&RemoveDuplicateSlashes != 0 && hostStart < 0 && bytes.HasPrefix(out[pathStart:], []byte("/./")) {
		// The "/." that kept "//x" from reading as an authority is not
		// needed once the slashes are one.
		out = append(out[:pathStart], out[pathStart+2:]...)
	}
	if h&DropIndexPages != 0 {
		seg := out[pathStart:]
		if i := bytes.LastIndexByte(seg, '/'); i >= 0 {
			last := seg[i+1:]
			for _, ip := range indexPages {
				if len(last) == len(ip) && equalFold(ip, last) {
					out = out[:pathStart+i+1]
					break
				}
			}
		}
	}
	if q >= 0 {
		query := s[q+1 : frag]
		qStart := len(out)
		out = append(out, '?')
		out = n.appendQuery(out, query, h)
		if h&DropEmptyQuery != 0 && len(out) == qStart+1 {
			out = out[:qStart]
		}
	}
	if frag < len(s) && h&DropFragment == 0 {
		out = append(out, s[frag:]...)
	}
	n.scratch = out
	return append(dst[:start], out...)
}

func hostStartOr(hostStart, p int) int {
	if hostStart >= 0 {
		return hostStart
	}
	return p
}

// appendQuery appends the query's parameters, without the stripped ones
// and sorted if asked.
func (n *Normalizer) appendQuery(out, query []byte, h Heuristics) []byte {
	if h&(StripParams|SortQuery) == 0 {
		return append(out, query...)
	}
	// The parameters kept, as spans of query (8 bytes each, not a
	// slice's 24: a query of a megabyte of "a&" has half a million),
	// in a slice sized once.
	params := n.params[:0]
	if want := bytes.Count(query, amp) + 1; cap(params) < want {
		params = make([]paramSpan, 0, want)
	}
	for off := 0; off < len(query); {
		i := bytes.IndexByte(query[off:], '&')
		if i < 0 {
			i = len(query) - off
		}
		param := query[off : off+i]
		if !(h&StripParams != 0 && n.strip(param)) && len(param) > 0 {
			params = append(params, paramSpan{uint32(off), uint32(off + i)})
		}
		off += i + 1
	}
	if h&SortQuery != 0 {
		slices.SortStableFunc(params, func(a, b paramSpan) int {
			return bytes.Compare(name(query[a.start:a.end]), name(query[b.start:b.end]))
		})
	}
	for i, p := range params {
		if i > 0 {
			out = append(out, '&')
		}
		out = append(out, query[p.start:p.end]...)
	}
	n.params = params[:0]
	return out
}

// paramSpan is where a query parameter is in its query (a URI is shorter
// than 2 GiB: uriscan.MaxLength).
type paramSpan struct{ start, end uint32 }

var amp = []byte{'&'}

func name(param []byte) []byte {
	if i := bytes.IndexByte(param, '='); i >= 0 {
		return param[:i]
	}
	return param
}

// strip reports whether param's name is one StripParams removes.
func (n *Normalizer) strip(param []byte) bool {
	list := n.StripParams
	if list == nil {
		list = DefaultStripParams
	}
	nm := name(param)
	for _, s := range list {
		if matchGlob(s, nm) {
			return true
		}
	}
	return false
}

// matchGlob reports whether name matches pattern, case-insensitively
// (ASCII), where each "*" in pattern stands for any run of bytes
// ("utm_*", "*_id", "*session*").
func matchGlob(pattern string, name []byte) bool {
	star := strings.IndexByte(pattern, '*')
	if star < 0 {
		return len(pattern) == len(name) && equalFold(pattern, name)
	}
	head := pattern[:star]
	if len(name) < len(head) || !equalFold(head, name[:len(head)]) {
		return false
	}
	rest := pattern[star+1:]
	for i := len(head); i <= len(name); i++ {
		if matchGlob(rest, name[i:]) {
			return true
		}
	}
	return false
}

func equalFold(s string, b []byte) bool {
	for i := range len(s) {
		x, y := s[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// heuristicNames are the names of the heuristics, in the order of the
// Heuristics bits: what Heuristics.String, ParseHeuristic and a seen-set's
// "heuristics" parameter use (and uriscan's flags, --drop-fragment ...).
var heuristicNames = [...]struct {
	h    Heuristics
	name string
}{
	{DropFragment, "drop-fragment"},
	{StripParams, "strip-params"},
	{SortQuery, "sort-query"},
	{DropEmptyQuery, "drop-empty-query"},
	{RemoveDuplicateSlashes, "collapse-slashes"},
	{StripWWW, "strip-www"},
	{DropIndexPages, "drop-index"},
	{IDNA, "idna"},
}

// String names the heuristics in hs, comma-separated, in the order they
// are listed (DropFragment "drop-fragment", StripParams "strip-params",
// SortQuery "sort-query", DropEmptyQuery "drop-empty-query",
// RemoveDuplicateSlashes "collapse-slashes", StripWWW "strip-www",
// DropIndexPages "drop-index", IDNA "idna"); "" for none.
func (hs Heuristics) String() string {
	var names []string
	for _, n := range heuristicNames {
		if hs&n.h != 0 {
			names = append(names, n.name)
		}
	}
	return strings.Join(names, ",")
}

// ParseHeuristic returns the heuristic String names name.
func ParseHeuristic(name string) (Heuristics, bool) {
	for _, n := range heuristicNames {
		if n.name == name {
			return n.h, true
		}
	}
	return 0, false
}
