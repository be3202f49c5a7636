package cli

import (
	"bufio"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSecretsNeverShow: a password is redacted wherever a reader would
// take it for one (up to the last "@" before the first "/", "?" or "#"
// after "//"), whatever bytes it holds and whether the line is valid or
// not, in every command's output, report and echo (standard output,
// standard error, --output, --summary and checkpoint files), and in the
// error for an invalid --base; extract --any-scheme never turns
// "//user:pw@host" into a URI. With --show-passwords every command
// shows it, so none of these cases passes for want of reading the line.
func TestSecretsNeverShow(t *testing.T) {
	// Every password is head+c+tail; neither half may show, in any case
	// (the w3lib level lowercases what it does not understand).
	const head, tail = "Pw7Q", "Zk9X"
	chars := []struct{ name, c string }{
		{"none", ""}, // a valid URI
		{"space", " "},
		{"backslash", `\`},
		{"quote", `"`},
		{"percent", "%"},
		{"at", "@"},
		{"tab", "\t"},
		{"non-UTF-8", "\xff\xfe"},
		{"control", "\x01"},
		{"colon", ":"}, // the userinfo's first ":" starts the password
	}
	dir := t.TempDir()
	key := writeFile(t, "key", strings.Repeat("ab", 32))
	type tc struct {
		args []string
		// base: the --base argument's text (PW: the password), for
		// resolve.
		base string
	}
	var cases []tc
	add := func(args ...string) { cases = append(cases, tc{args: args}) }
	// The line commands, in both grammars.
	for _, g := range [][]string{nil, {"--grammar", "rfc2396"}} {
		with := func(args ...string) []string { return append(args, g...) }
		add(with("validate")...)
		add(with("validate", "--warn")...)
		add(with("validate", "--errors", "jsonl")...)
		for _, f := range [][]string{{}, {"--format", "tsv"}, {"--format", "tsv", "--header"}} {
			add(with(append([]string{"split"}, f...)...)...)
			add(with(append([]string{"split", "--flags"}, f...)...)...)
		}
		add(with("split", "--errors", "jsonl")...)
		for _, lv := range []string{"syntax", "scheme", "crawler", "safebrowsing", "w3lib"} {
			add(with("normalize", "--level", lv)...)
			add(with("normalize", "--level", lv, "--format", "jsonl")...)
			add(with("normalize", "--level", lv, "--errors", "jsonl")...)
			add(with("dedup", "--level", lv)...)
			add(with("dedup", "--level", lv, "--output", "OUT", "--summary", "SUM")...)
			add(with("dedup", "--level", lv, "--errors", "jsonl")...)
		}
		add(with("normalize", "--repair")...)
		add(with("normalize", "--repair", "--format", "jsonl")...)
		add(with("dedup", "--repair")...)
		add(with("dedup", "--store", "disk:DIR", "--key-file", key, "--checkpoint", "CKPT")...)
		add(with("resolve", "--base", "http://x/d/")...)
		add(with("resolve", "--base", "http://x/d/", "--errors", "jsonl")...)
		cases = append(cases,
			tc{args: with("resolve"), base: "http://v:PW@x/d/"},     // invalid (or valid with "none")
			tc{args: with("resolve"), base: "//v:PW@x/d/"},          // not absolute
			tc{args: with("resolve"), base: "http://v:PW@x/d/%zz/"}, // invalid elsewhere
		)
	}
	add("normalize", "--format", "surt")
	add("dedup", "--extract")
	add("dedup", "--extract", "--schemes", "http,user,v")
	for _, f := range []string{"text", "jsonl", "tsv"} {
		add("extract", "--format", f)
		add("extract", "--format", f, "--rejects")
		add("extract", "--format", f, "--any-scheme", "--rejects")
		add("extract", "--format", f, "--any-scheme", "--rejects", "--errors", "jsonl", "--summary", "SUM")
		add("extract", "--format", f, "--log", "combined", "--rejects")
		add("extract", "--format", f, "--log", "combined", "--any-scheme", "--rejects", "--base", "http://x/")
		add("extract", "--format", f, "--log", "jsonl", "--field", "url", "--rejects")
		add("extract", "--format", f, "--log", "columns", "--columns", "1-", "--any-scheme", "--rejects")
	}
	// An invalid --base of extract --log combined is echoed in its usage
	// error.
	cases = append(cases,
		tc{args: []string{"extract", "--log", "combined"}, base: "http://v:PW@x/d/%zz/"},
		tc{args: []string{"extract", "--log", "combined"}, base: "//v:PW@x/d/"},
	)

	// Each password in the shapes a line, a log line and free text give it.
	input := func(args []string, pw string) string {
		uris := []string{
			"http://user:" + pw + "@host/p?q#f",
			"//user:" + pw + "@host/p",
			"HTTP://u@v:" + pw + "@Host:80",
			"http://user:" + pw + "@host/ with a space after",
		}
		var b strings.Builder
		for _, u := range uris {
			b.WriteString(u + "\n")
		}
		if args[0] != "extract" && !slices.Contains(args, "--extract") {
			return b.String()
		}
		// Lines that hold several URIs, for the commands that find them
		// (an echo of such a line redacts the first authority's).
		b.WriteString(`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET ` + uris[0] + ` HTTP/1.1" 200 1 "` + uris[0] + `" "UA (+` + uris[0] + `)"` + "\n")
		b.WriteString(`{"url":"` + uris[0] + `"}` + "\n")
		b.WriteString("see <" + uris[0] + "> or (" + uris[1] + ")\t" + uris[2] + "\n")
		return b.String()
	}

	failures := 0
	for _, c := range cases {
		shown := false // with --show-passwords, for some character
		for _, ch := range chars {
			pw := head + ch.c + tail
			run := func(extra ...string) (code int, all string) {
				files := map[string]string{"OUT": "out", "SUM": "summary.json", "CKPT": "checkpoint", "DIR": "store"}
				d, err := os.MkdirTemp(dir, "run")
				if err != nil {
					t.Fatal(err)
				}
				args := append([]string(nil), c.args...)
				for i, a := range args {
					if f, ok := files[a]; ok {
						args[i] = filepath.Join(d, f)
					} else if strings.HasPrefix(a, "disk:") {
						args[i] = "disk:" + filepath.Join(d, files[a[5:]])
					}
				}
				if c.base != "" {
					args = append(args, "--base", strings.ReplaceAll(c.base, "PW", pw))
				}
				code, out, errs := cli(t, input(c.args, pw), append(args, extra...)...)
				all = out + errs
				// Every file the run wrote: --output, its checkpoint,
				// --summary, the store.
				filepath.WalkDir(d, func(path string, de os.DirEntry, err error) error {
					if err == nil && !de.IsDir() {
						b, _ := os.ReadFile(path)
						all += "\n" + path + ":\n" + string(b)
					}
					return nil
				})
				return code, all
			}
			code, all := run()
			if code == 2 && c.base == "" {
				t.Fatalf("%q: exit 2 (a usage error in the test?):\n%s", c.args, all)
			}
			low := strings.ToLower(all)
			if strings.Contains(low, strings.ToLower(head)) || strings.Contains(low, strings.ToLower(tail)) {
				failures++
				t.Errorf("%q --base %q, a password with %s: it shows:\n%s", c.args, c.base, ch.name, all)
			}
			if _, all = run("--show-passwords"); strings.Contains(strings.ToLower(all), strings.ToLower(head)) {
				shown = true
			}
		}
		// Safe Browsing's canonical form has no userinfo: normalize at
		// that level has no password to show but in the input of its
		// JSON. Every other case shows one with --show-passwords, so it
		// tests something.
		drops := c.args[0] == "normalize" && slices.Contains(c.args, "safebrowsing") && !strings.Contains(strings.Join(c.args, " "), "--format jsonl")
		if shown == drops {
			t.Errorf("%q --base %q: with --show-passwords, the password shows: %v", c.args, c.base, shown)
		}
	}
	if failures > 0 {
		t.Logf("%d of %d cases (commands x characters) show a password", failures, len(cases)*len(chars))
	}
}

// TestSecretsLongLines: a password longer than an echo shows none of its
// bytes (it is redacted before the echo is cut), and in a line over
// --max-line, of which only the head is held, what could be a password
// whose "@" was never read is redacted too.
func TestSecretsLongLines(t *testing.T) {
	const mark = "Pw7Q"
	pw := strings.Repeat(mark, 100) // 400 bytes: past echoes of 200 and 256
	in := "http://user:" + pw + " x@host/p\nhttp://user:" + pw + "@host/p\n"
	for _, args := range [][]string{
		{"validate"}, {"split"}, {"split", "--format", "tsv"}, {"split", "--errors", "jsonl"},
		{"normalize", "--errors", "jsonl"}, {"normalize", "--format", "jsonl"},
		{"dedup", "--errors", "jsonl"}, {"resolve", "--base", "http://x/", "--errors", "jsonl"},
	} {
		for _, limit := range []string{"1000", "100"} {
			args := append(args, "--max-line", limit)
			_, out, errs := cli(t, in, args...)
			if strings.Contains(out+errs, mark) || !strings.Contains(out+errs, "http://user:***") {
				t.Errorf("%q: a password shows, or no user:***:\n%s%s", args, out, errs)
			}
			_, out, errs = cli(t, in, append(args, "--show-passwords")...)
			if !strings.Contains(out+errs, mark) {
				t.Errorf("%q --show-passwords: no password:\n%s%s", args, out, errs)
			}
		}
	}
	// A --uri refused for its line end is echoed redacted.
	if code, out, errs := cli(t, "", "validate", "-u", "http://u:"+pw+"@h/\nx"); code != 2 || strings.Contains(out+errs, mark) {
		t.Errorf("--uri with a line end: exit %d, the password shows or no refusal:\n%s%s", code, out, errs)
	}
	// In a head cut in the authority, what follows a ":" may be a
	// password whose "@" was never read; a head cut in the path holds a
	// whole authority, and one with no ":" no password.
	for _, c := range []struct{ in, want string }{
		{"http://u:" + strings.Repeat("p", 300), `"input":"http://u:***"`},
		{"http://h:80/" + strings.Repeat("p", 300), `"input":"http://h:80/ppp`},
		{"http://" + strings.Repeat("h", 300), `"input":"http://hhh`},
	} {
		if _, out, _ := cli(t, c.in+"\n", "split", "--max-line", "100"); !strings.Contains(out, c.want) {
			t.Errorf("%.20q...: %s, want %s", c.in, out, c.want)
		}
	}
}

// TestSecretsRedisStore: no secret of a Redis --store URL shows in
// dedup's standard output, standard error or the files it writes, for
// every form of URL (redis://, rediss://, redis+cluster://,
// rediss+cluster://; one host, several, a malformed port, an empty
// element, a host name that holds the password) with a distinctive secret
// in every position a secret takes (the userinfo's password, a
// password-only userinfo, a user-only one with a password option,
// password, sentinel_password and other "pass"-named options, each addr
// option's password, an addr option encoded whole), the secret plain,
// percent-encoded with every reserved character in it, or holding one of
// them unescaped (go-redis' parser then fails): whether the run stops at
// its usage check (no --key-file), at the store's open (nothing listens
// on 127.0.0.1:1), or, against a server of the test's own that requires
// the password, at a wrong password or not at all (its checkpoint records
// the store as shown).
func TestSecretsRedisStore(t *testing.T) {
	const head, tail = "Pw7Q", "Zk9X"
	const special = ":/?#[]@!$&'()*+,;=% \"\\"
	key := writeFile(t, "key", strings.Repeat("ab", 32))
	userEnc := func(pw string) string { return strings.TrimPrefix(url.UserPassword("", pw).String(), ":") }
	positions := []func(scheme, hosts, userPW, queryPW string) string{
		func(s, h, u, _ string) string { return s + "://user:" + u + "@" + h + "/0" },
		func(s, h, u, _ string) string { return s + "://:" + u + "@" + h },
		func(s, h, _, q string) string { return s + "://user@" + h + "?password=" + q },
		func(s, h, _, q string) string { return s + "://" + h + "?sentinel_password=" + q },
		func(s, h, _, q string) string {
			return s + "://" + h + "?dial_timeout=1s&PassWord=" + q + "&my_passphrase=" + q
		},
		func(s, h, u, _ string) string {
			return s + "://user:" + u + "@" + h + "?addr=user:" + u + "@127.0.0.1:3&addr=:" + u + "@127.0.0.1:4"
		},
		func(s, h, u, _ string) string {
			return s + "://" + h + "?addr=" + url.QueryEscape("user:"+u+"@127.0.0.1:3")
		},
	}
	var specs []string
	for _, scheme := range []string{"redis", "rediss", "redis+cluster", "rediss+cluster"} {
		for _, hosts := range []string{"127.0.0.1:1", "127.0.0.1:1,127.0.0.1:2"} {
			for _, p := range positions {
				specs = append(specs, p(scheme, hosts, head+tail, head+tail))
				enc := head + special + tail
				specs = append(specs, p(scheme, hosts, userEnc(enc), url.QueryEscape(enc)))
			}
		}
		pw := strings.ToLower(head + tail) // the host name's first label
		specs = append(specs, scheme+"://user:"+pw+"@"+pw+".invalid:1/0")
	}
	for _, hosts := range []string{"127.0.0.1:70x0", "127.0.0.1:1,"} {
		specs = append(specs, "redis://user:"+head+tail+"@"+hosts, "redis+cluster://"+hosts+"?password="+head+tail)
	}
	for _, c := range []string{"/", "?", "#", "@", "&", "%", "%zz", " ", ":", `"`, "\x01", "\xff"} {
		pw := head + c + tail
		for _, p := range positions {
			specs = append(specs, p("redis", "127.0.0.1:1", pw, pw))
		}
	}

	type result struct {
		what, all string
		code      int
	}
	// run runs dedup with args, and returns its standard output and
	// error and the files it wrote in a directory of its own (where the
	// arguments OUT and SUM name its --output and --summary).
	run := func(args ...string) result {
		d := t.TempDir()
		args = slices.Clone(args)
		for i, a := range args {
			switch a {
			case "OUT":
				args[i] = filepath.Join(d, "out")
			case "SUM":
				args[i] = filepath.Join(d, "summary.json")
			}
		}
		code, out, errs := cli(t, "http://a/\nhttp://b/\n", append([]string{"dedup"}, args...)...)
		all := out + errs
		filepath.WalkDir(d, func(path string, de os.DirEntry, err error) error {
			if err == nil && !de.IsDir() {
				b, _ := os.ReadFile(path)
				all += "\n" + path + ":\n" + string(b)
			}
			return nil
		})
		return result{fmt.Sprintf("%q", args), all, code}
	}
	check := func(r result, marks ...string) {
		t.Helper()
		low := strings.ToLower(r.all)
		for _, m := range marks {
			if strings.Contains(low, strings.ToLower(m)) {
				t.Errorf("dedup %s: exit %d, a piece of a secret (%q) shows:\n%s", r.what, r.code, m, r.all)
			}
		}
	}
	var mu sync.Mutex
	var results []result
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	for i, spec := range specs {
		for _, args := range [][]string{
			{"--store", spec, "--key-file", key},
			{"--store", spec},
			{"--store", spec, "--key-file", key, "--output", "OUT"},
		} {
			if args[len(args)-1] == "OUT" && i%4 != 0 {
				continue // (on some forms: the same open, and a checkpoint not written)
			}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				r := run(args...)
				mu.Lock()
				results = append(results, r)
				mu.Unlock()
			}()
		}
	}
	wg.Wait()
	for _, r := range results {
		if r.code != exitUsage {
			t.Errorf("dedup %s: exit %d, want %d (no store opens):\n%s", r.what, r.code, exitUsage, r.all)
		}
		check(r, head, tail)
	}

	// A server that requires the password: a wrong one is refused, the
	// right one opens the store, and the checkpoint names it as shown.
	srv := startRedis(t)
	pw := head + "-" + special + "-" + tail
	c, err := net.Dial("tcp", srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONFIG SET requirepass %q\r\n", pw)
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "+OK\r\n" {
		t.Fatalf("CONFIG SET requirepass: %q", line)
	}
	c.Close()
	const wrongHead, wrongTail = "Qx5W", "Jm2V"
	wrong := wrongHead + special + wrongTail
	prefix := url.QueryEscape(fmt.Sprintf("uriscan-test:%d:", time.Now().UnixNano()))
	r := run("--store", "redis://:"+userEnc(wrong)+"@"+srv.addr()+"/0?prefix="+prefix, "--key-file", key)
	if r.code != exitUsage || !strings.Contains(r.all, "WRONGPASS") {
		t.Errorf("dedup %s: exit %d, want %d and WRONGPASS:\n%s", r.what, r.code, exitUsage, r.all)
	}
	check(r, wrongHead, wrongTail)
	for _, spec := range []string{
		"redis://:" + userEnc(pw) + "@" + srv.addr() + "/0?prefix=" + prefix,
		"redis://default:" + userEnc(pw) + "@" + srv.addr() + "?prefix=" + prefix,
		"redis+cluster://:" + userEnc(pw) + "@" + srv.addr() + "?prefix=" + prefix, // refused: not a cluster
	} {
		r := run("--store", spec, "--key-file", key, "--output", "OUT", "--summary", "SUM")
		if want := strings.HasPrefix(spec, "redis://"); (r.code == exitOK) != want {
			t.Errorf("dedup %s: exit %d, want success %v:\n%s", r.what, r.code, want, r.all)
		}
		if r.code == exitOK && !strings.Contains(r.all, ":***@") {
			t.Errorf("dedup %s: the checkpoint does not name the store as shown:\n%s", r.what, r.all)
		}
		check(r, head, tail)
	}
}
