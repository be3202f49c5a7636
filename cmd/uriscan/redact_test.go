package main

import (
	"strings"
	"testing"
)

// TestRedaction: a password in userinfo (RFC 3986 §7.5) is redacted in
// every output and report made of URIs, and shown with --show-passwords;
// what is compared and hashed is the URI as written.
func TestRedaction(t *testing.T) {
	const secret = "s3cret"
	in := "http://u:" + secret + "@h/a\nhttp://u:" + secret + "@h/ b\n"
	for _, tc := range []struct {
		args []string
		want []string // in stdout+stderr, redacted
	}{
		{[]string{"split"}, []string{`"input":"http://u:***@h/a"`, `"userinfo":"u:***"`, `"input":"http://u:***@h/ b"`}},
		{[]string{"validate"}, []string{`"http://u:***@h/ b"`}},
		{[]string{"normalize", "--errors", "jsonl"}, []string{`"input":"http://u:***@h/ b"`}},
		{[]string{"dedup", "--errors", "jsonl"}, []string{`"input":"http://u:***@h/ b"`}},
		{[]string{"normalize"}, []string{"http://u:***@h/a\n"}},
		{[]string{"normalize", "--format", "jsonl"}, []string{`"input":"http://u:***@h/a"`, `"normalized":"http://u:***@h/a"`}},
		{[]string{"normalize", "--repair"}, []string{"http://u:***@h/a\n", "http://u:***@h/%20b\n"}},
		{[]string{"dedup"}, []string{"http://u:***@h/a\n"}},
		{[]string{"dedup", "--repair"}, []string{"http://u:***@h/a\n", "http://u:***@h/%20b\n"}},
		{[]string{"resolve", "--base", "http://x/"}, []string{"http://u:***@h/a\n"}},
		{[]string{"resolve", "--base", "http://v:" + secret + "@x/d/"}, []string{"http://u:***@h/a\n"}},
		{[]string{"extract"}, []string{"http://u:***@h/a\n", "http://u:***@h/\n"}},
		{[]string{"extract", "--format", "jsonl"}, []string{`"uri":"http://u:***@h/a"`}},
	} {
		_, out, errs := cli(t, in, tc.args...)
		all := out + errs
		if strings.Contains(all, secret) {
			t.Errorf("%v: the password shows:\n%s", tc.args, all)
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%v: no %q in:\n%s", tc.args, w, all)
			}
		}
		// --show-passwords writes the password where *** was.
		_, out, errs = cli(t, in, append(tc.args, "--show-passwords")...)
		all = out + errs
		for _, w := range tc.want {
			if w = strings.ReplaceAll(w, "***", secret); !strings.Contains(all, w) {
				t.Errorf("%v --show-passwords: no %q in:\n%s", tc.args, w, all)
			}
		}
	}
	// Resolving a relative reference against a base with a password.
	if _, out, _ := cli(t, "g\n", "resolve", "--base", "http://v:"+secret+"@x/d/"); out != "http://v:***@x/d/g\n" {
		t.Errorf("resolve against a base with a password: %q", out)
	}
	// The hash is the URI's as written: the same with and without.
	_, a, _ := cli(t, "http://u:p@h/\n", "normalize", "--format", "jsonl", "--key-file", writeFile(t, "k", strings.Repeat("ab", 32)))
	_, b, _ := cli(t, "http://u:p@h/\n", "normalize", "--format", "jsonl", "--show-passwords", "--key-file", writeFile(t, "k2", strings.Repeat("ab", 32)))
	ha, hb := a[strings.Index(a, `"hash"`):], b[strings.Index(b, `"hash"`):]
	if ha != hb {
		t.Errorf("hashes differ: %s vs %s", ha, hb)
	}
	// Two URIs that differ only in their password are two URIs to dedup,
	// though they show the same.
	if _, out, _ := cli(t, "http://u:a@h/\nhttp://u:b@h/\n", "dedup"); out != "http://u:***@h/\nhttp://u:***@h/\n" {
		t.Errorf("dedup: %q", out)
	}
	// A path's "//" and "@" are not userinfo.
	if _, out, _ := cli(t, "foo:x//u:p@h\n", "normalize"); out != "foo:x//u:p@h\n" {
		t.Errorf("path: %q", out)
	}
}

// TestSecurityFlags: split --flags writes the §7 warnings of each valid
// line (and the address of a rare IPv4 form), validate --warn prints the
// lines that raise one, neither changing validity or the exit status.
func TestSecurityFlags(t *testing.T) {
	in := "http://0x7f.1/\nhttp://www.bank.com:pw@evil.test/%2E%2E/x\nhttp://ok/\n"
	code, out, _ := cli(t, in, "split", "--flags")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if code != 0 || len(lines) != 3 {
		t.Fatalf("exit %d, %q", code, out)
	}
	for i, want := range []string{
		`"host_type":"reg-name","port":null,"path":"/","query":null,"fragment":null,"warnings":["rare-ipv4"],"ipv4":"127.0.0.1"}`,
		`"warnings":["password","userinfo-like-host","encoded-dot-segment"]}`,
		`"warnings":[]}`,
	} {
		if !strings.HasSuffix(lines[i], want) {
			t.Errorf("line %d: %s, want the suffix %s", i+1, lines[i], want)
		}
	}
	if _, out, _ := cli(t, in, "split"); strings.Contains(out, "warnings") {
		t.Errorf("split without --flags: %q", out)
	}
	code, out, _ = cli(t, in+"http://a b/\n", "validate", "--warn")
	want := "<stdin>:1: warning: rare-ipv4 (127.0.0.1): \"http://0x7f.1/\"\n" +
		"<stdin>:2: warning: password, userinfo-like-host, encoded-dot-segment: \"http://www.bank.com:***@evil.test/%2E%2E/x\"\n" +
		"<stdin>:4: offset 8: invalid character ' ' in host: \"http://a b/\"\n"
	if code != 1 || out != want {
		t.Errorf("validate --warn: exit %d\n%s\nwant\n%s", code, out, want)
	}
	if code, out, _ := cli(t, in, "validate"); code != 0 || out != "" {
		t.Errorf("validate without --warn: exit %d, %q", code, out)
	}
}
