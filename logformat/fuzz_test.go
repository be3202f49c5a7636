package logformat_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/uriscan/uriscan/logformat"
)

// FuzzParseCombined: no panic; an error is an *Error within the line and
// leaves fields and scratch alone; every Value lies in the line (at its
// Offset) or in the scratch returned, and equals a reference decoding of
// the raw bytes at its Offset.
// checkError checks an error of ParseCombined or JSONField, called with
// one field named "x" and the scratch "keep": an *Error with an offset in
// the line and a reason, and fields and scratch left as they were.
func checkError(t *testing.T, err error, line []byte, fields []logformat.Field, scratch []byte) *logformat.Error {
	t.Helper()
	var e *logformat.Error
	if !errors.As(err, &e) || e.Offset < 0 || e.Offset > len(line) || e.Reason == "" {
		t.Fatalf("bad error %#v", err)
	}
	if len(fields) != 1 || string(scratch) != "keep" {
		t.Fatalf("error with fields %s, scratch %q", fieldsString(fields), scratch)
	}
	return e
}

func FuzzParseCombined(f *testing.F) {
	for _, c := range combinedCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		keep := []byte("keep")[:4:4]
		fields, scratch, err := logformat.ParseCombined([]logformat.Field{{Name: "x"}}, keep, line)
		if err != nil {
			checkError(t, err, line, fields, scratch)
			return
		}
		if len(fields) < 1 || fields[0].Name != "x" || !bytes.HasPrefix(scratch, []byte("keep")) {
			t.Fatal("fields or scratch not appended to")
		}
		order := map[string]int{"request": 1, "request_line": 1, "referer": 2, "user_agent": 3}
		last := 0
		for _, fl := range fields[1:] {
			if order[fl.Name] <= last {
				t.Fatalf("field %s out of order or unknown: %s", fl.Name, fieldsString(fields))
			}
			last = order[fl.Name]
			if fl.Offset < 1 || fl.Offset > len(line) || len(fl.Value) == 0 {
				t.Fatalf("%s: offset %d, value %q", fl.Name, fl.Offset, fl.Value)
			}
			raw := refRaw(line, fl)
			switch {
			case within(fl.Value, line):
				if &fl.Value[0] != &line[fl.Offset] || !bytes.Equal(fl.Value, raw) {
					t.Fatalf("%s: Value in the line but not its raw bytes at Offset", fl.Name)
				}
			case within(fl.Value, scratch):
				if want := refUnescape(raw); !bytes.Equal(fl.Value, want) {
					t.Fatalf("%s: decoded %q, reference %q (raw %q)", fl.Name, fl.Value, want, raw)
				}
			default:
				t.Fatalf("%s: Value in neither the line nor the scratch", fl.Name)
			}
		}
		// Same result with a fresh scratch, and with a newline added.
		again, _, err := logformat.ParseCombined(nil, nil, append(append([]byte(nil), line...), '\r', '\n'))
		if err != nil || len(again) != len(fields)-1 {
			t.Fatalf("with CRLF: %v, %s", err, fieldsString(again))
		}
		for k := range again {
			if again[k].Name != fields[k+1].Name || !bytes.Equal(again[k].Value, fields[k+1].Value) || again[k].Offset != fields[k+1].Offset {
				t.Fatalf("with CRLF: %s, want %s", fieldsString(again), fieldsString(fields[1:]))
			}
		}
	})
}

// refRaw returns the raw bytes of the field f of line, found
// independently of the parser: up to the closing quote, and for the
// request target, up to the last space of the request line when the line
// has one after the target.
func refRaw(line []byte, f logformat.Field) []byte {
	end := f.Offset
	for end < len(line) && line[end] != '"' {
		if line[end] == '\\' {
			end++
		}
		end++
	}
	end = min(end, len(line))
	if f.Name == logformat.NameRequest {
		if sp := bytes.LastIndexByte(line[f.Offset:end], ' '); sp >= 0 {
			end = f.Offset + sp
		}
	}
	return line[f.Offset:end]
}

// refUnescape decodes the Apache and nginx escapes, as documented.
func refUnescape(raw []byte) []byte {
	named := map[byte]byte{'"': '"', '\\': '\\', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t', 'v': '\v'}
	hexval := func(c byte) int {
		k := strings.IndexByte("0123456789abcdefABCDEF", c)
		if k >= 16 {
			k -= 6
		}
		return k
	}
	var out []byte
	for i := 0; i < len(raw); i++ {
		if raw[i] == '\\' && i+1 < len(raw) {
			if b, ok := named[raw[i+1]]; ok {
				out = append(out, b)
				i++
				continue
			}
			if raw[i+1] == 'x' && i+3 < len(raw) {
				hi, lo := hexval(raw[i+2]), hexval(raw[i+3])
				if hi >= 0 && lo >= 0 {
					out = append(out, byte(hi<<4|lo))
					i += 3
					continue
				}
			}
		}
		out = append(out, raw[i])
	}
	return out
}

// nginxEscape escapes v as nginx's default log escaping does.
func nginxEscape(v []byte) []byte {
	const hexdig = "0123456789ABCDEF"
	var out []byte
	for _, c := range v {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x7f {
			out = append(out, '\\', 'x', hexdig[c>>4], hexdig[c&15])
			continue
		}
		out = append(out, c)
	}
	return out
}

var (
	rtHosts   = []string{"192.0.2.7", "2001:db8::1", "::1", "host.example"}
	rtMethods = []string{"GET", "POST", "OPTIONS", "PROPFIND", "M-SEARCH"}
	rtProtos  = []string{"HTTP/1.0", "HTTP/1.1", "HTTP/2.0", "HTTP/3"}
)

// checkRoundTrip formats target, ref and ua as nginx would in a combined
// line (the shape chosen by sel) and checks that ParseCombined gives them
// back.
func checkRoundTrip(t *testing.T, target, ref, ua []byte, sel uint) {
	t.Helper()
	method := rtMethods[sel%uint(len(rtMethods))]
	proto := rtProtos[sel/8%uint(len(rtProtos))]
	shape := sel / 32 % 4 // 0 combined, 1 CLF, 2 combined + extra fields, 3 referer only
	line := rtHosts[sel/2%uint(len(rtHosts))] + ` - - [01/Mar/2024:00:00:00 +0000] "` +
		method + " " + string(nginxEscape(target)) + " " + proto + `" 200 1234`
	if shape != 1 {
		line += ` "` + string(nginxEscape(ref)) + `"`
	}
	if shape == 0 || shape == 2 {
		line += ` "` + string(nginxEscape(ua)) + `"`
	}
	if shape == 2 {
		line += ` "203.0.113.1, 10.0.0.1" rt=0.123 "` + "\n"
	}
	var exp []want
	if len(target) > 0 {
		exp = append(exp, wantOf("request", string(target)))
	} else {
		exp = append(exp, wantOf("request_line", method+"  "+proto))
	}
	if shape != 1 && len(ref) > 0 && string(ref) != "-" {
		exp = append(exp, wantOf("referer", string(ref)))
	}
	if (shape == 0 || shape == 2) && len(ua) > 0 && string(ua) != "-" {
		exp = append(exp, wantOf("user_agent", string(ua)))
	}
	lineB := []byte(line)
	fields, scratch, err := logformat.ParseCombined(nil, nil, lineB)
	if err != nil {
		t.Fatalf("%q: %v", line, err)
	}
	if len(fields) != len(exp) {
		t.Fatalf("%q: got %s, want %q", line, fieldsString(fields), exp)
	}
	for k, f := range fields {
		if f.Name != exp[k].Name || string(f.Value) != exp[k].Value {
			t.Fatalf("%q: field %d: got %s=%q, want %s=%q", line, k, f.Name, f.Value, exp[k].Name, exp[k].Value)
		}
		if !within(f.Value, lineB) && !within(f.Value, scratch) {
			t.Fatalf("%q: %s Value in neither the line nor the scratch", line, f.Name)
		}
		if !bytes.HasPrefix(lineB[f.Offset:], nginxEscape(f.Value)) {
			t.Fatalf("%q: %s Offset %d does not hold the escaped value", line, f.Name, f.Offset)
		}
	}
}

func wantOf(name, value string) want { return want{Name: name, Value: value} }

// FuzzCombinedRoundTrip: values escaped and formatted as nginx does come
// back unchanged.
func FuzzCombinedRoundTrip(f *testing.F) {
	f.Add([]byte("/a b?c=\"d\""), []byte("http://r/\\x"), []byte("Mozilla/5.0 (X11)"), uint(0))
	f.Add([]byte("/caf\xc3\xa9/\xe2\x82\xac"), []byte("-"), []byte(""), uint(37))
	f.Add([]byte(""), []byte("\x00\x1f\x7f\xff"), []byte("-"), uint(70))
	f.Add([]byte(" HTTP/1.1 "), []byte(" "), []byte("\""), uint(101))
	f.Add([]byte("\x16\x03\x01"), []byte("\\"), []byte("a\tb"), uint(200))
	f.Fuzz(func(t *testing.T, target, ref, ua []byte, sel uint) {
		checkRoundTrip(t, target, ref, ua, sel)
	})
}

// TestCombinedRoundTrip is FuzzCombinedRoundTrip over random values, so
// that plain go test runs it.
func TestCombinedRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3986, 20240601))
	alphabet := []byte("ab/?#:% -\"\\\x00\x1f\x7f\x80\xffHTTP/1.1x22")
	gen := func() []byte {
		b := make([]byte, r.IntN(12))
		for i := range b {
			if r.IntN(4) == 0 {
				b[i] = byte(r.IntN(256))
			} else {
				b[i] = alphabet[r.IntN(len(alphabet))]
			}
		}
		return b
	}
	for range 20000 {
		checkRoundTrip(t, gen(), gen(), gen(), uint(r.Uint32()))
	}
}

// FuzzJSONField: no panic; the verdict agrees with encoding/json on
// which lines are valid JSON objects, and on what string lies at the
// path (the first occurrence, keys joined by dots); every Value lies in
// the line or in the scratch returned.
func FuzzJSONField(f *testing.F) {
	for _, c := range jsonCases {
		f.Add([]byte(c.line), c.path)
	}
	f.Fuzz(func(t *testing.T, line []byte, path string) {
		keep := []byte("keep")[:4:4]
		fields, scratch, err := logformat.JSONField([]logformat.Field{{Name: "x"}}, keep, line, path)
		if !refValidPath(path) {
			if !errors.Is(err, logformat.ErrInvalidPath) {
				t.Fatalf("path %q: got %v, want ErrInvalidPath", path, err)
			}
			return
		}
		trimmed := bytes.TrimLeft(line, " \t\r\n")
		valid := json.Valid(line) && len(trimmed) > 0 && trimmed[0] == '{'
		if err != nil {
			e := checkError(t, err, line, fields, scratch)
			if valid && !strings.Contains(e.Reason, "deeper") {
				t.Fatalf("%q: error %v, but encoding/json finds it valid", line, err)
			}
			return
		}
		if !valid {
			t.Fatalf("%q: no error, but encoding/json finds it invalid (or not an object)", line)
		}
		if len(fields) > 2 || fields[0].Name != "x" || !bytes.HasPrefix(scratch, []byte("keep")) {
			t.Fatalf("fields %s", fieldsString(fields))
		}
		var got *logformat.Field
		if len(fields) == 2 {
			got = &fields[1]
			if got.Name != path || got.Offset < 1 || got.Offset > len(line) || line[got.Offset-1] != '"' {
				t.Fatalf("field %s at %d", got.Name, got.Offset)
			}
			inLine := within(got.Value, line) && (len(got.Value) == 0 || &got.Value[0] == &line[got.Offset])
			if !inLine && !within(got.Value, scratch) {
				t.Fatalf("Value in neither the line (at Offset) nor the scratch")
			}
		}
		if !utf8.Valid(line) {
			return // encoding/json replaces invalid UTF-8; JSONField passes it through
		}
		want, found := refJSONFind(t, line, path)
		switch {
		case found != (got != nil):
			t.Fatalf("%q path %q: found %v, reference %v (%q)", line, path, got != nil, found, want)
		case found && string(got.Value) != want:
			t.Fatalf("%q path %q: got %q, reference %q", line, path, got.Value, want)
		}
	})
}

func refValidPath(p string) bool {
	if p == "" {
		return false
	}
	for _, s := range strings.Split(p, ".") {
		if s == "" {
			return false
		}
	}
	return true
}

// refJSONFind walks line's tokens with encoding/json: the first value
// whose keys from the top, joined with '.', spell path, with no array on
// the way, decides; found when it is a string.
func refJSONFind(t *testing.T, line []byte, path string) (string, bool) {
	type frame struct {
		obj, onPath bool
		joined      string // the keys down to this object, joined
		wantKey     bool
		key         string
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var stack []*frame
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return "", false
		}
		if err != nil {
			t.Fatalf("reference decoder: %v", err)
		}
		if len(stack) == 0 { // the top-level object
			stack = append(stack, &frame{obj: true, onPath: true, wantKey: true})
			continue
		}
		top := stack[len(stack)-1]
		if top.obj && top.wantKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return "", false
				}
				continue
			}
			top.key, top.wantKey = tok.(string), false
			continue
		}
		if !top.obj && tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			continue
		}
		joined, onPath := "", top.obj && top.onPath
		if top.obj {
			joined = top.key
			if top.joined != "" {
				joined = top.joined + "." + top.key
			}
			top.wantKey = true
		}
		full := onPath && joined == path
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, onPath: onPath && strings.HasPrefix(path, joined+"."), joined: joined, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{})
		}
		if full {
			s, ok := tok.(string)
			return s, ok
		}
	}
}
