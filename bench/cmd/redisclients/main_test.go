//go:build unix

package main

import (
	"math/rand/v2"
	"os"
	"testing"
)

func TestClassify(t *testing.T) {
	base := map[string]bool{"net": true}
	rd := tinies[2] // go-redis
	for pkg, want := range map[string]group{
		"net":                                   gBase,
		"regexp":                                gStd,
		"golang.org/x/sys/cpu":                  gDeps,
		"github.com/redis/go-redis/v9":          gClient,
		"github.com/redis/go-redis/v9/internal": gClient,
		"github.com/redis/go-redis/v9x":         gDeps,
	} {
		if got := classify(pkg, rd, base); got != want {
			t.Errorf("classify(%q) = %d, want %d", pkg, got, want)
		}
	}
}

// TestPass runs every client's SADD and SMISMEMBER passes (which check
// every reply) against the server in $REDISCLIENTS_ADDR, a scratch server:
// the pass runs FLUSHALL.
func TestPass(t *testing.T) {
	addr := os.Getenv("REDISCLIENTS_ADDR")
	if addr == "" {
		t.Skip("REDISCLIENTS_ADDR not set (a scratch Redis server: it is flushed)")
	}
	ctl, err := dialCtl(addr)
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]byte, 16*10000)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(keys)
	for _, name := range append(clientNames, "rueidis4") {
		rs, err := pass(ctl, addr, name, keys, 256, 3, func() {})
		if err != nil {
			t.Fatal(err)
		}
		if len(rs) != 2 {
			t.Fatalf("%s: %d results", name, len(rs))
		}
	}
}
