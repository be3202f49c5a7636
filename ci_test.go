package uriscan

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestCIRunsTheREADME holds .ci/run to the README: CI installs exactly the
// packages the README's set-up installs, runs its other set-up command and
// its test command, starts the servers it names and exports only what its
// "What CI runs" section shows, and sets no Go setting (GOFLAGS,
// GOTOOLCHAIN, ...) at all: a CI that differs from a user's set-up passes
// where the user fails (an untidy go.mod under GOFLAGS=-mod=mod).
func TestCIRunsTheREADME(t *testing.T) {
	ci := readText(t, ".ci/run")
	readme := readText(t, "README.md")

	// The Debian packages, as sets, from the one apt-get install of each.
	pkgs := func(name, text string) []string {
		text = strings.ReplaceAll(text, "\\\n", " ") // continued lines
		m := regexp.MustCompile(`apt-get install ([^>\n]*)`).FindAllStringSubmatch(text, -1)
		if len(m) != 1 {
			t.Fatalf("%s: %d apt-get install commands, want 1", name, len(m))
		}
		var out []string
		for _, w := range strings.Fields(m[0][1]) {
			if !strings.HasPrefix(w, "-") {
				out = append(out, w)
			}
		}
		slices.Sort(out)
		return out
	}
	if c, r := pkgs(".ci/run", ci), pkgs("README.md", readme); !slices.Equal(c, r) {
		t.Errorf("CI installs %q, the README %q", c, r)
	}

	// The commands: each of the README's set-up and test commands is run
	// by CI, and the Redis servers are started by the script the README
	// names.
	for _, cmd := range []string{"go mod download", ".ci/redis.sh", "\nmake test\n"} {
		if !strings.Contains(ci, cmd) || !strings.Contains(readme, strings.TrimSpace(cmd)) {
			t.Errorf("%q: in .ci/run %v, in the README %v", strings.TrimSpace(cmd), strings.Contains(ci, cmd), strings.Contains(readme, strings.TrimSpace(cmd)))
		}
	}

	// Every variable CI exports is in the README, on the same line; PATH
	// only finds the Go the README asks for, DEBIAN_FRONTEND only keeps
	// apt from asking questions.
	allowed := map[string]bool{"PATH": true, "DEBIAN_FRONTEND": true}
	assign := regexp.MustCompile(`\b([A-Z][A-Z0-9_]*)=`)
	exports := 0
	for _, line := range strings.Split(ci, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "#") {
			continue
		}
		for _, m := range assign.FindAllStringSubmatch(line, -1) {
			if strings.HasPrefix(m[1], "GO") {
				t.Errorf(".ci/run sets %s (%q): a Go setting the README's set-up lacks", m[1], line)
			}
		}
		if !strings.HasPrefix(line, "export ") {
			continue
		}
		exports++
		names := assign.FindAllStringSubmatch(line, -1)
		if len(names) == 1 && allowed[names[0][1]] {
			continue
		}
		if !strings.Contains(readme, line) {
			t.Errorf(".ci/run: %q is not in the README", line)
		}
	}
	if exports == 0 {
		t.Fatal(".ci/run exports nothing: the test reads the wrong file")
	}
}

func readText(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
