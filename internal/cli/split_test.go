package cli

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/shareddata"
)

func TestSplitDesignExamples(t *testing.T) {
	// The two objects the README (and the project's design notes) show,
	// byte for byte.
	code, out, errs := cli(t, "http://h?\nhttp://a b\n", "split")
	want := `{"line":1,"input":"http://h?","valid":true,"scheme":"http","userinfo":null,"host":"h","host_type":"reg-name","port":null,"path":"","query":"","fragment":null}
{"line":2,"input":"http://a b","valid":false,"error":{"offset":8,"reason":"invalid character ' ' in host"}}
`
	if out != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", out, want)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := "<stdin>:2: offset 8: invalid character ' ' in host\n"; errs != want {
		t.Errorf("stderr %q, want %q", errs, want)
	}
}

func TestSplitLines(t *testing.T) {
	// Empty lines, "\r\n", a final line without "\n", and invalid lines in
	// between all give one object each, in order.
	in := "http://h?\r\n\nhttp://a b\r\n\r\nhttp://u@[::1]:8080/p?q#f\nmailto:x@y.z"
	code, out, _ := cli(t, in, "split")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := lines(out)
	wantInputs := []string{"http://h?", "", "http://a b", "", "http://u@[::1]:8080/p?q#f", "mailto:x@y.z"}
	if len(got) != len(wantInputs) {
		t.Fatalf("%d output lines, want %d:\n%s", len(got), len(wantInputs), out)
	}
	for i, obj := range got {
		m := decode(t, obj)
		if m["line"] != float64(i+1) || m["input"] != wantInputs[i] {
			t.Errorf("line %d: %s", i+1, obj)
		}
		keys := jsonKeys(t, obj)
		if m["valid"] == true {
			if !reflect.DeepEqual(keys, validKeys) {
				t.Errorf("line %d keys %v, want %v", i+1, keys, validKeys)
			}
		} else if want := []string{"line", "input", "valid", "error"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("line %d keys %v, want %v", i+1, keys, want)
		}
	}
	m := decode(t, got[4])
	want := map[string]any{
		"line": 5.0, "input": "http://u@[::1]:8080/p?q#f", "valid": true, "scheme": "http",
		"userinfo": "u", "host": "[::1]", "host_type": "ipv6", "port": "8080",
		"path": "/p", "query": "q", "fragment": "f",
	}
	if !reflect.DeepEqual(m, want) {
		t.Errorf("got %v\nwant %v", m, want)
	}
	if m := decode(t, got[2]); !reflect.DeepEqual(m["error"], map[string]any{"offset": 8.0, "reason": "invalid character ' ' in host"}) {
		t.Errorf("error object: %v", m["error"])
	}
}

func TestSplitNullVersusEmpty(t *testing.T) {
	tests := []struct {
		in   string
		want map[string]any // the fields to check
	}{
		{"http://h?", map[string]any{"query": "", "fragment": nil, "port": nil, "userinfo": nil}},
		{"http://h", map[string]any{"query": nil, "fragment": nil, "path": ""}},
		{"http://h:", map[string]any{"port": "", "host": "h"}},
		{"http://h#", map[string]any{"query": nil, "fragment": ""}},
		{"http://@h", map[string]any{"userinfo": "", "host": "h"}},
		{"file:///etc", map[string]any{"host": "", "host_type": "reg-name", "path": "/etc"}},
		{"a/b", map[string]any{"scheme": nil, "host": nil, "host_type": nil, "path": "a/b"}},
		{"", map[string]any{"scheme": nil, "host": nil, "host_type": nil, "path": "", "query": nil}},
		{"//1.2.3.4", map[string]any{"scheme": nil, "host": "1.2.3.4", "host_type": "ipv4"}},
		{"x://[v7.a:b]", map[string]any{"host": "[v7.a:b]", "host_type": "ipvfuture"}},
	}
	for _, tt := range tests {
		_, out, _ := cli(t, tt.in+"\n", "split")
		m := decode(t, strings.TrimSuffix(out, "\n"))
		if m["valid"] != true {
			t.Errorf("%q: not valid: %s", tt.in, out)
			continue
		}
		for k, v := range tt.want {
			got, ok := m[k]
			if !ok || got != v {
				t.Errorf("%q: %s = %#v (present %v), want %#v", tt.in, k, got, ok, v)
			}
		}
	}
}

func TestSplitNotUTF8(t *testing.T) {
	bad := "http://h/\xff\xfe\x00"
	code, out, errs := cli(t, "ok\n"+bad+"\n", "split")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	got := lines(out)
	if len(got) != 2 {
		t.Fatalf("want 2 lines:\n%s", out)
	}
	if keys := jsonKeys(t, got[1]); !reflect.DeepEqual(keys, []string{"line", "input_base64", "valid", "error"}) {
		t.Errorf("keys %v", keys)
	}
	m := decode(t, got[1])
	raw, err := base64.StdEncoding.DecodeString(m["input_base64"].(string))
	if err != nil || string(raw) != bad {
		t.Errorf("input_base64 decodes to %q, %v; want %q", raw, err, bad)
	}
	if m["line"] != 2.0 || !strings.Contains(errs, "<stdin>:2: offset 9: ") {
		t.Errorf("got %s, stderr %q", got[1], errs)
	}
}

func TestSplitEscaping(t *testing.T) {
	// Invalid lines may hold anything; their input must round-trip.
	for _, in := range []string{"a\"b", `a\b`, "a\tb\x01\x1f\x7f", "héllo wörld", "\u2028 <x>", "a\rb"} {
		_, out, _ := cli(t, in+"\n", "split")
		m := decode(t, strings.TrimSuffix(out, "\n"))
		if m["input"] != in || m["valid"] != false {
			t.Errorf("%q: got %s", in, out)
		}
		if strings.ContainsAny(strings.TrimSuffix(out, "\n"), "\x00\x01\x1f\t\r\n") {
			t.Errorf("%q: raw control character in %q", in, out)
		}
	}
	// appendJSONString never writes invalid UTF-8 or an unparsable string.
	for _, s := range []string{"\xff", "a\xc3", "\xed\xa0\x80", "ok"} {
		b := appendJSONString(nil, s)
		var got string
		if err := json.Unmarshal(b, &got); err != nil {
			t.Errorf("%q -> %s: %v", s, b, err)
		}
	}
}

// TestSplitNoAllocs checks that the per-line work for valid lines (read,
// parse, write JSON) does not allocate.
func TestSplitNoAllocs(t *testing.T) {
	in := []byte(strings.Repeat("http://user@example.com:8080/a/b?q=1#f\r\nmailto:a@b\n//[::1]/x\n", 300))
	// Invalid lines are reported without allocating too (split's JSON
	// and the report on standard error, as log pipelines see thousands).
	bad := []byte(strings.Repeat("http://a b/\n%zz\nhttp://[::1\n\xff\n"+strings.Repeat("x", 300)+"\n", 300))
	var ks recordScanner
	ks.ls.SetMaxLine(200)
	var kb []byte
	bn := 0
	if allocs := testing.AllocsPerRun(20, func() {
		ks.ls.ResetBytes(bad)
		for ks.Scan() {
			if ks.ParseError() == nil {
				t.Fatalf("line %d is valid", ks.Line())
			}
			kb = appendSplitInvalid(kb[:0], "", ks.Line(), ks.Bytes(), ks.Len(), ks.ParseError(), true)
			kb = appendReport(kb, "f", &ks)
			kb = appendEcho(kb, ks.Bytes(), ks.Len(), true)
			bn++
		}
	}); allocs != 0 || bn == 0 {
		t.Errorf("invalid lines: %v allocations per run of %d lines", allocs, bn/21)
	}
	src := bytes.NewReader(in)
	var s recordScanner
	w := bufio.NewWriter(io.Discard)
	var buf []byte
	n := 0
	allocs := testing.AllocsPerRun(20, func() {
		src.Reset(in)
		s.Reset(src)
		for s.Scan() {
			if s.ParseError() != nil {
				t.Fatal(s.ParseError())
			}
			buf = appendSplitValid(buf[:0], "", s.Line(), s.URI(), true)
			buf = append(buf, '\n')
			w.Write(buf)
			n++
		}
	})
	if n == 0 {
		t.Fatal("no lines scanned")
	}
	if allocs != 0 {
		t.Errorf("%v allocations per run of %d lines", allocs, n/21)
	}
}

// splitValidEscaped is appendSplitValid with every string escaped by
// appendJSONString: the reference for the unescaped copy.
func splitValidEscaped(b []byte, line int, u *uriscan.URI) []byte {
	comp := func(b []byte, c uriscan.Component) []byte {
		if !u.Has(c) {
			return append(b, "null"...)
		}
		return appendJSONString(b, u.Get(c))
	}
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	b = append(b, `,"input":`...)
	b = appendJSONString(b, u.String())
	b = append(b, `,"valid":true,"scheme":`...)
	b = comp(b, uriscan.Scheme)
	b = append(b, `,"userinfo":`...)
	b = comp(b, uriscan.Userinfo)
	b = append(b, `,"host":`...)
	b = comp(b, uriscan.Host)
	b = append(b, `,"host_type":`...)
	if u.HasAuthority() {
		b = append(b, '"')
		b = append(b, u.HostType().String()...)
		b = append(b, '"')
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"port":`...)
	b = comp(b, uriscan.Port)
	b = append(b, `,"path":`...)
	b = appendJSONString(b, u.Path())
	b = append(b, `,"query":`...)
	b = comp(b, uriscan.Query)
	b = append(b, `,"fragment":`...)
	b = comp(b, uriscan.Fragment)
	return append(b, '}')
}

// TestSplitValidUnescaped: copying a valid URI's components without
// escaping gives exactly the escaped JSON, for every byte a valid URI can
// hold and every line of the bundled sample and the shared lists.
func TestSplitValidUnescaped(t *testing.T) {
	var in bytes.Buffer
	for c := 0; c < 256; c++ {
		fmt.Fprintf(&in, "http://u%c@h%c:1/p%c?q%c#f%c\n", c, c, c, c, c)
	}
	sample, err := os.ReadFile("../../testdata/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	in.Write(sample)
	for _, name := range shareddata.URLFiles() {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(b)
	}
	s := uriscan.NewLineScannerBytes(in.Bytes())
	valid := 0
	var got, want []byte
	for s.Scan() {
		if !s.Valid() {
			continue
		}
		valid++
		got = appendSplitValid(got[:0], "", s.Line(), s.URI(), false)
		want = splitValidEscaped(want[:0], s.Line(), s.URI())
		if !bytes.Equal(got, want) || !json.Valid(got) {
			t.Fatalf("line %d:\ngot  %s\nwant %s", s.Line(), got, want)
		}
	}
	if valid < 1000 {
		t.Fatalf("only %d valid lines", valid)
	}
}
