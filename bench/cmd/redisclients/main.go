//go:build unix

// Command redisclients compares three Go Redis clients, go-redis
// (github.com/redis/go-redis/v9, what seen/redis uses), redigo
// (github.com/gomodule/redigo) and rueidis (github.com/redis/rueidis), on
// what uriscan asks of one: the cost of linking it into a process, and
// pipelined throughput of the seen-set's commands. See README.md.
//
//	redisclients init [flags]      # from bench/: builds tiny/* and times them
//	redisclients pipeline [flags]  # against a running Redis server
package main

import (
	"fmt"
	"os"
	"slices"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	switch os.Args[1] {
	case "init":
		runInit(os.Args[2:])
	case "pipeline":
		runPipeline(os.Args[2:])
	default:
		usage()
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: redisclients init|pipeline [flags] (-h for the flags)")
	os.Exit(2)
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "redisclients:", err)
		os.Exit(1)
	}
}

// median of xs (sorted in place).
func median[T int64 | float64 | time.Duration](xs []T) T {
	slices.Sort(xs)
	n := len(xs)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// quantile of sorted xs, nearest rank.
func quantile[T int64 | float64 | time.Duration](sorted []T, q float64) T {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q * float64(len(sorted)-1))
	return sorted[i]
}
