package cli

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/normalize"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/urikey"
)

// TestRedisPassword: the password comes from the first line of
// --redis-password-file (its line end trimmed, nothing else), else from
// $URISCAN_REDIS_PASSWORD; the file wins over the variable. An empty
// first line, a first line over 64 KiB, "-" and a file that cannot be
// read are errors that name the file and hold nothing of what it read.
func TestRedisPassword(t *testing.T) {
	env := func(v string) func(string) string {
		return func(name string) string {
			if name != envRedisPassword {
				t.Errorf("getenv(%q), want %s", name, envRedisPassword)
			}
			return v
		}
	}
	if pw, err := redisPassword("", env("from-env")); pw != "from-env" || err != nil {
		t.Errorf("no file, $%s set: %q, %v", envRedisPassword, pw, err)
	}
	if pw, err := redisPassword("", env("")); pw != "" || err != nil {
		t.Errorf("no file, no variable: %q, %v", pw, err)
	}
	dir := t.TempDir()
	write := func(content string) string {
		f, err := os.CreateTemp(dir, "pw")
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(content)
		f.Close()
		return f.Name()
	}
	for _, c := range []struct{ content, want string }{
		{"Pw7Q-file\n", "Pw7Q-file"},
		{"Pw7Q-file\r\n", "Pw7Q-file"},
		{"Pw7Q-file", "Pw7Q-file"},
		{"Pw7Q-file\nsecond line\n", "Pw7Q-file"},
		{" Pw7Q with spaces \t\n", " Pw7Q with spaces \t"},
		{strings.Repeat("p", maxPasswordLine) + "\r\n", strings.Repeat("p", maxPasswordLine)},
	} {
		name := write(c.content)
		if pw, err := redisPassword(name, env("from-env")); pw != c.want || err != nil {
			t.Errorf("file %.20q: %.20q, %v; want %.20q", c.content, pw, err, c.want)
		}
	}
	for _, c := range []struct{ name, want string }{
		{write(""), "the first line is empty"},
		{write("\nPw7Q-second\n"), "the first line is empty"},
		{write("\r\n"), "the first line is empty"},
		{write(strings.Repeat("Pw7Q", maxPasswordLine/4+1)), "longer than 64 KiB"},
		{write(strings.Repeat("Pw7Q", maxPasswordLine/4+1) + "\n"), "longer than 64 KiB"},
		{filepath.Join(dir, "missing"), "no such file"},
		{dir, "directory"},
		{"-", "standard input"},
	} {
		pw, err := redisPassword(c.name, env("from-env"))
		if err == nil || pw != "" {
			t.Errorf("%s: %q, %v; want an error", c.name, pw, err)
			continue
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "--redis-password-file") || !strings.Contains(msg, c.name) || !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want it to name the flag, the file and %q", c.name, msg, c.want)
		}
		if strings.Contains(msg, "Pw7Q") {
			t.Errorf("%s: the error holds what the file holds: %q", c.name, msg)
		}
	}
}

// TestRedisPasswordWarning: a password file that group or others may
// read is warned about (and taken); one of its owner's only, a pipe, or
// none, is not.
func TestRedisPasswordWarning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no permission bits")
	}
	name := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(name, []byte("pw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if w := redisPasswordWarning(name); w != "" {
		t.Errorf("mode 0600: %q", w)
	}
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644} {
		if err := os.Chmod(name, mode); err != nil {
			t.Fatal(err)
		}
		if w := redisPasswordWarning(name); !strings.Contains(w, "(mode 0"+octal(mode)+")") {
			t.Errorf("mode %v: %q, want a warning with the mode", mode, w)
		}
		if pw, err := redisPassword(name, os.Getenv); pw != "pw" || err != nil {
			t.Errorf("mode %v: %q, %v; want the password all the same", mode, pw, err)
		}
	}
	for _, f := range []string{"", "-", "/dev/null", filepath.Join(t.TempDir(), "missing")} {
		if w := redisPasswordWarning(f); w != "" {
			t.Errorf("%q: %q", f, w)
		}
	}
}

// octal is m's permission bits in three octal digits.
func octal(m os.FileMode) string {
	const digits = "01234567"
	p := uint32(m.Perm())
	return string([]byte{digits[p>>6&7], digits[p>>3&7], digits[p&7]})
}

// TestRedisPasswordStore: StoreOptions.Password reaches a Redis store
// (through the Stores the tests link, as cmd/uriscan does) whose URL
// has no password, and for the user a URL names alone; a password in the
// URL wins over it. No error holds either password.
func TestRedisPasswordStore(t *testing.T) {
	const pw, wrong = "Pw7Q-right-Zk9X", "Qx5W-wrong-Jm2V"
	srv := startRedis(t)
	// (Set once it answers: startRedis waits for a PONG.)
	c, err := net.Dial("tcp", srv.addr())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(c, "CONFIG SET requirepass %s\r\n", pw)
	if line, _ := bufio.NewReader(c).ReadString('\n'); line != "+OK\r\n" {
		t.Fatalf("CONFIG SET requirepass: %q", line)
	}
	c.Close()
	h, err := urikey.NewHasher(nil, normalize.Syntax)
	if err != nil {
		t.Fatal(err)
	}
	params := h.Settings()
	open := func(spec, password string) error {
		s, err := testStores.open(spec+"?prefix=uriscan-test:"+t.Name()+":", "", params, StoreOptions{Password: password})
		if err == nil {
			s.Close()
			return nil
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(err.Error(), wrong) {
			t.Errorf("%s: the error holds a password: %v", spec, err)
		}
		return err
	}
	for _, c := range []struct {
		spec, password string
		ok             bool
	}{
		{"redis://" + srv.addr(), pw, true},
		{"redis://default@" + srv.addr(), pw, true}, // the URL's user, the option's password
		{"redis://:" + pw + "@" + srv.addr(), wrong, true},
		{"redis://:" + wrong + "@" + srv.addr(), pw, false}, // the URL's wins
		{"redis://" + srv.addr(), wrong, false},
		{"redis://" + srv.addr(), "", false},
	} {
		err := open(c.spec, c.password)
		if (err == nil) != c.ok {
			t.Errorf("%s with StoreOptions.Password %q: %v, want success %v", strings.ReplaceAll(c.spec, pw, "PW"), c.password, err, c.ok)
		}
		var lost *seen.LostError
		if errors.As(err, &lost) {
			t.Errorf("%s: %v", c.spec, err)
		}
	}
}
