package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/testexec"
)

// TestProgressBar runs validate in a real terminal (a tmux pane): while
// it reads a slow standard input the pane shows the bar (command, lines,
// megabytes, rate); once it is done the bar's line is cleared. The same
// run with standard error into a pipe writes no bar at all.
func TestProgressBar(t *testing.T) {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		if os.Getenv("URISCAN_TMUX_REQUIRE") != "" {
			t.Fatal("tmux is required (URISCAN_TMUX_REQUIRE) and absent")
		}
		t.Skip("tmux absent: the progress bar is not tested in a terminal")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte(strings.Repeat("http://example.com/a/b?q=1\n", 100000)), 0o644)
	self, err := testexec.Self() // under the emulator, for the arm64 leg
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal([]string{"validate", "--workers", "1"})
	run := "env " + envCLIArgs + "='" + string(args) + "' " + strings.Join(self.Args, " ")
	slow := "{ cat " + in + "; sleep 2; cat " + in + "; }"
	pipeOut := filepath.Join(dir, "pipe.txt")
	script := slow + " | " + run + "; echo TTY-DONE; " + slow + " | " + run + " 2>&1 | cat > " + pipeOut + "; echo PIPE-DONE; sleep 30"
	sock := filepath.Join(dir, "tmux.sock")
	tm := func(a ...string) string {
		out, err := exec.Command(tmux, append([]string{"-S", sock}, a...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v: %s", a, err, out)
		}
		return string(out)
	}
	tm("new-session", "-d", "-s", "bar", "-x", "160", "-y", "24", "sh", "-c", script)
	defer exec.Command(tmux, "-S", sock, "kill-server").Run()
	waitFor := func(what string, ok func(screen string) bool) string {
		var screen string
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			if screen = tm("capture-pane", "-p", "-t", "bar"); ok(screen) {
				return screen
			}
		}
		t.Fatalf("%s: never; the pane shows:\n%s", what, screen)
		return ""
	}
	// The bar: the command, lines, megabytes and the rate (kB/s, MB/s...).
	waitFor("a bar", func(s string) bool {
		return strings.Contains(s, "validate 100000 lines, 2.7 MB (") && strings.Contains(s, "B/s)")
	})
	done := waitFor("the run's end", func(s string) bool { return strings.Contains(s, "TTY-DONE") })
	if strings.Contains(done, " lines, ") {
		t.Errorf("the bar was not cleared at the end:\n%s", done)
	}
	waitFor("the piped run's end", func(s string) bool { return strings.Contains(s, "PIPE-DONE") })
	if b, err := os.ReadFile(pipeOut); err != nil || strings.Contains(string(b), " lines, ") || strings.Contains(string(b), "\r") {
		t.Errorf("standard error into a pipe: %q (%v), want no bar", b, err)
	}
}

// TestInputSize: the bar knows the size (and gives an ETA) only when every
// input is a plain regular file.
func TestInputSize(t *testing.T) {
	a := writeFile(t, "a.txt", "http://a/\n")
	b := writeFile(t, "b.txt", "http://bb/\n")
	gz := writeGzip(t, "c.gz", "http://c/\n")
	for _, tc := range []struct {
		files []string
		want  int64
	}{{[]string{a, b}, 21}, {[]string{a, "-"}, -1}, {[]string{a, gz}, -1}, {[]string{filepath.Join(t.TempDir(), "missing")}, -1}, {nil, -1}} {
		if got := inputSize(tc.files); got != tc.want {
			t.Errorf("inputSize(%q) = %d, want %d", tc.files, got, tc.want)
		}
	}
}

// TestBarLine: the bar's line, with and without the input's size, its
// rate over the last draws, and cut to the terminal's width.
func TestBarLine(t *testing.T) {
	var w strings.Builder
	t0 := time.Unix(1000, 0)
	b := bar{w: &w, total: 100e6, start: t0}
	b.draw("validate 10 lines, 40.0 MB", 40e6, 10, t0.Add(2*time.Second))
	if want := "\rvalidate 10 lines, 40.0 MB  40% |############                  | (5 URLs/s, 20.0 MB/s) [2s:3s]\x1b[K"; w.String() != want {
		t.Errorf("known size:\n%q, want\n%q", w.String(), want)
	}
	for i := range 12 { // the rate is over the last ten draws: 1 MB/s now
		w.Reset()
		b.draw("d", 40e6+int64(i+1)*1e6, 10+int64(i+1)*25000, t0.Add(time.Duration(3+i)*time.Second))
	}
	if !strings.Contains(w.String(), " (25.0 k URLs/s, 1.0 MB/s) [14s:48s]") {
		t.Errorf("rate over the last draws: %q", w.String())
	}
	w.Reset()
	b = bar{w: &w, total: -1, start: t0, cols: 20}
	b.draw("extract 5 lines, 0.0 MB", 500, 5, t0.Add(time.Second))
	if want := "\rextract 5 lines, 0." + "\x1b[K"; w.String() != want {
		t.Errorf("cut to 20 columns: %q, want %q", w.String(), want)
	}
	w.Reset()
	b.cols = 0
	b.unit = "lines"
	b.draw("x", 500, 5, t0.Add(time.Second))
	if want := "\rx (5 lines/s, 500 B/s) [1s]\x1b[K"; w.String() != want {
		t.Errorf("unknown size: %q, want %q", w.String(), want)
	}
	w.Reset()
	b.clear()
	if w.String() != "\r\x1b[K" {
		t.Errorf("clear: %q", w.String())
	}
}

func TestReadsStdin(t *testing.T) {
	for _, c := range []struct {
		files []string
		want  bool
	}{{nil, true}, {[]string{"a"}, false}, {[]string{"a", "-"}, true}} {
		if got := readsStdin(c.files); got != c.want {
			t.Errorf("readsStdin(%q) = %v", c.files, got)
		}
	}
}
