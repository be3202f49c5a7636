package fuzz

import (
	"bytes"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/uriscan/uriscan/normalize/compat"
)

// canonSeeds are the inputs of the Safe Browsing document's vectors and of
// surt's tests (normalize/compat: safebrowsing_test.go, surt_test.go),
// plus a few of each error kind.
var canonSeeds = []string{
	"http://host/%25%32%35", "http://host/%25%32%35%25%32%35", "http://host/%2525252525252525",
	"http://host/asdf%25%32%35asd", "http://host/%%%25%32%35asd%%", "http://www.google.com/",
	"http://%31%36%38%2e%31%38%38%2e%39%39%2e%32%36/%2E%73%65%63%75%72%65/%77%77%77%2E%65%62%61%79%2E%63%6F%6D/",
	"http://195.127.0.11/uploads/%20%20%20%20/.verify/.eBaysecure=updateuserdataxplimnbqmn-xplmvalidateinfoswqpcmlx=hgplmcx/",
	"http://host%23.com/%257Ea%2521b%2540c%2523d%2524e%25f%255E00%252611%252A22%252833%252944_55%252B",
	"http://3279880203/blah", "http://www.google.com/blah/..", "www.google.com/", "www.google.com",
	"http://www.evil.com/blah#frag", "http://www.GOOgle.com/", "http://www.google.com.../",
	"http://www.google.com/foo\tbar\rbaz\n2", "http://www.google.com/q?", "http://www.google.com/q?r?",
	"http://www.google.com/q?r?s", "http://evil.com/foo#bar#baz", "http://evil.com/foo;", "http://evil.com/foo?bar;",
	"http://\x01\x80.com/", "http://notrailingslash.com", "http://www.gotaport.com:1234/", "  http://www.google.com/  ",
	"http:// leadingspace.com/", "http://%20leadingspace.com/", "%20leadingspace.com/", "https://www.securesite.com/",
	"http://host.com/ab%23cd", "http://host.com//twoslashes?more//slashes",
	"http://0x7f.1/", "http://0177.0.0.1/", "http://127.1/", "http://256.1.1.1/", "http://[2001:0db8::1]:80/",
	"http://[::ffff:1.2.3.4]/", "http://www.\xc3\xbcmlat.com/", "http://user:pass@a.com:8080/a/./b/../c",
	"", "\t", "mailto:a@b.c", "http://a.com:x/", "http://[::1", "a.com:80/x", "//a.com/x",
	"http://www.archive.org:8080/index.html?query#foo", "http:////////////////www.vikings.com",
	"http://https://order.1and1.com", "http://mineral.galleries.com:/minerals/", "dns:archive.org",
	"filedesc:foo.arc.gz", "warcinfo:foo.warc.gz", "whois://whois.isoc.org.il/shaveh.co.il",
	"http://archive.org/goo/?a=2&b&a=1", "http://archive.org/index.php?PHPSESSID=0123456789abcdefghijklemopqrstuv&action=profile;u=4221",
	"http://example.com/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx", "http://a.com/?CFID=1169580&CFTOKEN=48630702&dt=1",
	"http://www34.archive.org/index.html?b=a&b=b&a=b", "http://192.168.1.254/info/", "B\xc3\xbccher.ch:8080",
	"\xe2\x98\x83.com", "http://www.t%EF%BF%BD%04.82.net/", "http://example.com/app?item=Wroc%C5%82aw",
	"http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/&b=Netscape%205.0%20%28Windows%3B%20en-US%29",
}

// canonUnescapeAll percent-unescapes s until nothing changes.
func canonUnescapeAll(s []byte) []byte {
	hex := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		case 'A' <= c && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	for {
		var t []byte
		for i := 0; i < len(s); i++ {
			if s[i] == '%' && i+2 < len(s) {
				h, ok1 := hex(s[i+1])
				l, ok2 := hex(s[i+2])
				if ok1 && ok2 {
					t = append(t, h<<4|l)
					i += 2
					continue
				}
			}
			t = append(t, s[i])
		}
		if bytes.Equal(t, s) {
			return s
		}
		s = t
	}
}

// sbDecodedDelimiter reports whether raw is in the one class of inputs
// whose Safe Browsing canonical form is not a fixed point: unescaping the
// host produces a byte that delimits the authority ('/', '?', '@', '[', ']'
// or, outside brackets, ':'), or unescaping the path produces a '?'. The
// document unescapes everything and then escapes only bytes <= 0x20, >=
// 0x7F, '#' and '%', so such a byte comes out bare and, read again, splits
// the URL elsewhere ("http://a%2Fb/" gives "http://a/b/", whose host is
// "a"; "http://h/a%3Fb" gives "http://h/a?b", whose path is "/a"). The
// document promises no fixed point; every other input must give one.
func sbDecodedDelimiter(raw []byte) bool {
	var s []byte
	for _, c := range raw {
		if c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if c == '#' {
			break
		}
		s = append(s, c)
	}
	s = bytes.TrimFunc(s, func(r rune) bool { return r <= 0x20 })
	if m := sbSchemeSlashes.Find(s); m != nil {
		s = s[len(m):]
	} else if bytes.HasPrefix(s, []byte("//")) {
		s = s[2:]
	}
	end := bytes.IndexAny(s, "/?")
	if end < 0 {
		end = len(s)
	}
	auth, path := s[:end], s[end:]
	if i := bytes.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if i := bytes.LastIndexByte(auth, '@'); i >= 0 {
		auth = auth[i+1:]
	}
	delims := "/?@[]"
	if len(auth) > 0 && auth[0] == '[' {
		if i := bytes.IndexByte(auth, ']'); i > 0 {
			auth = auth[1:i]
		}
	} else {
		if i := bytes.IndexByte(auth, ':'); i >= 0 {
			auth = auth[:i]
		}
		delims += ":"
	}
	return bytes.ContainsAny(canonUnescapeAll(auth), delims) || bytes.IndexByte(canonUnescapeAll(path), '?') >= 0
}

var sbSchemeSlashes = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*://`)

// FuzzSafeBrowsing checks that AppendSafeBrowsing never panics, that its
// output is "scheme://" then ASCII with no byte <= 0x20 or >= 0x7F, and
// that, outside sbDecodedDelimiter's class, canonicalizing the output
// again gives the output.
func FuzzSafeBrowsing(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, err := compat.AppendSafeBrowsing(nil, []byte(s))
		if err != nil {
			if len(out) != 0 {
				t.Fatalf("AppendSafeBrowsing(%q) = %q with error %v", s, out, err)
			}
			return
		}
		for _, c := range out {
			if c <= 0x20 || c >= 0x7f {
				t.Fatalf("AppendSafeBrowsing(%q) = %q: byte %#x", s, out, c)
			}
		}
		if !bytes.Contains(out, []byte("://")) {
			t.Fatalf("AppendSafeBrowsing(%q) = %q: no \"://\"", s, out)
		}
		if sbDecodedDelimiter([]byte(s)) {
			return
		}
		again, err := compat.AppendSafeBrowsing(nil, out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not a fixed point: %q -> %q -> %q, %v", s, out, again, err)
		}
	})
}

// FuzzSURT checks that AppendSURT never panics, that its output is ASCII
// with no byte <= 0x20 or >= 0x7F (but for "-" and "filedesc" inputs,
// which it returns as they are), and that the canonical URL (PlainURL and
// IncludeScheme) is a fixed point and gives the same SURT as the input,
// outside surtNotFixed's classes.
func FuzzSURT(f *testing.F) {
	for _, s := range canonSeeds {
		f.Add(s)
	}
	plain := compat.SURTOptions{PlainURL: true, IncludeScheme: true}
	f.Fuzz(func(t *testing.T, s string) {
		key, err := compat.AppendSURT(nil, []byte(s), compat.SURTOptions{})
		if err != nil {
			return
		}
		switch {
		case s == "":
			if string(key) != "-" {
				t.Fatalf("AppendSURT(\"\") = %q", key)
			}
			return
		case bytes.HasPrefix([]byte(s), []byte("filedesc")):
			if string(key) != s {
				t.Fatalf("AppendSURT(%q) = %q", s, key)
			}
			return
		}
		for _, c := range key {
			if c <= 0x20 || c >= 0x7f {
				t.Fatalf("AppendSURT(%q) = %q: byte %#x", s, key, c)
			}
		}
		url, err := compat.AppendSURT(nil, []byte(s), plain)
		if err != nil {
			t.Fatalf("AppendSURT(%q) fails only with PlainURL: %v", s, err)
		}
		if why := surtNotFixed([]byte(s), url); why != "" {
			return
		}
		again, err := compat.AppendSURT(nil, url, plain)
		if err != nil || !bytes.Equal(again, url) {
			t.Fatalf("canonical URL not a fixed point: %q -> %q -> %q, %v", s, url, again, err)
		}
		key2, _ := compat.AppendSURT(nil, url, compat.SURTOptions{})
		if !bytes.Equal(key2, key) {
			t.Fatalf("SURT of the canonical URL differs: %q -> %q, but %q -> %q", s, key, url, key2)
		}
	})
}

// surtNotFixed returns which of the classes below raw is in, or "": the
// classes of inputs whose canonical URL u (PlainURL, IncludeScheme) surt
// does not map to itself. surt promises no fixed point, and each class is a
// step of its canonicalization that a second pass can undo or redo:
//
//   - "host delimiter": surt splits the URL before unescaping and never
//     escapes '/', '?', '@', ':', '[' or ']', so a host that holds one once
//     unescaped (also an IPv6 host, whose brackets surt drops, and the
//     "host:port" that an "http:////host:port" URL gets) splits elsewhere
//     when read again; so does a path holding a '?'.
//   - "www": massageHost removes one www\d*\. label, and the next pass the
//     next one; it runs after the IPv4 step, so "www.1.2" leaves "1.2",
//     which the next pass reads as 1.0.0.2.
//   - "dots": each ".." of the host becomes "." once per pass, and the
//     dots are stripped from its ends before massageHost, so "www...a"
//     gives "www..a", then ".a", whose leading dot the next pass strips.
//   - "session id": a session id that the last-occurrence rule left in
//     the path or query, or that sorting the query made whole
//     ("cftoken=1&cfid=2" sorts to "cfid=2&cftoken=1").
//   - "idna": the host kept non-ASCII bytes (its IDNA conversion failed),
//     and the dot clean-up that runs after IDNA may let it succeed next
//     time ("\xc3\xbc..com"); or it is not UTF-8, or it holds a '%' and
//     non-ASCII: the bytes that decode('utf-8', 'ignore') drops, or what
//     IDNA maps, can join the '%' to hex digits after unescaping is done
//     ("%%8000" gives "%2500", then "%00"; "%0\u01f3" gives "%250dz").
//   - "trailing slash": the path of a URL with no host ("a:b//") is not
//     normalized, and the IA step removes one trailing '/' per pass.
//   - "no host": a URL with no host (or a host of only dots, which
//     canonicalizes to nothing) is written "scheme:" and its path as it
//     was; a path that starts with "//" then reads as an authority
//     ("a:////b" gives "a://b", "http://..//a/b" gives "http://a/b").
func surtNotFixed(raw, u []byte) string {
	host, path := surtSplit(raw)
	host = canonUnescapeAll(host)
	if bytes.ContainsAny(host, "/?@:[]") || bytes.IndexByte(canonUnescapeAll(path), '?') >= 0 {
		return "host delimiter"
	}
	if !utf8.Valid(host) || bytes.IndexByte(host, '%') >= 0 && bytes.IndexFunc(host, func(r rune) bool { return r >= 0x80 }) >= 0 {
		return "idna"
	}
	if len(bytes.Trim(host, ".")) == 0 && (len(host) > 0 || bytes.HasPrefix(canonUnescapeAll(path), []byte("//"))) {
		return "no host"
	}
	if p, _, _ := bytes.Cut(u, []byte("?")); len(host) == 0 && bytes.HasSuffix(p, []byte("/")) {
		return "trailing slash"
	}
	i := bytes.Index(u, []byte("://"))
	if i < 0 {
		return ""
	}
	h := u[i+3:]
	if j := bytes.IndexAny(h, "/?:"); j >= 0 {
		h = h[:j]
	}
	if surtWWW.Match(h) || surtWWW.Match(bytes.ToLower(host)) && surtDigitsDots.Match(h) {
		return "www"
	}
	if bytes.Contains(h, []byte("..")) || bytes.HasPrefix(h, []byte(".")) {
		return "dots"
	}
	if surtHighEscape.Match(h) {
		return "idna"
	}
	if surtSessionQuery.Match(u) || surtSessionPath.Match(u) {
		return "session id"
	}
	return ""
}

var (
	surtWWW          = regexp.MustCompile(`^www\d*\.`)
	surtDigitsDots   = regexp.MustCompile(`^[0-9.]+$`)
	surtHighEscape   = regexp.MustCompile(`%[89a-fA-F][0-9a-fA-F]`)
	surtSessionQuery = regexp.MustCompile(`(?i)\?.*(jsessionid=[0-9a-z]{32}|phpsessid=[0-9a-z]{32}|sid=[0-9a-z]{32}|aspsessionid[a-z]{8}=[a-z]{24}|cfid=[^&]+&cftoken=[^&]+)(&|$)`)
	surtSessionPath  = regexp.MustCompile(`(?i)^[^?]*/(\((?:[a-z]\([0-9a-z]{24}\))+\)/|\([0-9a-z]{24}\)/)[^?]+\.aspx`)
)

// surtSplit returns the host and path of raw as surt's handyurl.parse
// splits them, before any unescaping.
func surtSplit(raw []byte) (host, path []byte) {
	s := bytes.Trim(raw, " \t\n\r\v\f")
	s = bytes.ReplaceAll(bytes.ReplaceAll(bytes.ReplaceAll(s, []byte("\t"), nil), []byte("\r"), nil), []byte("\n"), nil)
	if !surtScheme.Match(s) {
		s = append([]byte("http://"), s...)
	}
	s = surtProtocols.ReplaceAll(s, []byte("$1"))
	m := surtRFC2396.FindSubmatch(s)
	if m == nil {
		return nil, nil
	}
	netloc, path := bytes.TrimRight(m[5], ":"), m[6]
	if i := bytes.LastIndexByte(netloc, '@'); i >= 0 {
		netloc = netloc[i+1:]
	}
	if i := bytes.IndexByte(netloc, '['); i >= 0 {
		return []byte(":"), path // IPv6: brackets dropped
	}
	host, _, _ = bytes.Cut(netloc, []byte(":"))
	if len(host) == 0 && len(path) > 0 && bytes.HasPrefix(m[2], []byte("http")) {
		host, path, _ = bytes.Cut(bytes.TrimLeft(path, "/"), []byte("/"))
		if bytes.IndexByte(host, ':') >= 0 {
			return []byte(":"), path
		}
	}
	return host, path
}

var (
	surtScheme    = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.\-]*:`)
	surtProtocols = regexp.MustCompile(`^(https?://)+`)
	surtRFC2396   = regexp.MustCompile(`^(([a-zA-Z][a-zA-Z0-9+.-]*):)?((//([^/?#]*))?([^?#]*)(\?([^#]*))?)?(#(.*))?$`)
)
