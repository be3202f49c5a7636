package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/keylog"
	"github.com/uriscan/uriscan/seen/pebble"
	"github.com/uriscan/uriscan/urikey"
)

// interopURIs are URIs in several spellings, with passwords (keyed
// redacted by both sides).
func interopURIs(tag string, n int) []string {
	var out []string
	for i := range n {
		switch i % 4 {
		case 0:
			out = append(out, fmt.Sprintf("http://www.h%d.example/%s/%d", i%7, tag, i))
		case 1:
			out = append(out, fmt.Sprintf("HTTP://H%d.EXAMPLE:80/%s/%d?utm_source=x", i%7, tag, i))
		case 2:
			out = append(out, fmt.Sprintf("http://u:pw%d@h%d.example/%s/%d", i, i%7, tag, i))
		default:
			out = append(out, fmt.Sprintf("https://h%d.example/%s/a/../%d#frag", i%7, tag, i))
		}
	}
	return out
}

// libraryHasher is what a Go program makes for the flags given to the
// command: level crawler with --strip-www (only that heuristic).
func libraryHasher(t *testing.T, key []byte) *urikey.Hasher {
	t.Helper()
	h, err := urikey.NewHasher(key, normalize.Crawler)
	if err != nil {
		t.Fatal(err)
	}
	h.Config().Heuristics = normalize.StripWWW
	return h
}

func libraryKeys(t *testing.T, h *urikey.Hasher, uris []string) []seen.Key {
	t.Helper()
	var keys []seen.Key
	for _, s := range uris {
		u, err := uriscan.ParseString(s)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, seen.Key(h.Sum(&u)))
	}
	return keys
}

// TestStoreInterop: a disk store written by a Go program through the
// library's API (urikey.Hasher.Params, keylog.Open or pebble.Open) is
// accepted by uriscan dedup --store disk:DIR with the same settings (a
// Pebble set an earlier version made included), and finds what the
// program recorded; a store written by the command (disk:DIR, pebble:DIR)
// is accepted by the program and holds the keys its hasher makes. Other
// settings, or a hasher with a random key, are refused.
func TestStoreInterop(t *testing.T) {
	t.Run("keylog", func(t *testing.T) {
		testStoreInterop(t, "disk:", func(dir string, p seen.Params) (seen.Set, error) {
			return keylog.Open(dir, &keylog.Options{Params: p})
		})
	})
	t.Run("pebble", func(t *testing.T) {
		needPebble(t)
		testStoreInterop(t, "pebble:", func(dir string, p seen.Params) (seen.Set, error) {
			return pebble.Open(dir, &pebble.Options{Params: p})
		})
	})
}

func testStoreInterop(t *testing.T, cmdKind string, openLib func(dir string, p seen.Params) (seen.Set, error)) {
	dir := t.TempDir()
	keyFile := writeKey(t, dir)
	key, err := urikey.ReadKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	flags := []string{"--key-file", keyFile, "--strip-www"}
	a, b := interopURIs("a", 40), interopURIs("b", 40)

	// Library first.
	lib := filepath.Join(dir, "lib")
	h := libraryHasher(t, key)
	p, err := h.Params()
	if err != nil {
		t.Fatal(err)
	}
	set, err := openLib(lib, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := set.Insert(libraryKeys(t, h, a)); err != nil {
		t.Fatal(err)
	}
	if err := set.Close(); err != nil {
		t.Fatal(err)
	}
	in := strings.Join(append(append([]string{}, a...), b...), "\n") + "\n"
	code, out, errs := cli(t, in, append([]string{"dedup", "--store", "disk:" + lib}, flags...)...)
	if code != 0 || out != strings.Join(shownAll(b), "\n")+"\n" {
		t.Fatalf("dedup over the library's store: exit %d, wrote\n%s\nwant the %d lines of b only\n%s", code, out, len(b), errs)
	}

	// The command first.
	cmdStore := filepath.Join(dir, "cmd")
	if code, _, errs := cli(t, strings.Join(a, "\n")+"\n", append([]string{"dedup", "--store", cmdKind + cmdStore}, flags...)...); code != 0 {
		t.Fatalf("dedup: exit %d\n%s", code, errs)
	}
	set, err = openLib(cmdStore, p)
	if err != nil {
		t.Fatalf("the library opening the command's store: %v", err)
	}
	has := make([]bool, len(a))
	if err := set.Contains(libraryKeys(t, h, a), has); err != nil {
		t.Fatal(err)
	}
	for i, ok := range has {
		if !ok {
			t.Errorf("the command's store lacks the library's key of %q", a[i])
		}
	}
	set.Close()

	// Other settings are refused, naming the difference.
	other, _ := urikey.NewHasher(key, normalize.Scheme)
	op, _ := other.Params()
	_, err = openLib(cmdStore, op)
	var pe *seen.ParamsError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "level=crawler") {
		t.Errorf("the store with level scheme: %v, want a *ParamsError naming the level", err)
	}
	if code, _, errs := cli(t, "http://x/\n", "dedup", "--store", "disk:"+lib, "--key-file", keyFile, "--level", "scheme"); code != 2 || !strings.Contains(errs, "--level crawler") {
		t.Errorf("dedup --level scheme over the library's crawler store: exit %d, want 2 and the flag it was made with\n%s", code, errs)
	}
	random, _ := urikey.NewHasher(nil, normalize.Crawler)
	if _, err := random.Params(); !errors.Is(err, urikey.ErrRandomKey) {
		t.Errorf("Params of a random key: %v", err)
	}
	if _, err := openLib(filepath.Join(dir, "none"), nil); err == nil {
		t.Error("Open without Params succeeded")
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); !os.IsNotExist(err) {
		t.Errorf("the refused Open made a directory: %v", err)
	}
}

// shownAll is uris as dedup writes them: passwords redacted.
func shownAll(uris []string) []string {
	out := make([]string, len(uris))
	for i, s := range uris {
		out[i] = string(uriscan.AppendRedacted(nil, []byte(s)))
	}
	return out
}

// TestStoreRefusalFlags: a store refused for its settings names the flags
// that make them, and rerunning with those flags is accepted.
func TestStoreRefusalFlags(t *testing.T) {
	dir := t.TempDir()
	key := writeKey(t, dir)
	for i, made := range [][]string{
		{"--level", "crawler"},
		{"--strip-www", "--sort-query"},
		{"--strip-param", "sid", "--strip-param", "utm_*"},
		{"--keep-encoded-dots", "--ipv6-rfc5952"},
		{"--keep-rootless-dots"},
		{"--level", "w3lib"},
		{"--show-passwords"},
		{"--grammar", "rfc2396"},
	} {
		store := "disk:" + filepath.Join(dir, fmt.Sprint(i))
		base := []string{"dedup", "--store", store, "--key-file", key}
		if code, _, errs := cli(t, "http://a/\n", append(base, made...)...); code != 0 {
			t.Fatalf("%q: exit %d\n%s", made, code, errs)
		}
		code, _, errs := cli(t, "http://a/\n", append(base, "--level", "syntax")...)
		_, rest, ok := strings.Cut(errs, " was made with ")
		flags, _, _ := strings.Cut(rest, "; this run has ")
		if code != 2 || !ok {
			t.Fatalf("%q, then --level syntax: exit %d, no flags named\n%s", made, code, errs)
		}
		// The named flags, with this run's others removed (--level
		// syntax is what differs), make the store's settings again.
		args := append([]string(nil), base...)
		for _, f := range strings.Fields(flags) {
			args = append(args, f)
		}
		if code, out, errs := cli(t, "http://a/\n", args...); code != 0 || out != "" {
			t.Errorf("%q: rerun with the flags named (%s): exit %d, output %q\n%s", made, flags, code, out, errs)
		}
	}
}
