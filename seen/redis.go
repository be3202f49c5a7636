package seen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Set kept in a Redis (or Valkey) server or Redis Cluster, so
// that many processes on many machines share one set: a key added by any of
// them is seen by all.
//
// # Key layout
//
// The set is split into 16384 shards, one per Redis Cluster hash slot. Shard
// s is a Redis set stored under the Redis key
//
//	Prefix + "{" + tag(s) + "}"
//
// where tag(s) is the decimal form of the smallest non-negative integer i
// such that CRC16(decimal(i)) mod 16384 == s (the Redis Cluster key slot
// function; for example tag(0) = "3560", so shard 0 is "uriscan:seen:{3560}").
// The hash tag pins each shard to its own slot, so the shards cover all
// 16384 slots exactly once and a cluster spreads them over its masters
// exactly as it spreads its slots; resharding moves whole shards. A seen.Key
// k belongs to shard (uint16(k[0]) | uint16(k[1])<<8) & 16383, and is stored
// in it as a member of 16 raw bytes, the key itself. Every writer that
// shares a set must use the same Prefix and the same HighwayHash key (see
// package normalize); the layout above is fixed so that versions agree.
//
// # Operations
//
// Add is one SADD, which Redis executes atomically: exactly one of any
// number of concurrent writers, on any machines, sees the reply 1 (new) for
// a key. AddBatch sends one SADD per key, pipelined: it answers repeats
// within the batch itself (a key's later occurrences are not new, whatever
// the server says about the first), splits the distinct keys into up to
// RedisOptions.Pipelines parts of at least 256 keys, and sends the parts as
// concurrent pipelines on separate connections, so that building one
// overlaps with the server executing another; batches longer than
// RedisPipelineChunk keys are sent a chunk after another. With a cluster,
// go-redis further splits each pipeline by node and sends the node parts
// in parallel. Len is the sum of SCARD over the 16384 shards (a pipeline of
// 16384 commands, 10-30 milliseconds on loopback, so meant for summaries,
// not for every batch): it is exact and needs no separate counter, so
// there is neither a counter that can drift from the set after a crash nor
// a hot counter key on one node.
//
// Commands are never retried after they may have reached the server: a
// replayed SADD would reply 0 for a key this very call added, and the key
// would be reported as seen by nobody. So a network error or a timeout in
// the middle of Add or AddBatch is returned (the outcome for those keys is
// unknown, as Set allows), while cluster redirections (MOVED, ASK, which
// mean the command was not executed) are followed as usual.
//
// A Redis is safe for concurrent use by multiple goroutines; each call uses
// its own pipelines and connections (RedisOptions.PoolSize bounds them).
//
// Each key costs the server about 80-90 bytes of memory (a 16-byte set
// member in a hash table: 82 bytes per key at 3 million keys, 92 at 300
// thousand, by INFO used_memory on Redis 7.0; BenchmarkRedisAddBatch
// reports it), against 104 for one plain Redis key per URI (SET of
// prefix+hex NX, measured the same way).
type Redis struct {
	client    redis.UniversalClient
	cluster   bool
	keys      [redisShards]string // Redis key of each shard
	timeout   time.Duration
	pipelines int
	closed    atomic.Bool
}

// RedisMode selects how OpenRedis talks to its addresses.
type RedisMode int

const (
	// RedisAuto: with several addresses, a Redis Cluster (the addresses
	// are seed nodes); with one address, ask the server (INFO cluster,
	// field cluster_enabled) and use a cluster client if it is a cluster
	// node, a single-server client otherwise.
	RedisAuto RedisMode = iota
	// RedisStandalone: one address, one server (or a proxy); never a
	// cluster client.
	RedisStandalone
	// RedisCluster: a cluster client, the addresses are seed nodes.
	RedisCluster
)

// RedisOptions configures OpenRedis. The zero value (or nil) means a key
// prefix of "uriscan:seen:", auto-detected mode and go-redis' defaults.
type RedisOptions struct {
	// Prefix is prepended to every Redis key of the set: a namespace,
	// so several sets (or tests) can share one server. It must not
	// contain '{' or '}', which would change the key slots. Processes
	// that share a set use the same Prefix. Default "uriscan:seen:".
	Prefix string

	// Mode selects a single-server or a cluster client; default
	// RedisAuto.
	Mode RedisMode

	// Username and Password authenticate (AUTH); DB selects a database
	// on a single server (a cluster has only database 0).
	Username, Password string
	DB                 int

	// TLSConfig, when not nil, connects with TLS.
	TLSConfig *tls.Config

	// DialTimeout, ReadTimeout and WriteTimeout are passed to go-redis
	// (zero means its defaults: 5s, 3s, and ReadTimeout). ReadTimeout
	// applies to each reply, so to each pipeline chunk as a whole only
	// loosely.
	DialTimeout, ReadTimeout, WriteTimeout time.Duration

	// Timeout, when positive, bounds each Add, AddBatch and Len call as a
	// whole (a context deadline). Zero means no overall bound.
	Timeout time.Duration

	// Pipelines is the number of pipelines one AddBatch call sends at
	// the same time, on as many connections, each with a share of the
	// batch (at least 256 keys each); default DefaultRedisPipelines.
	Pipelines int

	// PoolSize is the number of connections per server (zero: the
	// go-redis default of 10 per CPU).
	PoolSize int
}

// DefaultRedisPrefix is the key prefix when RedisOptions.Prefix is empty.
const DefaultRedisPrefix = "uriscan:seen:"

// DefaultRedisPipelines is the default RedisOptions.Pipelines.
const DefaultRedisPipelines = 4

// RedisPipelineChunk is the number of keys AddBatch sends in one pipeline;
// longer batches are sent as several pipelines in order.
const RedisPipelineChunk = 8192

// redisShards is the number of shards: one per Redis Cluster hash slot.
const redisShards = 16384

// OpenRedis connects to a Redis server or Redis Cluster at addrs (host:port
// each) and returns the set stored there under opts.Prefix (see Redis for
// the layout). One address means a single server unless the server says it
// is a cluster node (see RedisAuto); several addresses mean a cluster and
// are its seed nodes. OpenRedis checks the connection with PING (and, for
// a cluster, that every slot is served) before returning.
func OpenRedis(addrs []string, opts *RedisOptions) (*Redis, error) {
	var o RedisOptions
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = DefaultRedisPrefix
	}
	if strings.ContainsAny(o.Prefix, "{}") {
		return nil, fmt.Errorf("seen: OpenRedis: prefix %q contains '{' or '}'", o.Prefix)
	}
	if len(addrs) == 0 {
		return nil, errors.New("seen: OpenRedis: no address")
	}
	cluster := false
	switch o.Mode {
	case RedisAuto:
		cluster = len(addrs) > 1
	case RedisStandalone:
		if len(addrs) > 1 {
			return nil, fmt.Errorf("seen: OpenRedis: %d addresses for a standalone server", len(addrs))
		}
	case RedisCluster:
		cluster = true
	default:
		return nil, fmt.Errorf("seen: OpenRedis: unknown mode %d", o.Mode)
	}

	r := &Redis{timeout: o.Timeout, pipelines: o.Pipelines}
	if r.pipelines <= 0 {
		r.pipelines = DefaultRedisPipelines
	}
	ctx, cancel := r.context()
	defer cancel()
	if !cluster {
		c := redis.NewClient(&redis.Options{
			Addr:         addrs[0],
			Username:     o.Username,
			Password:     o.Password,
			DB:           o.DB,
			TLSConfig:    o.TLSConfig,
			DialTimeout:  o.DialTimeout,
			ReadTimeout:  o.ReadTimeout,
			WriteTimeout: o.WriteTimeout,
			PoolSize:     o.PoolSize,
		})
		if o.Mode == RedisAuto {
			info, err := c.Info(ctx, "cluster").Result()
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("seen: OpenRedis %s: %w", addrs[0], err)
			}
			cluster = strings.Contains(info, "cluster_enabled:1")
		}
		if !cluster {
			r.client = c
		} else {
			c.Close()
		}
	}
	if cluster {
		if o.DB != 0 {
			return nil, fmt.Errorf("seen: OpenRedis %s: a Redis Cluster has only DB 0", strings.Join(addrs, ","))
		}
		r.cluster = true
		r.client = redis.NewClusterClient(&redis.ClusterOptions{
			Addrs:        addrs,
			Username:     o.Username,
			Password:     o.Password,
			TLSConfig:    o.TLSConfig,
			DialTimeout:  o.DialTimeout,
			ReadTimeout:  o.ReadTimeout,
			WriteTimeout: o.WriteTimeout,
			PoolSize:     o.PoolSize,
		})
	}
	if err := r.client.Ping(ctx).Err(); err != nil {
		r.client.Close()
		return nil, fmt.Errorf("seen: OpenRedis %s: %w", strings.Join(addrs, ","), err)
	}
	if r.cluster {
		// A cluster client only learns the slot map lazily; fail early
		// (rather than on the first Add) if the cluster is not serving
		// every slot.
		info, err := r.client.ClusterInfo(ctx).Result()
		if err != nil {
			r.client.Close()
			return nil, fmt.Errorf("seen: OpenRedis %s: CLUSTER INFO: %w", strings.Join(addrs, ","), err)
		}
		if !strings.Contains(info, "cluster_state:ok") {
			r.client.Close()
			return nil, fmt.Errorf("seen: OpenRedis %s: cluster state is not ok", strings.Join(addrs, ","))
		}
	}
	tags := redisSlotTags()
	for s := range r.keys {
		r.keys[s] = o.Prefix + "{" + tags[s] + "}"
	}
	return r, nil
}

// Cluster reports whether r talks to a Redis Cluster.
func (r *Redis) Cluster() bool { return r.cluster }

// Client returns the underlying go-redis client (a *redis.Client or a
// *redis.ClusterClient), for inspection and administration.
func (r *Redis) Client() redis.UniversalClient { return r.client }

// ShardKey returns the Redis key of the shard that holds k.
func (r *Redis) ShardKey(k Key) string { return r.keys[redisShard(k)] }

func redisShard(k Key) int { return int(uint16(k[0])|uint16(k[1])<<8) & (redisShards - 1) }

func (r *Redis) context() (context.Context, context.CancelFunc) {
	if r.timeout > 0 {
		return context.WithTimeout(context.Background(), r.timeout)
	}
	return context.Background(), func() {}
}

// noRetryCmd is a SADD that go-redis must not send again after a network
// error or timeout: see "Commands are never retried" on Redis. A pipeline
// that contains such a command is not replayed either; MOVED and ASK
// redirections still are.
type noRetryCmd struct{ *redis.IntCmd }

func (noRetryCmd) NoRetry() bool { return true }

func (r *Redis) sadd(ctx context.Context, k *Key) noRetryCmd {
	return noRetryCmd{redis.NewIntCmd(ctx, "sadd", r.keys[redisShard(*k)], string(k[:]))}
}

// Add records k and reports whether no process had recorded it before.
func (r *Redis) Add(k Key) (bool, error) {
	if r.closed.Load() {
		return false, ErrClosed
	}
	ctx, cancel := r.context()
	defer cancel()
	cmd := r.sadd(ctx, &k)
	if err := r.client.Process(ctx, cmd); err != nil {
		return false, r.wrap(err)
	}
	return cmd.Val() == 1, nil
}

// AddBatch records keys with pipelined SADDs and sets isNew[i] for each;
// see Set. See Redis for how a batch is split into pipelines.
func (r *Redis) AddBatch(keys []Key, isNew []bool) error {
	if r.closed.Load() {
		return ErrClosed
	}
	if len(isNew) < len(keys) {
		return ErrShortBatch
	}
	if len(keys) == 0 {
		return nil
	}
	ctx, cancel := r.context()
	defer cancel()
	b := redisBatchPool.Get().(*redisBatch)
	defer redisBatchPool.Put(b)
	for off := 0; off < len(keys); off += RedisPipelineChunk {
		end := min(off+RedisPipelineChunk, len(keys))
		if err := r.addChunk(ctx, b, keys[off:end], isNew[off:end]); err != nil {
			return err
		}
	}
	return nil
}

// redisBatch is the reusable scratch space of one AddBatch.
type redisBatch struct {
	table []int32 // open addressing: index+1 into the chunk, 0 empty
	first []int32 // chunk indexes of first occurrences, in order
}

var redisBatchPool = sync.Pool{New: func() any { return new(redisBatch) }}

// redisMinPart is the fewest keys worth a pipeline of their own.
const redisMinPart = 256

// addChunk adds at most RedisPipelineChunk keys. Repeats within the chunk
// are answered here (false) and only first occurrences are sent, so the
// pipelines may run concurrently without reordering a key's occurrences.
func (r *Redis) addChunk(ctx context.Context, b *redisBatch, keys []Key, isNew []bool) error {
	first := b.dedup(keys, isNew)
	parts := min(r.pipelines, (len(first)+redisMinPart-1)/redisMinPart)
	if parts <= 1 {
		return r.send(ctx, keys, first, isNew)
	}
	var wg sync.WaitGroup
	errs := make([]error, parts)
	for p := range parts {
		part := first[p*len(first)/parts : (p+1)*len(first)/parts]
		if p == parts-1 {
			errs[p] = r.send(ctx, keys, part, isNew)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = r.send(ctx, keys, part, isNew)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// dedup sets isNew[i] = false for every key that occurs earlier in keys and
// returns the indexes of first occurrences.
func (b *redisBatch) dedup(keys []Key, isNew []bool) []int32 {
	size := 1
	for size < 2*len(keys) {
		size <<= 1
	}
	if cap(b.table) < size {
		b.table = make([]int32, size)
	}
	t := b.table[:size]
	clear(t)
	mask := uint64(size - 1)
	first := b.first[:0]
	for i := range keys {
		k := &keys[i]
		// Key bits are uniform (a keyed hash); any bits make a slot.
		h := (uint64(k[2]) | uint64(k[3])<<8 | uint64(k[4])<<16 | uint64(k[5])<<24 |
			uint64(k[6])<<32 | uint64(k[7])<<40) * 0x9e3779b97f4a7c15 >> 20
		for j := h & mask; ; j = (j + 1) & mask {
			if t[j] == 0 {
				t[j] = int32(i + 1)
				first = append(first, int32(i))
				break
			}
			if keys[t[j]-1] == *k {
				isNew[i] = false
				break
			}
		}
	}
	b.first = first
	return first
}

// send adds keys[idx] for each idx in part with one pipeline and sets
// their isNew.
func (r *Redis) send(ctx context.Context, keys []Key, part []int32, isNew []bool) error {
	n := len(part)
	cmds := make([]noRetryCmd, n)
	// The arguments of all SADDs in three allocations: the members are
	// substrings of one string, and arguments are pointers (*string,
	// which go-redis writes as the string), so that putting them in an
	// interface allocates nothing. That leaves one allocation per key,
	// the command itself.
	var sb strings.Builder
	sb.Grow(n * len(Key{}))
	for _, i := range part {
		sb.Write(keys[i][:])
	}
	blob := sb.String()
	members := make([]string, n)
	args := make([]any, 3*n)
	pipe := r.client.Pipeline()
	for j, i := range part {
		members[j] = blob[j*len(Key{}) : (j+1)*len(Key{})]
		a := args[3*j : 3*j+3 : 3*j+3]
		a[0], a[1], a[2] = "sadd", &r.keys[redisShard(keys[i])], &members[j]
		cmds[j] = noRetryCmd{redis.NewIntCmd(ctx, a...)}
		_ = pipe.Process(ctx, cmds[j]) // only queues
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return r.wrap(err)
	}
	for j, i := range part {
		isNew[i] = cmds[j].Val() == 1
	}
	return nil
}

// Len returns the number of keys in the set, from all writers: the sum of
// SCARD over the shards. It returns -1 when that fails (for example after
// Close, or when a server is unreachable); Count reports the error.
func (r *Redis) Len() int64 {
	n, err := r.Count()
	if err != nil {
		return -1
	}
	return n
}

// Count is Len with its error.
func (r *Redis) Count() (int64, error) {
	if r.closed.Load() {
		return 0, ErrClosed
	}
	ctx, cancel := r.context()
	defer cancel()
	pipe := r.client.Pipeline()
	cmds := make([]*redis.IntCmd, redisShards)
	for s := range cmds {
		cmds[s] = pipe.SCard(ctx, r.keys[s])
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, r.wrap(err)
	}
	var n int64
	for _, c := range cmds {
		n += c.Val()
	}
	return n, nil
}

// Drop deletes the whole set from the server (UNLINK of every shard), for
// every process that shares it. The Redis stays open.
func (r *Redis) Drop() error {
	if r.closed.Load() {
		return ErrClosed
	}
	ctx, cancel := r.context()
	defer cancel()
	pipe := r.client.Pipeline()
	for s := range r.keys {
		pipe.Unlink(ctx, r.keys[s])
	}
	_, err := pipe.Exec(ctx)
	return r.wrap(err)
}

// Close closes the connections. The set stays on the server. A second
// Close returns ErrClosed.
func (r *Redis) Close() error {
	if r.closed.Swap(true) {
		return ErrClosed
	}
	return r.client.Close()
}

// wrap maps go-redis' "client is closed" (a Close racing with an operation)
// to ErrClosed and prefixes other errors.
func (r *Redis) wrap(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, redis.ErrClosed) || r.closed.Load():
		return fmt.Errorf("seen: redis: %w (%w)", ErrClosed, err)
	default:
		return fmt.Errorf("seen: redis: %w", err)
	}
}

// redisSlotTags returns, for each Redis Cluster hash slot s, the hash tag
// tag(s) described on Redis: the decimal form of the smallest i >= 0 with
// CRC16(decimal(i)) mod 16384 == s. Computed once (about 170k CRCs).
var redisSlotTags = sync.OnceValue(func() *[redisShards]string {
	var tags [redisShards]string
	left := redisShards
	var buf [20]byte
	for i := 0; left > 0; i++ {
		b := strconv.AppendInt(buf[:0], int64(i), 10)
		s := redisSlot(b)
		if tags[s] == "" {
			tags[s] = string(b)
			left--
		}
	}
	return &tags
})

// redisSlot is the Redis Cluster key slot of a hash tag's content:
// CRC16-CCITT (XMODEM: polynomial 0x1021, initial value 0) mod 16384.
func redisSlot(b []byte) int {
	var crc uint16
	for _, c := range b {
		crc = crc<<8 ^ crc16Table[byte(crc>>8)^c]
	}
	return int(crc) & (redisShards - 1)
}

var crc16Table = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

var _ Set = (*Redis)(nil)
