package fuzz

import (
	"bytes"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/normalize/compat"
)

// FuzzW3lib checks that compat.AppendW3lib never panics, leaves dst as
// it was on an error, and is idempotent (W(W(x)) == W(x)) with the default
// options and with KeepFragments, except in the classes where Python's
// w3lib.url.canonicalize_url (2.1.1) itself is not, each checked with
// /usr/bin/python3:
//
//   - the canonical path holds an escape the next pass decodes: "%2541"
//     gives "%41", then "A"; "%252f" gives "%2f", then "%2F";
//   - the netloc is empty, or only colons (stripped), and the path starts
//     with "//": "////x" gives "//x", read next as the netloc "x" ("//x/");
//     "//://" gives "//", then "/" (found by this fuzzer, in
//     testdata/fuzz/FuzzW3lib);
//   - the decoded path has the first ";" of its last segment at its start
//     or end: "/p%3B" gives "/p;", whose empty params the next pass drops
//     ("/p"); "%3B0" gives ";0", whose empty path becomes "/" ("/;0",
//     found by this fuzzer);
//   - an input without a scheme whose canonical form has one ("%68ttp:x"
//     gives "http:x", then "http:///x");
//   - a netloc with a bracket that the first pass takes and whose
//     canonical form Python then refuses: "//]@[::" gives "//]@[/", on
//     which Python raises ValueError (an empty IPv6 address), as
//     AppendW3lib returns ErrW3libInvalidIPv6 (found by the campaign, in
//     testdata/fuzz/FuzzW3lib);
//   - a non-ASCII host with an empty port: "//ם:" gives "//ם/" (Python's
//     IDNA step fails on the ":" and leaves the host, then the empty port
//     goes), and the next pass encodes it, "//xn--ieb/" (found by the
//     campaign).
func FuzzW3lib(f *testing.F) {
	for _, s := range w3libSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, opts := range []compat.W3libOptions{{}, {KeepFragments: true}, {DropBlankValues: true}} {
			c1, err := compat.AppendW3lib([]byte("dst"), []byte(s), opts)
			if err != nil {
				if string(c1) != "dst" {
					t.Fatalf("AppendW3lib(%q) wrote %q with error %v", s, c1, err)
				}
				continue
			}
			if !bytes.HasPrefix(c1, []byte("dst")) {
				t.Fatalf("AppendW3lib(%q) lost dst: %q", s, c1)
			}
			c1 = c1[3:]
			if w3libPythonNotIdempotent(s, string(c1)) {
				continue
			}
			c2, err := compat.AppendW3lib(nil, c1, opts)
			if err == compat.ErrW3libInvalidIPv6 {
				if _, netloc, _, _ := w3libSplit(string(c1)); strings.ContainsAny(netloc, "[]") {
					continue // Python raises on its own output here too (see above)
				}
			}
			if err != nil {
				t.Fatalf("%+v: W(%q) = %q, which gives error %v", opts, s, c1, err)
			}
			if !bytes.Equal(c1, c2) {
				t.Fatalf("%+v: not idempotent: %q -> %q -> %q", opts, s, c1, c2)
			}
		}
	})
}

// w3libSplit is the part of urlsplit these checks need, after w3lib's
// _strip: whether there is a scheme, the netloc (and whether "//" opened
// one) and the path.
func w3libSplit(s string) (scheme bool, netloc string, hasNetloc bool, path string) {
	s = strings.Trim(s, "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f ")
	s = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(s)
	if i := strings.IndexByte(s, ':'); i > 0 && w3libIsAlpha(s[0]) && strings.Trim(s[:i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-.") == "" {
		scheme, s = true, s[i+1:]
	}
	if strings.HasPrefix(s, "//") {
		hasNetloc = true
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		netloc, s = s[:end], s[end:]
	}
	if i := strings.IndexAny(s, "?#"); i >= 0 {
		s = s[:i]
	}
	return scheme, netloc, hasNetloc, s
}

func w3libIsAlpha(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func w3libIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}

// w3libPythonNotIdempotent reports whether in (canonical form c) falls in
// one of the classes FuzzW3lib lists, where Python is not idempotent.
func w3libPythonNotIdempotent(in, c string) bool {
	inScheme, inNetloc, inHasNetloc, inPath := w3libSplit(in)
	if inHasNetloc && strings.TrimRight(inNetloc, ":") == "" && strings.HasPrefix(inPath, "//") {
		return true
	}
	if inHasNetloc && strings.HasSuffix(inNetloc, ":") && strings.IndexFunc(inNetloc, func(r rune) bool { return r >= 0x80 }) >= 0 {
		return true // a non-ASCII host with an empty port (see FuzzW3lib)
	}
	scheme, _, _, path := w3libSplit(c)
	if scheme && !inScheme {
		return true
	}
	for i := 0; i+2 < len(path); i++ {
		if path[i] != '%' || !w3libIsHex(path[i+1]) || !w3libIsHex(path[i+2]) {
			continue
		}
		h, l := path[i+1], path[i+2]
		if 'a' <= h || 'a' <= l { // a lower-case escape: the next pass upper-cases it
			return true
		}
		v := w3libUnhex(h)<<4 | w3libUnhex(l)
		if v != '/' && v != '?' && (v >= 0x80 || !strings.ContainsRune(w3libPathUnsafe, rune(v))) {
			return true // an escape of a byte the path keeps as is
		}
	}
	from := max(strings.LastIndexByte(path, '/'), 0)
	if i := strings.IndexByte(path[from:], ';'); i >= 0 && (from+i == 0 || from+i == len(path)-1) {
		return true
	}
	return false
}

// w3libPathUnsafe are the ASCII bytes w3lib's path quoting encodes: the
// controls, space, DEL and `"#<>\^`{}`.
const w3libPathUnsafe = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\t\n\v\f\r\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f \"#<>\\^`{}\x7f"

func w3libUnhex(c byte) byte {
	if c <= '9' {
		return c - '0'
	}
	return c | 0x20 - 'a' + 10
}

// w3libSeeds are the inputs of compat's table test (w3lib_test.go).
var w3libSeeds = []string{
	"   ",
	" https://example.com ",
	" https://example.com",
	"",
	"//Example.COM/p",
	"/path?b=1&a=2",
	"?b=1",
	"HTTP://WWW.Example.COM:80/",
	"HtTpS://a/%7Efoo/?x=%7e",
	"\ufeffhttps://www.sec.gov/edgar.shtml",
	"\x00http://a/\x1f",
	"a#frag",
	"a?b=1#frag",
	"file:///etc/passwd",
	"foo://A/b;c",
	"ftp://a/b;type=i",
	"http://",
	"http://.éxamplé.com/résumé?q=résumé",
	"http:////x/y",
	"http://:/",
	"http://::1]/",
	"http://@a/",
	"http://Bücher.DE./",
	"http://U:P@A.B:8080/",
	"http://[1.2.3.4]/",
	"http://[12345::]/",
	"http://[1:2:3:4:5:6:7:8:9]/",
	"http://[1::2::3]/",
	"http://[2001:DB8::A]/",
	"http://[::1/",
	"http://[::1]/do?a=1#frag",
	"http://[::1]:80/",
	"http://[::1]:x/",
	"http://[::1]x/",
	"http://[:::1]/",
	"http://[::ffff:1.2.3.4]/",
	"http://[fe80::1%25EtH0]/",
	"http://[fe80::1%]/",
	"http://[v1.Fe]/",
	"http://[vz.1]/",
	"http://a b.ü/",
	"http://a..ü/",
	"http://a.b/?a=1#x?y",
	"http://a/%",
	"http://a/%%41",
	"http://a/%20%22%3c",
	"http://a/%252f",
	"http://a/%2541",
	"http://a/%7e%7E%41%2d",
	"http://a/?B=1&a=1&_=1&~=1&.=1",
	"http://a/?a=1&a=1&a=0",
	"http://a/?q=%00%ff",
	"http://a/\x7f",
	"http://a/a%2",
	"http://a/b c/?d e=f g",
	"http://a/b;",
	"http://a/b;p%2fx",
	"http://a/b;p;q",
	"http://a/b;p?x#y",
	"http://a/b?",
	"http://a/b?%C3%A9=%c3%a9",
	"http://a/b?&",
	"http://a/b?=",
	"http://a/b?=x&=",
	"http://a/b?a&a=&a=1&a",
	"http://a/b?b=2;a=1&a=0",
	"http://a/b?k=a%26b%3Dc",
	"http://a/b?q=%2B+%20",
	"http://a/b?q=%zz&r=%4",
	"http://a/b?x=ü&y=€",
	"http://a/p%3Bq;r%3Bs",
	"http://a/ééé",
	"http://a:::/",
	"http://a\u00adb.com/",
	"http://ab／c.com/",
	"http://aשלום.il/",
	"http://a℀b/",
	"http://e\u0301.fr/",
	"http://ex.com/ü?ü=ü#ü",
	"http://exa\tmple.com/a\r\nb?q=a\tb",
	"http://example.com:8\t0/",
	"http://foo.com/AC%2FDC+rocks%3f/?yeah=1",
	"http://foo.com/AC%2FDC/",
	"http://u[x]@[::1]/",
	"http://user:pass@www.example.com/do?a=1#frag",
	"http://user:pass@www.example.com:81/do?now=1",
	"http://user:pass@例え.jp:8080/p",
	"http://user@例え.jp/path",
	"http://www.EXAMPLE.com/",
	"http://www.bücher.de/r%C3%A9sum%C3%A9?q=r%C3%A9sum%C3%A9",
	"http://www.bücher.de/résumé?q=résumé",
	"http://www.bücher.de:8080/?q=bücher",
	"http://www.bücher.de?q=bücher",
	"http://www.example.com",
	"http://www.example.com/",
	"http://www.example.com/a %20do?a=1",
	"http://www.example.com/a do?a=1",
	"http://www.example.com/a do£.html?a=1",
	"http://www.example.com/a%a3do",
	"http://www.example.com/a%a3do?q=r%c3%a9sum%c3%a9",
	"http://www.example.com/a%a3do?q=r%e9sum%e9",
	"http://www.example.com/a;b/c",
	"http://www.example.com/a;b/c;d",
	"http://www.example.com/a;b/c;params?x=1",
	"http://www.example.com/abc/def?x=1",
	"http://www.example.com/caf%E9-con-leche.htm",
	"http://www.example.com/caf%e9-con-leche.htm",
	"http://www.example.com/dir;x/a%7Eb",
	"http://www.example.com/dir;x/file",
	"http://www.example.com/do?&a=1",
	"http://www.example.com/do?1750,4",
	"http://www.example.com/do?a=1&b=2&c=3",
	"http://www.example.com/do?b=&a=2",
	"http://www.example.com/do?b=&c&a=2",
	"http://www.example.com/do?c=1&b=2&a=3",
	"http://www.example.com/do?c=1;b=2;a=3",
	"http://www.example.com/do?c=3&b=5&b=2&a=50",
	"http://www.example.com/do?k=b%a3",
	"http://www.example.com/do?k=r%c3%a9sum%c3%a9",
	"http://www.example.com/do?price(£)=500&a=1",
	"http://www.example.com/do?price=£500&a=5&z=3",
	"http://www.example.com/do?q=a space&a=1",
	"http://www.example.com/do?q=a%20space&a=1",
	"http://www.example.com/do?q=a+space&a=1",
	"http://www.example.com/path/to/%23/foo/bar",
	"http://www.example.com/path/to/%23/foo/bar#frag",
	"http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2F%2Fpath%2Fto%2F%23%2Fbar%2Ffoo#frag",
	"http://www.example.com/path/to/%23/foo/bar?url=http%3A%2F%2Fwww.example.com%2Fpath%2Fto%2F%23%2Fbar%2Ffoo",
	"http://www.example.com/path;params?x=1#frag",
	"http://www.example.com/public;/../admin/secret",
	"http://www.example.com/r%c3%a9sum%c3%a9",
	"http://www.example.com/résumé",
	"http://www.example.com/résumé?country=Россия",
	"http://www.example.com/résumé?currency=€",
	"http://www.example.com/résumé?q=résumé",
	"http://www.example.com:/do?a=1&b=2&c=3",
	"http://www.example.com:8888/do?a=1&b=2&c=3",
	"http://www.simplybedrooms.com/White-Bedroom-Furniture/Bedroom-Mirror:-Josephine-Cheval-Mirror.html",
	"http://www.éxamplééxamplééxamplééxamplééxamplééxamplééxamplééxamplééxamplééxamplééxamplé.com/résumé?q=résumé",
	"http://x%C3%BC.de/",
	"http://x[::1]/",
	"http://xn--ü.de/",
	"http://ß.de/",
	"http://ü..",
	"http://ü.de:/",
	"http://ü:ß@ä.de:８０/",
	"http://İstanbul.tr/",
	"http://ΣΑΣ/",
	"http://Σίσυφος.gr/",
	"http://שלום.il/",
	"http://☃.net/",
	"http://はじめよう.みんな/?query=サ&maxResults=5",
	"http://ａｂｃ.com/",
	"http://ｅｘａｍｐｌｅ．ｃｏｍ/",
	"http://😀.ws/",
	"http:/foo",
	"http:foo",
	"https://a/#",
	"https://a/b#c#d",
	"https://example.com ",
	"https://example.com/a%23b%2cc#bash",
	"https://example.com/a%23b,c",
	"https://good.com\t.evil.com/a\r\nb?q=a\tb#f\tr",
	"localhost:8080/x?b=1&a=2",
	"mailto:Joe@Example.COM?subject=Hi There",
	"sftp://UsEr:PaSsWoRd@www.EXAMPLE.com/",
}
