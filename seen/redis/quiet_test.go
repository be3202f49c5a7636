//go:build unix

package redis_test

import (
	"bytes"
	"io"
	"log"
	"os"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/uriscan/uriscan/seen/redis"
)

// captureStderr runs f with file descriptor 2, and the standard logger,
// redirected, and returns what was written to either. go-redis' default
// logger writes to the *os.File of descriptor 2 that it took at init, so
// only a redirection of the descriptor itself sees it.
func captureStderr(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	saved, err := unix.Dup(2)
	if err != nil {
		t.Fatal(err)
	}
	if err := unix.Dup2(int(w.Fd()), 2); err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	logOut, logFlags := log.Writer(), log.Flags()
	log.SetOutput(&logged)
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(r); got <- b }()
	func() {
		defer func() {
			log.SetOutput(logOut)
			log.SetFlags(logFlags)
			unix.Dup2(saved, 2)
			unix.Close(saved)
			w.Close()
		}()
		f()
	}()
	return string(<-got) + logged.String()
}

// TestRedisQuiet: a failing open writes nothing to stderr or the standard
// log (go-redis would log its failed dials); the error says it all.
func TestRedisQuiet(t *testing.T) {
	var errs []error
	out := captureStderr(t, func() {
		_, err := redis.OpenURL("redis://u:s3cr3t-pw@127.0.0.1:1/0?max_retries=-1", &redis.Options{AnyParams: true, DialTimeout: time.Second})
		errs = append(errs, err)
		_, err = redis.Open([]string{"127.0.0.1:1", "127.0.0.1:2"}, &redis.Options{AnyParams: true, DialTimeout: time.Second})
		errs = append(errs, err)
	})
	if out != "" {
		t.Errorf("a failing open wrote to stderr or the log:\n%s", out)
	}
	for i, err := range errs {
		if err == nil {
			t.Errorf("open %d succeeded", i)
		}
	}
}
