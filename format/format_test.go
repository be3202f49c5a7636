package format

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/domain"
)

// icann makes the SplitFunc of the ICANN rules.
func icann() SplitFunc { return domain.NewSplitFunc(domain.ICANN) }

func run(t *testing.T, format, uri string) string {
	t.Helper()
	f, err := Compile(format, icann)
	if err != nil {
		t.Fatalf("Compile(%q): %v", format, err)
	}
	u, err := uriscan.ParseString(uri)
	if err != nil {
		t.Fatalf("ParseString(%q): %v", uri, err)
	}
	return string(f.Append(nil, &u))
}

// TestTrurlExamples runs the examples of trurl's tests.json (curl/trurl
// f748e9b) whose answer a Format gives too; the others are listed in the
// package comment's differences.
func TestTrurlExamples(t *testing.T) {
	for _, c := range []struct{ uri, format, want string }{
		{"https://curl.se/we/are.html", "{path}", "/we/are.html"},
		{"https://curl.se/we/are.html", "{scheme}", "https"},
		{"https://curl.se/we/are.html", "{:scheme}", "https"},
		{"https://curl.se:55/we/are.html", "{url:port}", "55"},
		{"https://curl.se?%2e%61%13", "{query}", ".a%13"},
		{"https://curl.se/#%2e%61%13", "{fragment}", ".a%13"},
		{"https://hello@curl.se/we/are.html", "{user}", "hello"},
		{"https://hello:secret@curl.se/we/are.html", "{password}", "secret"},
		{"https://curl.se/we/are.html", "{host}", "curl.se"},
		{"https://curl.se/we/are.html?user=many#more", "{query}", "user=many"},
		{"https://curl.se/we/are.html?user=many#more", "{fragment}", "more"},
		{"imap://curl.se/we/are.html", "{default:port}", "143"},
		{"https://curl.se/we/are.html", "{default:port}", "443"},
		{"https://example.com?utm_source=tra%20cker&address%20=home&here=now&thisthen", "{query:utm_source}", "tra cker"},
		{"https://example.com?utm_source=tra%20cker&address%20=home&here=now&thisthen", "{:query:utm_}", ""},
		{"https://example.com?utm_source=tra%20cker&address%20=home&here=now&thisthen", "{:query:UTM_SOURCE}", ""},
		{"https://example.com?utm_source=tra%20cker&address%20=home&here=now&thisthen", "{query:address }", "home"},
		{"http://localhost", "{scheme} {host", "http {host"},
		{"http://localhost", "[scheme] [host", "http [host"},
		{"http://localhost", `\{{scheme}\[`, "{http["},
		{"http://localhost", `\\[`, `\[`},
		{"https://u:s@foo?moo", "[scheme][user][password][query]", "httpsusmoo"},
		{"http://hej?a=b&a=c&a=d&b=a", "{query-all:a}", "b c d"},
		{"http://localhost/?=bar", "{query:}", "bar"},
		{"imap://example.com/", "port: {port}, default:port: {default:port}", "port: , default:port: 143"},
		{"http://example.com:8080/", "port: {port}, default:port: {default:port}", "port: 8080, default:port: 8080"},
		{"https://example.org/foo?a=1&b=%23&a=%26#hello", `{query:b}\t{query-all:a}\n{:query:b}\t{:query-all:a}`, "#\t1 &\n%23\t1 %26"},
		{"sftp://us%65r:pwd;giraffe@odd", "[password]", "pwd;giraffe"},
		{"sftp://us%65r:pwd;giraffe@odd", "[user]", "user"},
	} {
		if got := run(t, c.format, c.uri); got != c.want {
			t.Errorf("%s with %q: %q, want %q", c.uri, c.format, got, c.want)
		}
	}
}

func TestOwnVariables(t *testing.T) {
	for _, c := range []struct{ uri, format, want string }{
		{"https://www.example.co.uk/a", "{subdomain}|{rdn}|{etld}", "www|example.co.uk|co.uk"},
		{"https://user.github.io/", "{rdn}", "github.io"},
		{"http://127.0.0.1/", "<{rdn}><{etld}>", "<><>"},
		{"http://a.example.com/", "[rdn] {rdn}", "example.com {rdn}"}, // brackets first: braces are text
		{"http://h/a/b%2Fc/d/", "{path:1} {path:2} {:path:2} {path:-1}|{path:-2} {path:9}|{path:-9}", "a b/c b%2Fc |d |"},
		{"http://h/a", "{path:1} {path:-1} {path:2}", "a a "},
		{"mailto:a@b", "{path:1}", "a@b"},
		{"http://h/?b=1&a=2&b=3&c&=4&a+b=5", "{query-keys}", "b a c a b"},
		{"http://h/?a&a=1&b&a&b&a", "{query-keys}", "a b"},
		{"http://h/x", `{host}\t{x\t`, "h\t{x\t"}, // an opener with no closer is text, escapes after it too
		{"http://h/?x=%0A%41+b", "{query:x}", "%0AA b"},
		{"http://h/p%00q", "{path}", "/p%00q"},
		{"HTTPS://h/", "{default:port}", "443"},
		{"foo://h/", "{default:port}", ""},
		{"//h/p", "{scheme}{url}", "//h/p"},
		{"http://h", "{path}{query}{fragment}", ""},
	} {
		if got := run(t, c.format, c.uri); got != c.want {
			t.Errorf("%s with %q: %q, want %q", c.uri, c.format, got, c.want)
		}
	}
}

func TestCompileErrors(t *testing.T) {
	for _, c := range []struct {
		format string
		off    int
	}{
		{"{nope}", 0},
		{"a {host} {hots}", 9},
		{"{path:0}", 0},
		{"{path:x}", 0},
		{"{must:query}", 0},
		{"{default:host}", 0},
		{"{host:x}", 0},
	} {
		_, err := Compile(c.format, icann)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || se.Offset != c.off {
			t.Errorf("Compile(%q) = %v, want a SyntaxError at %d", c.format, err, c.off)
		}
	}
}

func TestAppendAllocs(t *testing.T) {
	f, err := Compile("{scheme} {host} {rdn} {etld} {subdomain} {default:port} {path:-1} {query:a} {query-all:a} {query-keys} {url}", icann)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := uriscan.ParseString("HTTPS://www.Example.co.uk/a/b?a=1&b=%20&a=3#f")
	buf := f.Append(nil, &u)
	if n := testing.AllocsPerRun(100, func() { buf = f.Append(buf[:0], &u) }); n != 0 {
		t.Errorf("Append: %v allocations, want 0", n)
	}
	if want := "HTTPS www.Example.co.uk Example.co.uk co.uk www 443 b 1 1 3 a b HTTPS://www.Example.co.uk/a/b?a=1&b=%20&a=3#f"; string(buf) != want {
		t.Errorf("Append = %q, want %q", buf, want)
	}
}

func BenchmarkAppend(b *testing.B) {
	u, _ := uriscan.ParseString("https://www.example.co.uk/a/b/c.html?x=1&y=%20z&x=2#frag")
	for _, spec := range []string{"{host}", "{rdn}", "{scheme}://{host}{path}", "{query-all:x}"} {
		f, _ := Compile(spec, icann)
		b.Run("format="+spec, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				buf = f.Append(buf[:0], &u)
			}
		})
	}
}

// TestQueryKeysMany: a query of 100,000 keys (a hostile line) is not
// quadratic: this would take minutes if it were.
func TestQueryKeysMany(t *testing.T) {
	var b strings.Builder
	b.WriteString("http://h/?")
	for i := range 100000 {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString("k")
		b.WriteString(strconv.Itoa(i % 50000))
	}
	got := run(t, "{query-keys}", b.String())
	if n := strings.Count(got, " ") + 1; n != 50000 {
		t.Errorf("%d keys, want 50000", n)
	}
}

// TestNoSplitFunc: without a SplitFunc the domain variables write nothing,
// and UsesDomains says they are there.
func TestNoSplitFunc(t *testing.T) {
	f, err := Compile("<{rdn}|{host}>", nil)
	if err != nil || !f.UsesDomains() {
		t.Fatalf("Compile: %v, UsesDomains %v", err, f.UsesDomains())
	}
	u, _ := uriscan.ParseString("http://www.example.com/")
	if got := string(f.Clone().Append(nil, &u)); got != "<|www.example.com>" {
		t.Errorf("Append = %q", got)
	}
	if g, _ := Compile("{host}", nil); g.UsesDomains() {
		t.Errorf("{host}: UsesDomains")
	}
}
