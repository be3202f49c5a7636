package compat

import "testing"

// canonBenchURLs are realistic crawl URLs: tracking parameters, session
// ids, escapes, dot segments, ports, an IDN host and an IPv4 host.
var canonBenchURLs = [][]byte{
	[]byte("https://www.example.com/"),
	[]byte("http://www.nytimes.com/2014/03/15/world/asia/malaysia-airlines-flight.html?hp&_r=0"),
	[]byte("https://en.wikipedia.org/wiki/Uniform_Resource_Identifier#Syntax"),
	[]byte("http://shop.example.co.uk:80/catalog/./products/../item.php?id=123&PHPSESSID=0123456789abcdefghijklemopqrstuv&ref=home"),
	[]byte("https://www.google.com/search?q=safe+browsing+canonicalization&oq=safe&aqs=chrome..69i57j0l5.3216j0j7&sourceid=chrome&ie=UTF-8"),
	[]byte("http://example.com/a%20b/%7Euser/%2e%2e/index.html"),
	[]byte("http://www.b\xc3\xbccher.de/katalog/stra\xc3\x9fe?seite=2"),
	[]byte("http://192.168.1.254:8080/cgi-bin/luci/;stok=abc/admin/status"),
	[]byte("https://cdn.jsdelivr.net/npm/bootstrap@5.3.0/dist/css/bootstrap.min.css"),
	[]byte("http://visit.webhosting.yahoo.com/visit.gif?&r=http%3A//web.archive.org/web/20090517140029/http%3A//anthonystewarthead.electric-chi.com/&b=Netscape%205.0%20%28Windows%3B%20en-US%29&s=1366x768"),
	[]byte("https://www.amazon.com/dp/B08N5WRWNW/ref=sr_1_1?dchild=1&keywords=echo&qid=1610000000&sr=8-1"),
	[]byte("HTTP://WWW.Example.COM//a//b///c////?utm_source=x&utm_medium=y"),
}

func canonBenchSize() int64 {
	n := 0
	for _, u := range canonBenchURLs {
		n += len(u)
	}
	return int64(n)
}

// BenchmarkSafeBrowsing measures AppendSafeBrowsing over canonBenchURLs
// (bytes/s counts input bytes; one op is the whole list).
func BenchmarkSafeBrowsing(b *testing.B) {
	b.SetBytes(canonBenchSize())
	b.ReportAllocs()
	dst := make([]byte, 0, 512)
	for b.Loop() {
		for _, u := range canonBenchURLs {
			dst, _ = AppendSafeBrowsing(dst[:0], u)
		}
	}
}

// BenchmarkSURT measures AppendSURT with the default options over
// canonBenchURLs.
func BenchmarkSURT(b *testing.B) {
	b.SetBytes(canonBenchSize())
	b.ReportAllocs()
	dst := make([]byte, 0, 512)
	for b.Loop() {
		for _, u := range canonBenchURLs {
			dst, _ = AppendSURT(dst[:0], u, SURTOptions{})
		}
	}
}
