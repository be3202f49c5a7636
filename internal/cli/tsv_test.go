package cli

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/uriscan/uriscan"
)

// unTSV decodes a COPY text field: nil for \N, else the unescaped bytes.
// It is written from PostgreSQL's documentation, apart from tsv.go.
func unTSV(t *testing.T, f string) *string {
	t.Helper()
	if f == `\N` {
		return nil
	}
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '\\' {
			b.WriteByte(f[i])
			continue
		}
		if i+1 == len(f) {
			t.Fatalf("field %q ends in a backslash", f)
		}
		i++
		switch f[i] {
		case '\\':
			b.WriteByte('\\')
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			v, err := strconv.ParseUint(f[i+1:min(i+3, len(f))], 16, 8)
			if err != nil || i+3 > len(f) {
				t.Fatalf("field %q: bad \\x escape", f)
			}
			b.WriteByte(byte(v))
			i += 2
		default:
			t.Fatalf("field %q: unknown escape \\%c", f, f[i])
		}
	}
	s := b.String()
	return &s
}

// splitTSVInput mixes what split meets: null against empty components,
// each host type, passwords, §7 warnings, invalid lines holding control
// bytes, backslashes and invalid UTF-8, and a line over the limit.
var splitTSVInput = strings.Join([]string{
	"http://h?", "http://h", "http://h:", "http://h#", "http://@h", "file:///etc", "a/b", "",
	"//1.2.3.4", "x://[v7.a:b]", "http://u@[::1]:8080/p?q#f", "mailto:x@y.z",
	"http://u:pw@h/a?b#c", "http://0x7f.1/%2F", "http://www.example.com@evil.test/",
	"http://a b", "a\tb\x01\x1f\x7f", `a\b\N`, "\\N", "a\rb", "http://h/\xff\xfe\x00", "héllo wörld", "a\xc3",
	"http://h/" + strings.Repeat("x", 200),
}, "\n") + "\n"

// TestSplitTSV: each TSV row holds exactly what the JSON object of the same
// line holds, column by column, with one or two inputs, with and without
// --flags and --show-passwords; every row has the header's columns.
func TestSplitTSV(t *testing.T) {
	one := writeFile(t, "one.txt", splitTSVInput)
	two := writeFile(t, "two.txt", "http://second/\n%zz\n")
	for _, tc := range [][]string{
		{one},
		{one, two},
		{"--flags", one, two},
		{"--flags", "--show-passwords", one},
	} {
		args := append([]string{"split", "--max-line", "100"}, tc...)
		codeJ, outJ, errJ := cli(t, "", args...)
		codeT, outT, errT := cli(t, "", append(args, "--format", "tsv", "--header")...)
		if codeJ != codeT || errJ != errT {
			t.Errorf("%v: exit %d vs %d, stderr %q vs %q", tc, codeT, codeJ, errT, errJ)
		}
		if !utf8.ValidString(outT) {
			t.Errorf("%v: TSV output is not UTF-8", tc)
		}
		objs, rows := lines(outJ), lines(outT)
		if len(rows) != len(objs)+1 {
			t.Fatalf("%v: %d rows for %d objects", tc, len(rows), len(objs))
		}
		header := strings.Split(rows[0], "\t")
		for i, obj := range objs {
			m := decode(t, obj)
			cols := strings.Split(rows[i+1], "\t")
			if len(cols) != len(header) {
				t.Fatalf("%v: row %d has %d columns, the header %d: %q", tc, i+1, len(cols), len(header), rows[i+1])
			}
			for j, name := range header {
				got := unTSV(t, cols[j])
				want := tsvWant(t, m, name)
				if (got == nil) != (want == nil) || got != nil && *got != *want {
					t.Errorf("%v: line %v, %s = %s, JSON has %s", tc, m["line"], name, show(got), show(want))
				}
			}
		}
	}
}

func show(s *string) string {
	if s == nil {
		return "null"
	}
	return strconv.Quote(*s)
}

// tsvWant is column name of split's JSON object m, as a string or nil.
func tsvWant(t *testing.T, m map[string]any, name string) *string {
	t.Helper()
	str := func(v any) *string {
		switch v := v.(type) {
		case nil:
			return nil
		case string:
			return &v
		case bool, float64:
			s := fmt.Sprint(v)
			return &s
		case []any:
			var w []string
			for _, x := range v {
				w = append(w, x.(string))
			}
			s := strings.Join(w, ",")
			return &s
		}
		t.Fatalf("%s: %#v", name, v)
		return nil
	}
	errObj, _ := m["error"].(map[string]any)
	switch name {
	case "input":
		if b64, ok := m["input_base64"].(string); ok {
			raw, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				t.Fatal(err)
			}
			s := string(raw)
			return &s
		}
	case "error_offset":
		return str(errObj["offset"])
	case "error_reason":
		return str(errObj["reason"])
	case "warnings":
		if _, ok := m["warnings"]; !ok && m["valid"] == true {
			s := ""
			return &s
		}
	}
	return str(m[name])
}

// TestSplitTSVColumns pins the header and one row of each kind, byte for
// byte (the README shows them).
func TestSplitTSVColumns(t *testing.T) {
	code, out, _ := cli(t, "http://h?\nhttp://a b\n", "split", "--format", "tsv", "--header")
	want := "line\tinput\tvalid\tscheme\tuserinfo\thost\thost_type\tport\tpath\tquery\tfragment\terror_offset\terror_reason\n" +
		"1\thttp://h?\ttrue\thttp\t\\N\th\treg-name\t\\N\t\t\t\\N\t\\N\t\\N\n" +
		"2\thttp://a b\tfalse\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t\\N\t8\tinvalid character ' ' in host\n"
	if code != 1 || out != want {
		t.Errorf("exit %d\n%q\nwant\n%q", code, out, want)
	}
	// Without --header, one row per input line, as the JSON.
	if _, out, _ := cli(t, "a\n\nb\n", "split", "--format", "tsv"); len(lines(out)) != 3 || !strings.HasPrefix(out, "1\ta\ttrue\t") {
		t.Errorf("no header: %q", out)
	}
	for _, args := range [][]string{
		{"split", "--format", "csv"},
		{"split", "--header"},
	} {
		if code, out, errs := cli(t, "a\n", args...); code != exitUsage || out != "" || !strings.Contains(errs, strings.TrimPrefix(args[len(args)-1], "--")) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestTSVField: every byte value, alone and in invalid UTF-8 sequences,
// is written so that the field is UTF-8, holds no tab, newline or other
// control byte, and decodes back to itself.
func TestTSVField(t *testing.T) {
	var ins []string
	for c := range 256 {
		ins = append(ins, string([]byte{byte(c)}), "a"+string([]byte{byte(c)})+"\\b")
	}
	ins = append(ins, "\xe2\x82", "\xe2\x82\xac\xe2", "\xed\xa0\x80", "\xf4\x90\x80\x80", "ü€😀", `\N`, "")
	for _, in := range ins {
		f := string(appendTSVField(nil, in))
		if !utf8.ValidString(f) || strings.ContainsFunc(f, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			t.Errorf("%q -> %q", in, f)
		}
		if got := unTSV(t, f); got == nil || *got != in {
			t.Errorf("%q -> %q -> %s", in, f, show(got))
		}
		if g := string(appendTSVField(nil, []byte(in))); g != f {
			t.Errorf("%q: []byte gives %q, string %q", in, g, f)
		}
	}
}

// TestSplitTSVNoAllocs: the TSV rows, like the JSON, do not allocate.
func TestSplitTSVNoAllocs(t *testing.T) {
	good, _ := uriscan.ParseString("http://u:pw@0x7f.1:80/a/%2F?q#f")
	bad := []byte("http://a b\t\xff\\")
	_, perr := uriscan.Parse(bad)
	var e *uriscan.Error
	if !errors.As(perr, &e) {
		t.Fatalf("%q: %v", bad, perr)
	}
	var b []byte
	if n := testing.AllocsPerRun(100, func() {
		b = appendSplitTSVValid(b[:0], "f", 1, &good, true)
		b = appendSplitTSVFlags(b, &good, good.Warnings())
		b = appendSplitTSVInvalid(b, "f", 2, bad, e, true, true)
	}); n != 0 {
		t.Errorf("%v allocations per two rows", n)
	}
}
