package cli

import (
	"os"
	"path/filepath"
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
		{[]string{"split", "--format", "tsv"}, []string{"\thttp://u:***@h/a\ttrue\thttp\tu:***\th\t", "\thttp://u:***@h/ b\tfalse\t"}},
		{[]string{"validate"}, []string{`"http://u:***@h/ b"`}},
		{[]string{"normalize", "--errors", "jsonl"}, []string{`"input":"http://u:***@h/ b"`}},
		{[]string{"dedup", "--errors", "jsonl"}, []string{`"input":"http://u:***@h/ b"`}},
		{[]string{"normalize"}, []string{"http://u:***@h/a\n"}},
		{[]string{"normalize", "--format", "jsonl"}, []string{`"input":"http://u:***@h/a"`, `"normalized":"http://u:***@h/a"`}},
		{[]string{"normalize", "--repair"}, []string{"http://u:***@h/a\n", "http://u:***@h/%20b\n"}},
		{[]string{"dedup"}, []string{"http://u:***@h/a\n"}},
		{[]string{"dedup", "--repair"}, []string{"http://u:***@h/a\n", "http://u:***@h/%20b\n"}},
		{[]string{"dedup", "--output", "OUT"}, []string{"http://u:***@h/a\n"}},
		{[]string{"resolve", "--base", "http://x/"}, []string{"http://u:***@h/a\n"}},
		{[]string{"resolve", "--base", "http://v:" + secret + "@x/d/"}, []string{"http://u:***@h/a\n"}},
		{[]string{"extract"}, []string{"http://u:***@h/a\n", "http://u:***@h/\n"}},
		{[]string{"extract", "--format", "jsonl"}, []string{`"uri":"http://u:***@h/a"`}},
	} {
		// "OUT" is an --output file, read back with the output.
		outFile := ""
		run := func(extra ...string) string {
			args := append([]string(nil), tc.args...)
			for i, a := range args {
				if a == "OUT" {
					outFile = filepath.Join(t.TempDir(), "out")
					args[i] = outFile
				}
			}
			_, out, errs := cli(t, in, append(args, extra...)...)
			if outFile != "" {
				b, err := os.ReadFile(outFile)
				if err != nil {
					t.Fatal(err)
				}
				out += string(b)
			}
			return out + errs
		}
		all := run()
		if strings.Contains(all, secret) {
			t.Errorf("%v: the password shows:\n%s", tc.args, all)
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%v: no %q in:\n%s", tc.args, w, all)
			}
		}
		// --show-passwords writes the password where *** was.
		all = run("--show-passwords")
		for _, w := range tc.want {
			if w = strings.ReplaceAll(w, "***", secret); !strings.Contains(all, w) {
				t.Errorf("%v --show-passwords: no %q in:\n%s", tc.args, w, all)
			}
		}
	}
	// Under RFC 2396 a registry-based authority holds the password: it is
	// redacted all the same, in every command that takes --grammar.
	const in2396 = "//u:" + secret + "@a_b:80/p\n"
	for _, args := range [][]string{
		{"split"}, {"split", "--format", "tsv"}, {"split", "--flags"}, {"validate", "--warn"},
		{"normalize"}, {"normalize", "--format", "jsonl"}, {"resolve", "--base", "http://x/"}, {"dedup"},
	} {
		args = append(args, "--grammar", "rfc2396")
		_, out, errs := cli(t, in2396, args...)
		if strings.Contains(out+errs, secret) || !strings.Contains(out+errs, "u:***@a_b") {
			t.Errorf("%v: the password shows, or no u:***@a_b:\n%s%s", args, out, errs)
		}
		if _, out, errs = cli(t, in2396, append(args, "--show-passwords")...); !strings.Contains(out+errs, "u:"+secret+"@a_b") {
			t.Errorf("%v --show-passwords: no password:\n%s%s", args, out, errs)
		}
	}
	// Resolving a relative reference against a base with a password.
	if _, out, _ := cli(t, "g\n", "resolve", "--base", "http://v:"+secret+"@x/d/"); out != "http://v:***@x/d/g\n" {
		t.Errorf("resolve against a base with a password: %q", out)
	}
	// The hash is of the normal form as shown: with the password
	// redacted, that of "http://u:***@h/" (dedup's key); with
	// --show-passwords, that of the URI as written.
	key := writeFile(t, "k", strings.Repeat("ab", 32))
	hash := func(in string, args ...string) string {
		_, out, _ := cli(t, in, append([]string{"normalize", "--format", "jsonl", "--key-file", key}, args...)...)
		i := strings.Index(out, `"hash":"`)
		if i < 0 {
			t.Fatalf("no hash in %q", out)
		}
		return out[i : i+8+32]
	}
	if a, b := hash("http://u:p@h/\n"), hash("http://u:***@h/\n", "--show-passwords"); a != b {
		t.Errorf("redacted: %s, want the hash of the redacted form %s", a, b)
	}
	if a, b := hash("http://u:p@h/\n", "--show-passwords"), hash("http://u:***@h/\n", "--show-passwords"); a == b {
		t.Errorf("--show-passwords: the hash of the redacted form %s", a)
	}
	// Two URIs that differ only in their password are one to dedup, as
	// shown; two with --show-passwords.
	if _, out, _ := cli(t, "http://u:a@h/\nhttp://u:b@h/\n", "dedup"); out != "http://u:***@h/\n" {
		t.Errorf("dedup: %q", out)
	}
	if _, out, _ := cli(t, "http://u:a@h/\nhttp://u:b@h/\n", "dedup", "--show-passwords"); out != "http://u:a@h/\nhttp://u:b@h/\n" {
		t.Errorf("dedup --show-passwords: %q", out)
	}
	// A disk store records which keys it holds.
	store := "disk:" + t.TempDir() + "/seen"
	if code, _, errs := cli(t, "http://u:a@h/\n", "dedup", "--store", store, "--key-file", key); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if code, _, errs := cli(t, "http://u:a@h/\n", "dedup", "--store", store, "--key-file", key, "--show-passwords"); code != 2 || !strings.Contains(errs, "passwords") {
		t.Errorf("a store of redacted keys used with --show-passwords: exit %d, %q", code, errs)
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
