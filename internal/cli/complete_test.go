package cli

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFlagChoices: every flag whose help lists its values has them in
// flagChoices (which completion offers), and each of them is in its help.
func TestFlagChoices(t *testing.T) {
	n := 0
	for _, c := range commands {
		fs, _ := newFlagSet(c)
		fs.VisitAll(func(f *flag.Flag) {
			ch := choicesOf(c.name, f.Name)
			if listsValues(f) && ch == nil {
				t.Errorf("%s --%s lists its values, flagChoices has none", c.name, f.Name)
			}
			for _, v := range ch {
				n++
				if !strings.Contains(f.Usage, strings.TrimRight(v, ":/")) {
					t.Errorf("%s --%s: %q is not in its help %q", c.name, f.Name, v, f.Usage)
				}
			}
		})
	}
	if n < 20 {
		t.Errorf("%d values checked", n)
	}
}

// TestBashCompletion: the script bash generates is valid bash and
// completes the commands, every flag of every command, the listed values
// and the help topics, run in bash as the shell runs it.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	code, script, _ := cli(t, "", "completion", "bash")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	file := writeFile(t, "uriscan.bash", script)
	complete := func(words ...string) []string {
		t.Helper()
		var q []string
		for _, w := range words {
			q = append(q, "'"+w+"'")
		}
		prog := "source " + file + "\nCOMP_WORDS=(" + strings.Join(q, " ") + ")\nCOMP_CWORD=" + strconv.Itoa(len(words)-1) + "\n_uriscan\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
		out, err := exec.Command("bash", "-c", prog).CombinedOutput()
		if err != nil {
			t.Fatalf("%q: %v: %s", words, err, out)
		}
		return strings.Fields(string(out))
	}
	if got := complete("uriscan", "de"); strings.Join(got, " ") != "dedup" {
		t.Errorf("uriscan de<TAB>: %q", got)
	}
	if got := complete("uriscan", "help", "g"); strings.Join(got, " ") != "get" {
		t.Errorf("uriscan help g<TAB>: %q", got)
	}
	if got := complete("uriscan", "normalize", "--level", "s"); strings.Join(got, " ") != "syntax scheme shape safebrowsing" {
		t.Errorf("--level s<TAB>: %q", got)
	}
	if got := complete("uriscan", "dedup", "--workers", ""); len(got) != 0 {
		t.Errorf("--workers <TAB>: %q (a number: nothing)", got)
	}
	for _, c := range commands {
		got := " " + strings.Join(complete("uriscan", c.name, "-"), " ") + " "
		for _, f := range commandFlags(c) {
			if !strings.Contains(got, " --"+f.name+" ") || f.short != "" && !strings.Contains(got, " -"+f.short+" ") {
				t.Errorf("uriscan %s -<TAB> lacks --%s: %s", c.name, f.name, got)
			}
		}
	}
}

// TestZshCompletion: the zsh script parses (zsh -n) and names every
// command and flag.
func TestZshCompletion(t *testing.T) {
	code, script, _ := cli(t, "", "completion", "zsh")
	if code != 0 || !strings.HasPrefix(script, "#compdef uriscan\n") {
		t.Fatalf("exit %d, %.100q", code, script)
	}
	for _, c := range commands {
		for _, f := range commandFlags(c) {
			if !strings.Contains(script, "--"+f.name+"[") && !strings.Contains(script, ",--"+f.name+"}") {
				t.Errorf("zsh: %s --%s missing", c.name, f.name)
			}
		}
	}
	// _arguments splits a spec at its unescaped colons: a value list
	// "(memory disk: ...)" must escape them, or zsh completes nothing
	// (and says "parse error").
	lists := 0
	for _, l := range strings.Split(script, "\n") {
		for _, part := range strings.Split(l, ":(")[1:] {
			list, _, _ := strings.Cut(part, ")")
			lists++
			if strings.Contains(strings.ReplaceAll(list, `\:`, ""), ":") {
				t.Errorf("zsh: an unescaped colon in the values (%s) of %s", list, strings.TrimSpace(l))
			}
		}
	}
	if lists < 10 || !strings.Contains(script, `disk\: pebble\: redis\:// `) {
		t.Errorf("zsh: %d value lists; the stores' %v", lists, strings.Contains(script, `disk\:`))
	}
	if _, err := exec.LookPath("zsh"); err != nil {
		t.Skip("zsh is not installed (.ci/run installs it): syntax not checked")
	}
	file := writeFile(t, "_uriscan", script)
	if out, err := exec.Command("zsh", "-n", file).CombinedOutput(); err != nil {
		t.Errorf("zsh -n: %v: %s", err, out)
	}
	if code, _, errs := cli(t, "", "completion", "fish"); code != 2 || !strings.Contains(errs, "bash or zsh") {
		t.Errorf("completion fish: exit %d, %q", code, errs)
	}
}

// TestManPage: uriscan man is a manual page groff formats without a
// warning, with every command, its flags and the general help in it.
func TestManPage(t *testing.T) {
	code, page, _ := cli(t, "", "man")
	if code != 0 || !strings.HasPrefix(page, ".TH URISCAN 1") {
		t.Fatalf("exit %d, %.100q", code, page)
	}
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, "'") {
			t.Errorf("a line that troff reads as a request: %q", l)
		}
	}
	if _, err := exec.LookPath("groff"); err != nil {
		t.Skip("groff is not installed (.ci/run installs it): the page is not formatted")
	}
	file := filepath.Join(t.TempDir(), "uriscan.1")
	os.WriteFile(file, []byte(page), 0o644)
	cmd := exec.Command("groff", "-man", "-Tutf8", "-ww", "-P-c", "-P-b", "-P-u", file)
	var errs strings.Builder
	cmd.Stderr = &errs
	out, err := cmd.Output()
	if err != nil || errs.Len() > 0 {
		t.Fatalf("groff: %v: %s", err, errs.String())
	}
	text := strings.Join(strings.Fields(string(out)), " ")
	for _, c := range commands {
		for _, f := range commandFlags(c) {
			if !strings.Contains(text, "--"+f.name) {
				t.Errorf("man: %s --%s missing", c.name, f.name)
			}
		}
		if !strings.Contains(text, "uriscan "+c.name) {
			t.Errorf("man: %s missing", c.name)
		}
	}
	if !strings.Contains(text, "one binary with every store") || !strings.Contains(text, "EXIT STATUS") {
		t.Errorf("man: the general help or the exit status is missing")
	}
}

// TestHelpFILEs: the help of a command that reads inputs says what a FILE
// may be; cpu's, which reads none, does not.
func TestHelpFILEs(t *testing.T) {
	for _, c := range commands {
		_, out, _ := cli(t, "", c.name, "--help")
		if strings.Contains(out, "FILEs:") != (c.name != "cpu") {
			t.Errorf("%s --help: FILEs said: %v", c.name, strings.Contains(out, "FILEs:"))
		}
	}
}

// TestCompletionManHelp: completion and man have help, as topics and as
// --help, and the unknown-topic message lists every topic.
func TestCompletionManHelp(t *testing.T) {
	for _, args := range [][]string{{"help", "completion"}, {"completion", "--help"}, {"help", "man"}, {"man", "-h"}} {
		if code, out, _ := cli(t, "", args...); code != 0 || !strings.HasPrefix(out, "Usage: uriscan "+strings.TrimPrefix(args[len(args)-1], "-")) && !strings.HasPrefix(out, "Usage: uriscan "+args[0]) {
			t.Errorf("%q: exit %d, %.60q", args, code, out)
		}
	}
	if code, _, errs := cli(t, "", "help", "nope"); code != 2 || !strings.Contains(errs, "(topics: completion, get, man)") {
		t.Errorf("help nope: exit %d, %q", code, errs)
	}
}
