//go:build unix

package main

import (
	"context"
	"fmt"

	redigo "github.com/gomodule/redigo/redis"
	goredis "github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
)

// A batch sends one pipeline: one command per 16-byte key of keys (SADD of
// the key to its shard's set, or SMISMEMBER of it), and returns how many
// replies were 1 (added, or a member).
type batch func(ctx context.Context, keys []byte) (int64, error)

// A client is one library connected to the server. worker gives a
// goroutine its own batch function (which may keep scratch space).
type client interface {
	worker(op string) batch
	close()
}

var clientNames = []string{"goredis", "redigo", "rueidis"}

// clientLabels are the clients' names in tables; rueidis4 is rueidis with
// four pipelined connections (PipelineMultiplex 2) whatever GOMAXPROCS.
var clientLabels = map[string]string{
	"goredis":  "go-redis v9",
	"redigo":   "redigo",
	"rueidis":  "rueidis",
	"rueidis4": "rueidis, 4 conns",
}

// newClient connects library name to addr for conc goroutines, each
// library as its documentation suggests, with its defaults otherwise.
func newClient(name, addr string, conc int) (client, error) {
	switch name {
	case "goredis":
		// Pipelined commands take a connection from the pool per pipeline:
		// conc goroutines use conc connections.
		return &goredisClient{goredis.NewClient(&goredis.Options{Addr: addr})}, nil
	case "redigo":
		// redigo has no client, only connections and a pool of them: each
		// pipeline takes one from the pool (conc connections at most).
		return &redigoClient{&redigo.Pool{
			MaxIdle:   conc,
			MaxActive: conc,
			Wait:      true,
			Dial:      func() (redigo.Conn, error) { return redigo.Dial("tcp", addr) },
		}}, nil
	case "rueidis", "rueidis4":
		// One client whose DoMulti calls from all goroutines share its
		// pipelined connections (PipelineMultiplex: by default 2^min(2,
		// floor(log2(GOMAXPROCS))) connections, so one on one CPU).
		o := rueidis.ClientOption{InitAddress: []string{addr}}
		if name == "rueidis4" {
			o.PipelineMultiplex = 2
		}
		c, err := rueidis.NewClient(o)
		if err != nil {
			return nil, err
		}
		return &rueidisClient{c}, nil
	}
	return nil, fmt.Errorf("unknown client %q (known: %v)", name, clientNames)
}

type goredisClient struct{ rdb *goredis.Client }

func (c *goredisClient) close() { c.rdb.Close() }

func (c *goredisClient) worker(op string) batch {
	if op == "sadd" {
		cmds := make([]*goredis.IntCmd, 0, 1024)
		return func(ctx context.Context, keys []byte) (int64, error) {
			cmds = cmds[:0]
			pipe := c.rdb.Pipeline()
			for i := 0; i < len(keys); i += 16 {
				k := keys[i : i+16 : i+16]
				cmds = append(cmds, pipe.SAdd(ctx, shardOf(k), k))
			}
			if _, err := pipe.Exec(ctx); err != nil {
				return 0, err
			}
			var n int64
			for _, cmd := range cmds {
				n += cmd.Val()
			}
			return n, nil
		}
	}
	cmds := make([]*goredis.BoolSliceCmd, 0, 1024)
	return func(ctx context.Context, keys []byte) (int64, error) {
		cmds = cmds[:0]
		pipe := c.rdb.Pipeline()
		for i := 0; i < len(keys); i += 16 {
			k := keys[i : i+16 : i+16]
			cmds = append(cmds, pipe.SMIsMember(ctx, shardOf(k), k))
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return 0, err
		}
		var n int64
		for _, cmd := range cmds {
			for _, b := range cmd.Val() {
				if b {
					n++
				}
			}
		}
		return n, nil
	}
}

type redigoClient struct{ pool *redigo.Pool }

func (c *redigoClient) close() { c.pool.Close() }

func (c *redigoClient) worker(op string) batch {
	cmd := "SADD"
	if op != "sadd" {
		cmd = "SMISMEMBER"
	}
	return func(ctx context.Context, keys []byte) (n int64, err error) {
		conn, err := c.pool.GetContext(ctx)
		if err != nil {
			return 0, err
		}
		defer conn.Close()
		for i := 0; i < len(keys); i += 16 {
			k := keys[i : i+16 : i+16]
			if err := conn.Send(cmd, shardOf(k), k); err != nil {
				return 0, err
			}
		}
		if err := conn.Flush(); err != nil {
			return 0, err
		}
		for i := 0; i < len(keys); i += 16 {
			if cmd == "SADD" {
				v, err := redigo.Int64(conn.Receive())
				if err != nil {
					return 0, err
				}
				n += v
				continue
			}
			vs, err := redigo.Int64s(conn.Receive())
			if err != nil {
				return 0, err
			}
			for _, v := range vs {
				n += v
			}
		}
		return n, nil
	}
}

type rueidisClient struct{ c rueidis.Client }

func (c *rueidisClient) close() { c.c.Close() }

func (c *rueidisClient) worker(op string) batch {
	cmds := make(rueidis.Commands, 0, 1024)
	sadd := op == "sadd"
	return func(ctx context.Context, keys []byte) (n int64, err error) {
		cmds = cmds[:0]
		for i := 0; i < len(keys); i += 16 {
			k := keys[i : i+16 : i+16]
			if sadd {
				cmds = append(cmds, c.c.B().Sadd().Key(shardOf(k)).Member(rueidis.BinaryString(k)).Build())
			} else {
				cmds = append(cmds, c.c.B().Smismember().Key(shardOf(k)).Member(rueidis.BinaryString(k)).Build())
			}
		}
		for _, r := range c.c.DoMulti(ctx, cmds...) {
			if sadd {
				v, err := r.AsInt64()
				if err != nil {
					return 0, err
				}
				n += v
				continue
			}
			vs, err := r.AsIntSlice()
			if err != nil {
				return 0, err
			}
			for _, v := range vs {
				n += v
			}
		}
		return n, nil
	}
}
