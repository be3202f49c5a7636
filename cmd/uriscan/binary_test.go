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

// pebbleDeps are what the Pebble store brings (its dependency tree's
// package inits cost every run about 2.5 ms): linked only with the pebble
// build tag.
var pebbleDeps = []string{
	"github.com/cockroachdb/", "github.com/prometheus/", "google.golang.org/protobuf", "github.com/gogo/protobuf",
	"github.com/getsentry/", "github.com/uriscan/uriscan/seen/pebble",
}

// TestOneBinary: uriscan links every store but Pebble, the CPU report and
// the Public Suffix List; with the pebble tag, Pebble too. It does not
// link klauspost/cpuid, whose init asks the CPU in every process (the CPU
// report reads what the system says: internal/cpuinfo).
func TestOneBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	want := []string{"github.com/uriscan/uriscan/seen/keylog", "github.com/uriscan/uriscan/seen/redis",
		"github.com/uriscan/uriscan/internal/cpuinfo", "github.com/uriscan/uriscan/domain"}
	got, n := gotool.Linked(t, ".", want...)
	for _, p := range want {
		if !slices.Contains(got, p) {
			t.Errorf("uriscan does not link %s", p)
		}
	}
	if costly, _ := gotool.Linked(t, ".", "github.com/klauspost/cpuid/v2"); len(costly) > 0 {
		t.Errorf("uriscan links %v, whose init runs in every process", costly)
	}
	if heavy, _ := gotool.Linked(t, ".", pebbleDeps...); len(heavy) > 0 {
		t.Errorf("uriscan links %v without the pebble tag", heavy)
	}
	deps := strings.Fields(gotool.Run(t, "list", "-tags", "pebble", "-deps", "."))
	for _, p := range []string{"github.com/cockroachdb/pebble/v2", "github.com/uriscan/uriscan/seen/pebble"} {
		if !slices.Contains(deps, p) {
			t.Errorf("uriscan -tags pebble does not link %s", p)
		}
	}
	t.Logf("uriscan links %d packages, with the pebble tag %d", n, len(deps))
}

// TestBinary builds uriscan alone in a directory and runs it: dedup with
// a disk store (twice: the store is kept), cpu, what needs the Public
// Suffix List; a Pebble store says how to get the build with it; the
// environment variable of the former hand-off changes nothing.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the binary's name differs")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "uriscan")
	gotool.Run(t, "build", "-o", bin, ".")
	key := filepath.Join(dir, "key.hex")
	if err := os.WriteFile(key, []byte(strings.Repeat("0123456789abcdef", 4)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	type result struct {
		code           int
		stdout, stderr string
	}
	run := func(stdin string, env []string, args ...string) result {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(stdin)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return result{cmd.ProcessState.ExitCode(), out.String(), errb.String()}
	}
	in := "http://a/\nHTTP://A:80/\nhttp://b/x/../\n\nhttp://a b\nhttp://b/\n"
	store := "disk:" + filepath.Join(dir, "seen")
	// URISCAN_STORES named the second binary; it is gone, and so is any
	// effect of the variable.
	stale := []string{"URISCAN_STORES=/bin/echo"}
	if got := run(in, stale, "dedup", "--store", store, "--key-file", key); got.code != 1 || got.stdout != "http://a/\nhttp://b/x/../\n" ||
		!strings.Contains(got.stderr, "unique 2, duplicates 2") {
		t.Errorf("dedup --store disk: %+v", got)
	}
	if got := run(in, nil, "dedup", "--store", store, "--key-file", key); got.code != 1 || got.stdout != "" || !strings.Contains(got.stderr, "unique 0, duplicates 4") {
		t.Errorf("dedup --store disk:, again: %+v", got)
	}
	if got := run("", stale, "cpu"); got.code != 0 || !strings.Contains(got.stdout, "\nfeatures:") || !strings.Contains(got.stdout, "\nkernel:") {
		t.Errorf("cpu: %+v", got)
	}
	psl := "https://www.example.co.uk/a\nhttp://user.github.io/\n"
	if got := run(psl, nil, "split", "--get", "{rdn} {subdomain}", "--private-suffixes"); got.code != 0 || got.stdout != "example.co.uk www\nuser.github.io \n" {
		t.Errorf("split --get {rdn} {subdomain}: %+v", got)
	}
	got := run(in, nil, "dedup", "--store", "pebble:"+filepath.Join(dir, "pebble"), "--key-file", key)
	if got.code != 2 || got.stdout != "" || !strings.Contains(got.stderr, "make install-pebble, or go install -tags pebble ./cmd/uriscan") {
		t.Errorf("dedup --store pebble: without the tag: %+v", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "pebble")); !os.IsNotExist(err) {
		t.Errorf("dedup --store pebble: without the tag made the directory (%v)", err)
	}
}
