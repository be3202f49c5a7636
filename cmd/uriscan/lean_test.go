package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/gotool"
)

// heavy are what uriscan must not link: the persistent stores' packages
// and what they bring, and klauspost/cpuid (uriscan cpu's), whose package
// init every run would pay (see cli.Stores); and net/http and cgo (a
// dynamically linked binary), which a progress bar library brought.
var heavy = []string{
	"github.com/cockroachdb/", "github.com/redis/go-redis", "github.com/klauspost/cpuid",
	"github.com/prometheus/", "google.golang.org/protobuf", "github.com/gogo/protobuf", "github.com/getsentry/",
	"github.com/uriscan/uriscan/seen/disk", "github.com/uriscan/uriscan/seen/redis",
	"net/http", "runtime/cgo",
}

// TestLeanDependencies: uriscan links none of heavy; uriscan-stores links
// the stores and cpuid.
func TestLeanDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	linked, n := gotool.Linked(t, ".", heavy...)
	for _, d := range linked {
		t.Errorf("uriscan links %s", d)
	}
	stores := []string{"github.com/cockroachdb/pebble/v2", "github.com/redis/go-redis/v9", "github.com/klauspost/cpuid/v2"}
	full, m := gotool.Linked(t, "../uriscan-stores", stores...)
	for _, p := range stores {
		if !slices.Contains(full, p) {
			t.Errorf("uriscan-stores does not link %s", p)
		}
	}
	t.Logf("uriscan links %d packages, uriscan-stores %d", n, m)
}

// TestHandOff builds both binaries and runs the lean one: a run with a
// disk store and uriscan cpu are handed to uriscan-stores (found beside
// it, also through a symbolic link, or by $URISCAN_STORES) and give what
// uriscan-stores gives; without uriscan-stores they fail with exit status
// 2 and say what needs it and how to install it, and the rest works.
func TestHandOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binaries")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the binaries' names differ")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	os.Mkdir(bin, 0o755)
	gotool.Run(t, "build", "-o", bin+string(filepath.Separator), ".", "../uriscan-stores")
	lean, full := filepath.Join(bin, "uriscan"), filepath.Join(bin, "uriscan-stores")
	key := filepath.Join(dir, "key.hex")
	os.WriteFile(key, []byte(strings.Repeat("0123456789abcdef", 4)+"\n"), 0o644)
	in := "http://a/\nHTTP://A:80/\nhttp://b/x/../\n\nhttp://a b\nhttp://b/\n"

	// An environment where no other uriscan-stores is found.
	var env []string
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); name != "PATH" && name != "URISCAN_STORES" && name != "URISCAN_HANDED_OFF" {
			env = append(env, kv)
		}
	}
	env = append(env, "PATH="+filepath.Join(dir, "empty"))
	type result struct {
		code           int
		stdout, stderr string
	}
	run := func(stdin string, extraEnv []string, name string, args ...string) result {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(env[:len(env):len(env)], extraEnv...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
	}

	// dedup --store disk:, from standard input: as uriscan-stores does it,
	// twice (the store is kept).
	for round := range 2 {
		got := run(in, nil, lean, "dedup", "--store", "disk:"+filepath.Join(dir, "lean.store"), "--key-file", key)
		want := run(in, nil, full, "dedup", "--store", "disk:"+filepath.Join(dir, "full.store"), "--key-file", key)
		if got != want || got.code != 1 || !strings.Contains(got.stderr, "uriscan: dedup: lines 6") {
			t.Errorf("round %d: uriscan dedup --store disk: gives %+v\nuriscan-stores gives %+v", round, got, want)
		}
	}
	// What needs the Public Suffix List (which links net/http) is handed
	// over too, and gives what uriscan-stores gives.
	psl := "https://www.example.co.uk/a\nhttp://user.github.io/\n"
	for _, args := range [][]string{
		{"split", "--domains"},
		{"split", "--get", "{rdn} {subdomain}", "--private-suffixes"},
		{"dedup", "--scope", "rdn=example.co.uk"},
		{"normalize", "--format", "surt", "--surt-public-suffix"},
	} {
		got, want := run(psl, nil, lean, args...), run(psl, nil, full, args...)
		if got != want || got.code != 0 || got.stdout == "" {
			t.Errorf("uriscan %v gives %+v\nuriscan-stores gives %+v", args, got, want)
		}
	}
	// uriscan cpu, also through a link from another directory.
	want := run("", nil, full, "cpu")
	if want.code != 0 || !strings.Contains(want.stdout, "\nfeatures:") || !strings.Contains(want.stdout, "\nkernel:") {
		t.Fatalf("uriscan-stores cpu: %+v", want)
	}
	link := filepath.Join(dir, "link")
	os.Mkdir(link, 0o755)
	if err := os.Symlink(lean, filepath.Join(link, "uriscan")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{lean, filepath.Join(link, "uriscan")} {
		if got := run("", nil, name, "cpu"); got != want {
			t.Errorf("%s cpu: %+v, want uriscan-stores's %+v", name, got, want)
		}
	}

	// Alone: what needs the stores fails, the rest works.
	alone := filepath.Join(dir, "alone")
	os.Mkdir(alone, 0o755)
	b, err := os.ReadFile(lean)
	if err != nil {
		t.Fatal(err)
	}
	lonely := filepath.Join(alone, "uriscan")
	os.WriteFile(lonely, b, 0o755)
	howTo := "go install github.com/uriscan/uriscan/cmd/uriscan-stores@latest"
	for _, c := range []struct {
		args []string
		what string
	}{
		{[]string{"cpu"}, "cpu"},
		{[]string{"dedup", "--store", "disk:" + filepath.Join(dir, "s"), "--key-file", key}, "dedup --store disk:" + filepath.Join(dir, "s")},
		{[]string{"dedup", "--key-file", key, "--store", "redis://u:secret@h/0"}, "dedup --store redis://u:***@h/0"},
	} {
		got := run(in, nil, lonely, c.args...)
		if got.code != 2 || got.stdout != "" || !strings.HasPrefix(got.stderr, "uriscan: "+c.what+" needs uriscan-stores (") ||
			!strings.Contains(got.stderr, "neither beside this uriscan ("+filepath.Join(alone, "uriscan-stores")+") nor on $PATH") ||
			!strings.Contains(got.stderr, howTo) || strings.Contains(got.stderr, "secret") {
			t.Errorf("uriscan %q alone: %+v, want exit status 2 and what needs uriscan-stores", c.args, got)
		}
	}
	// Usage errors are the lean binary's own, as uriscan-stores words them.
	usage := []string{"dedup", "--store", "disk:" + filepath.Join(dir, "s")}
	if got, want := run(in, nil, lonely, usage...), run(in, nil, full, usage...); got != want || got.code != 2 {
		t.Errorf("uriscan %q alone: %+v, want uriscan-stores's %+v", usage, got, want)
	}
	if got := run(in, nil, lonely, "dedup"); got.code != 1 || got.stdout != "http://a/\nhttp://b/x/../\n" {
		t.Errorf("uriscan dedup alone: %+v", got)
	}
	// $URISCAN_STORES names it; one that is a lean uriscan is an error,
	// not a loop.
	if got := run("", []string{"URISCAN_STORES=" + full}, lonely, "cpu"); got != want {
		t.Errorf("URISCAN_STORES=%s uriscan cpu: %+v, want %+v", full, got, want)
	}
	got := run("", []string{"URISCAN_STORES=" + lean}, lonely, "cpu")
	if got.code != 2 || !strings.Contains(got.stderr, lean+" does not link them either") {
		t.Errorf("URISCAN_STORES=%s (a lean uriscan) uriscan cpu: %+v", lean, got)
	}
	if got := run("", []string{"URISCAN_STORES=" + filepath.Join(dir, "none")}, lonely, "cpu"); got.code != 2 || !strings.Contains(got.stderr, "$URISCAN_STORES is "+filepath.Join(dir, "none")+": ") {
		t.Errorf("URISCAN_STORES=(nothing) uriscan cpu: %+v", got)
	}
}
