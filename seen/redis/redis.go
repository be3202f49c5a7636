// Package redis is a seen-set kept in a Redis (or Valkey) server or a
// Redis Cluster, through go-redis, so that many processes on many
// machines share one set: a seen.Committer. See Set for the key layout,
// the checks against a server that forgets, the retries (with their
// timings) and how secrets are kept out of errors.
package redis

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/uriscan/uriscan/internal/redisurl"
	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/internal/store"
)

// Set is a seen.Set kept in a Redis (or Valkey) server or Redis Cluster, so
// that many processes on many machines share one set: a key added by any of
// them is seen by all.
//
// # seen.Key layout
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
// package urikey); the layout above is fixed so that versions agree.
// When Options.Params is given, the set's seen.Params are a JSON object in
// the string key Prefix + "params" (see seen.Params). The set's identity (see
// seen.Stamp) is the string key Prefix + "id", 32 hex digits set (SET NX) by
// the first Open. The commit records (seen.Committer) are the hash
// Prefix + "runs": one field per run, its identity (32 lowercase hex
// digits), whose value is the Seq of the run's last InsertCommit in
// decimal. Neither record is a key of the set: Len and Stamp do not count
// them.
//
// # A server that forgets
//
// A Redis server restarted without persistence comes back empty; one
// restarted from an older snapshot, or that evicts keys (maxmemory), lost
// some. Neither says so, and a set that kept answering would report keys
// it recorded as new. So a Redis keeps a floor of its key count: the count
// when it was opened (the sum of SCARD over the shards, which Redis
// updates atomically with each SADD) plus every key this process's SADDs
// added (their replies). Every pipeline of Add, AddBatch, Contains,
// Insert, InsertCommit and Committed ends with a GET of the identity
// record, and the call fails with a *seen.LostError (seen.ErrLost) if it
// is not the one read at open: a database flushed, a server restarted empty, one behind
// a proxy that came back empty. Whenever go-redis has connected to a
// server process it had not met since the last check (a reconnect after
// a restart, told by the server's run_id; the first connection to a
// cluster node), the call also checks that the count is not below the floor
// (one pipeline of 16384 SCARDs, 10-30 milliseconds on loopback), which
// sees a server restarted from an older snapshot. After a *seen.LostError
// every later call fails the same way. So a call whose answers came from
// a server that forgot is never returned as a success. seen.Stamp and Check
// carry the same check across processes (a checkpoint). What the checks
// cannot see: keys evicted (maxmemory) or deleted while the identity
// record stays and no connection is made, until the next reconnect or
// Check (run a shared set with maxmemory-policy noeviction); in a cluster,
// where the identity record lives on one master, a master that restarts
// empty is seen by the count, unless other writers added more keys than
// it lost in between.
//
// # Operations
//
// Add is one SADD, which Redis executes atomically: exactly one of any
// number of concurrent writers, on any machines, sees the reply 1 (new) for
// a key. AddBatch sends one SADD per key, pipelined: it answers repeats
// within the batch itself (a key's later occurrences are not new, whatever
// the server says about the first), splits the distinct keys into up to
// Options.Pipelines parts of at least 256 keys, and sends the parts as
// concurrent pipelines on separate connections, so that building one
// overlaps with the server executing another; batches longer than
// PipelineChunk keys are sent a chunk after another. With a cluster,
// go-redis further splits each pipeline by node and sends the node parts
// in parallel. Contains sends one SISMEMBER per distinct key and Insert one
// SADD per distinct key, pipelined in the same way. Len is the sum of
// SCARD over the 16384 shards (a pipeline of 16384 commands, 10-30
// milliseconds on loopback, so meant for summaries, not for every batch):
// it is exact and needs no separate counter, so there is neither a counter
// that can drift from the set after a crash nor a hot counter key on one
// node.
//
// # Retries
//
// Add and AddBatch are never retried after their commands may have reached
// the server: a replayed SADD would reply 0 for a key this very call added,
// and the key would be reported as seen by nobody. So a network error or a
// timeout in the middle of Add or AddBatch is returned (the outcome for
// those keys is unknown, as Set allows), while cluster redirections (MOVED,
// ASK, which mean the command was not executed) are followed as usual.
//
// Contains, Insert, InsertCommit and Committed are idempotent, so they
// are retried: after a transient error (a network error, a timeout, a
// closed connection, or a server reply LOADING, BUSY, TRYAGAIN,
// CLUSTERDOWN, MASTERDOWN, READONLY, NOREPLICAS or "max number of clients
// reached") the chunk of up to PipelineChunk keys that failed (or the
// HSET, the HGET) is sent again, up to Options.Retries times, so in 1 +
// Retries attempts, after waits that start at RetryBackoff and double up
// to MaxRetryBackoff. With the defaults (10 retries: 11 attempts, 50 ms
// to 2 s) the 10 waits add up to 11.15 s, so a call rides out a server
// restart or a failover of about that long. Each attempt adds its own
// time, which depends on how the server is gone: go-redis dials a
// connection up to 5 times, 100 ms apart, each dial bounded by
// DialTimeout (default 5 s), and a pipeline that gets no connection from
// its pipeline pool tries the main pool too, so
//
//   - against a host that refuses connections (the server stopped, the
//     host up), an attempt takes about 0.8 s, and none once a pool has
//     counted PoolSize (default 10 per CPU) failed dials in a row: it then
//     fails at once until a dial in the background, which it tries every
//     second, succeeds. A call fails after 11 to 20 s: 19.6 s for a first
//     call of one pipeline, 14.4 s for one of four, 11.2 s for the call
//     after it (measured on 2 CPUs, a server killed);
//   - against a host that drops packets (down, unreachable, behind a
//     firewall), an attempt takes up to 2 x 5 x DialTimeout, about 51 s
//     (measured: 50.8 s, and 25.4 s for the next call), so a call up to
//     about 9 minutes;
//   - against a server that accepts connections and does not answer (hung,
//     stopped with SIGSTOP), an attempt takes 5 to 10 s of read timeouts,
//     a call about 2 minutes (measured: 117 s and 122 s).
//
// Options.Timeout bounds each attempt (a context deadline, which also
// ends go-redis' dials): a program that must give up sooner sets it (with
// Timeout 2 s, a call fails after at most 11 x 2 s + 11.15 s, about 33 s,
// however the server is gone; measured with 2 retries: 6.15 s). After
// the last attempt the error says how many attempts were made, in how
// long, and wraps the last one's error. Other errors (WRONGTYPE, NOAUTH,
// WRONGPASS, OOM, an unknown host, a TLS certificate) are returned at
// once.
//
// # Commit records
//
// InsertCommit (seen.Committer) records a run's seen.Commit with one HSET
// of the hash Prefix + "runs", waits for the server's reply, and only
// then sends the keys, as Insert does. Redis makes several commands one
// step only for keys in one hash slot (MULTI/EXEC, a script), and a
// batch's keys span the 16384 slots, on a cluster its masters: so it is
// this order, the record acknowledged before any key is sent, that makes
// a kill at any point leave nothing of the call, the record alone, or the
// record and some of the keys, and never a key without its record. (What
// a server acknowledged it keeps as long as it keeps its writes at all:
// see "A server that forgets".) Committed is one HGET. Both end their
// pipeline with the GET of the identity record, as the other calls do.
//
// # Logging and secrets
//
// go-redis writes some events (a failed dial, a cluster reload) to
// stderr through its global logger; Open and OpenURL replace it
// (goredis.SetLogger) with one that discards everything, once, on their
// first call. Every error reports what failed in the error itself instead.
// A program that wants go-redis' own lines sets a logger of its own with
// goredis.SetLogger after opening the set. No error returned by Open,
// OpenURL or a method of Set contains a secret: Options.Password, or
// any secret of the URL (the password of its userinfo, of an addr
// option, the value of a password option; see RedactURL), as written,
// percent-decoded or encoded, or quoted: where an underlying error's text
// would (go-redis' URL parser echoes parameters, a dial error the host
// name), each is replaced by "***", and such an error wraps only
// seen.ErrClosed, seen.ErrNoParams, seen.ErrLost or seen.ErrRunID, not
// the original.
//
// A Redis is safe for concurrent use by multiple goroutines; each call uses
// its own pipelines and connections (Options.PoolSize bounds them).
//
// Each key costs the server about 80-90 bytes of memory (a 16-byte set
// member in a hash table: 82 bytes per key at 3 million keys, 92 at 300
// thousand, by INFO used_memory on Redis 7.0; BenchmarkRedisAddBatch
// reports it), against 104 for one plain Redis key per URI (SET of
// prefix+hex NX, measured the same way).
type Set struct {
	client    goredis.UniversalClient
	cluster   bool
	keys      [redisShards]string // Redis key of each shard
	paramsKey string              // Prefix + "params"
	idKey     string              // Prefix + "id"
	runsKey   string              // Prefix + "runs": the commit records
	name      string              // for messages: redis set "prefix" on host
	id        string              // the identity read at open
	floor     atomic.Int64        // keys at open plus the keys this process added
	conns     atomic.Int64        // connections to a server process not met before (OnConnect)
	checkMu   sync.Mutex          // one check at a time
	checked   atomic.Int64        // conns when the last check began
	runMu     sync.Mutex
	runIDs    map[string]bool // the run_id of each server process met
	lost      atomic.Pointer[seen.LostError]
	timeout   time.Duration
	pipelines int
	closed    atomic.Bool
	done      chan struct{} // closed by Close: ends a retry's wait

	retries           int // retries after the first attempt; 0: none
	backoff, backoffX time.Duration
	secrets           []string // the password, as given and as written: never in an error

	perShard bool // Contains sends SMISMEMBER per shard (for the benchmark)
}

// Mode selects how Open talks to its addresses.
type Mode int

const (
	// Auto: with several addresses, a Redis Cluster (the addresses
	// are seed nodes); with one address, ask the server (INFO cluster,
	// field cluster_enabled) and use a cluster client if it is a cluster
	// node, a single-server client otherwise.
	Auto Mode = iota
	// Standalone: one address, one server (or a proxy); never a
	// cluster client.
	Standalone
	// Cluster: a cluster client, the addresses are seed nodes.
	Cluster
)

// Options configures Open and OpenURL. The zero value (or
// nil) means a key prefix of "uriscan:seen:", auto-detected mode, the
// default retries of Contains and Insert, no seen.Params, and go-redis'
// defaults.
//
// With OpenURL, the URL gives the address, the mode (several hosts
// or a +cluster scheme: a cluster), and whatever it sets of the
// connection fields (user and password, DB, TLS, timeouts, pool size);
// the connection fields of Options fill in what the URL leaves
// unset. A "prefix" in the URL's query replaces Prefix.
type Options struct {
	// Prefix is prepended to every Redis key of the set: a namespace,
	// so several sets (or tests) can share one server. It must not
	// contain '{' or '}', which would change the key slots. Processes
	// that share a set use the same Prefix. Default "uriscan:seen:".
	Prefix string

	// Mode selects a single-server or a cluster client; default
	// Auto.
	Mode Mode

	// Username and Password authenticate (AUTH); DB selects a database
	// on a single server (a cluster has only database 0). With OpenURL, a
	// password in the URL wins; a URL with none takes Password, with the
	// URL's user if it names one (redis://app@host), else Username.
	// Password never appears in an error (see "Logging and secrets" on
	// Set): a program that reads it from a file or the environment, not
	// its command line, keeps it from other users.
	Username, Password string
	DB                 int

	// TLSConfig, when not nil, connects with TLS. With OpenURL it
	// needs a rediss:// URL, whose host name it verifies unless it sets
	// ServerName itself.
	TLSConfig *tls.Config

	// DialTimeout, ReadTimeout and WriteTimeout are passed to go-redis
	// (zero means its defaults: 5s, 3s, and ReadTimeout). ReadTimeout
	// applies to each reply, so to each pipeline chunk as a whole only
	// loosely.
	DialTimeout, ReadTimeout, WriteTimeout time.Duration

	// Timeout, when positive, bounds each Add, AddBatch and Len call as a
	// whole, and each attempt of a Contains, Insert, InsertCommit,
	// Committed or Check call (a context deadline, go-redis' dials
	// included; an attempt that runs out of it is retried). Zero means no
	// bound: see "Retries" on Set for how long an attempt against a server
	// that is gone may take.
	Timeout time.Duration

	// Pipelines is the number of pipelines one AddBatch, Contains or
	// Insert call sends at the same time, on as many connections, each
	// with a share of the batch (at least 256 keys each); default
	// DefaultPipelines.
	Pipelines int

	// PoolSize is the number of connections per server (zero: the
	// go-redis default of 10 per CPU).
	PoolSize int

	// Retries is how many times Contains, Insert, InsertCommit,
	// Committed and Check send a chunk (a command) again after a
	// transient error, so each makes at most 1 + Retries attempts (see
	// "Retries" on Set); zero means DefaultRetries, a negative value
	// none.
	Retries int
	// RetryBackoff is the wait before the first retry, doubled before
	// each next one up to MaxRetryBackoff; zero means
	// DefaultRetryBackoff and DefaultMaxRetryBackoff.
	RetryBackoff, MaxRetryBackoff time.Duration

	// Params says how the set's keys are made (urikey.Hasher.Params):
	// recorded with a new (empty) set and checked against the record of an
	// existing one; see seen.Params. Open refuses nil Params unless
	// AnyParams.
	Params seen.Params
	// AnyParams, with nil Params, opens the set whatever it records, and
	// records nothing in a new one: for tools that inspect a set, and for
	// keys that are not made by a hasher.
	AnyParams bool

	// Recover, with seen.Params, opens a set that holds keys but records
	// neither seen.Params nor an identity instead of refusing it with a
	// *seen.LostError: a server that lost its data (restarted without
	// persistence, flushed) and then took keys from a writer that had
	// not noticed yet. The seen.Params are recorded, and the caller is
	// expected to add back what was lost (uriscan dedup --rebuild re-adds
	// the keys of its output file).
	Recover bool
}

// DefaultPrefix is the key prefix when Options.Prefix is empty.
const DefaultPrefix = redisurl.DefaultPrefix

// DefaultPipelines is the default Options.Pipelines.
const DefaultPipelines = 4

// The defaults of Options.Retries, RetryBackoff and MaxRetryBackoff:
// waits of 50, 100, 200, 400, 800 and 1600 ms, then four of 2 s, 11.15 s
// in all.
const (
	DefaultRetries         = 10
	DefaultRetryBackoff    = 50 * time.Millisecond
	DefaultMaxRetryBackoff = 2 * time.Second
)

// PipelineChunk is the number of keys AddBatch, Contains and Insert
// send in one pipeline; longer batches are sent as several pipelines in
// order (and Contains and Insert retry them one by one).
const PipelineChunk = 8192

// redisShards is the number of shards: one per Redis Cluster hash slot.
const redisShards = 16384

// redisFormat is the "format" entry of a Redis set's seen.Params.
const redisFormat = "uriscan/seen redis v1"

// Open connects to a Redis server or Redis Cluster at addrs (host:port
// each) and returns the set stored there under opts.Prefix (see Set for
// the layout). One address means a single server unless the server says it
// is a cluster node (see Auto); several addresses mean a cluster and
// are its seed nodes. Open checks the connection with PING (and, for
// a cluster, that every slot is served) before returning. When
// opts.Params is not nil it records or checks them (see seen.Params), and fails
// with a *seen.ParamsError or an error wrapping seen.ErrNoParams. See OpenURL
// for a redis:// URL.
func Open(addrs []string, opts *Options) (*Set, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	t := redisTarget{op: "redis.Open", where: strings.Join(addrs, ","), secrets: redisurl.Forms(o.Password)}
	if len(addrs) == 0 {
		return nil, errors.New("seen: redis.Open: no address")
	}
	for i, a := range addrs {
		if a == "" {
			return nil, fmt.Errorf("seen: redis.Open %s: address %d of %d is empty", t.where, i+1, len(addrs))
		}
	}
	cluster := false
	switch o.Mode {
	case Auto:
		cluster = len(addrs) > 1
	case Standalone:
		if len(addrs) > 1 {
			return nil, fmt.Errorf("seen: redis.Open: %d addresses for a standalone server", len(addrs))
		}
	case Cluster:
		cluster = true
	default:
		return nil, fmt.Errorf("seen: redis.Open: unknown mode %d", o.Mode)
	}
	if cluster {
		if o.DB != 0 {
			return nil, fmt.Errorf("seen: redis.Open %s: a Redis Cluster has only DB 0", t.where)
		}
		t.cluster = &goredis.ClusterOptions{
			Addrs:        addrs,
			Username:     o.Username,
			Password:     o.Password,
			TLSConfig:    o.TLSConfig,
			DialTimeout:  o.DialTimeout,
			ReadTimeout:  o.ReadTimeout,
			WriteTimeout: o.WriteTimeout,
			PoolSize:     o.PoolSize,
		}
	} else {
		t.single = &goredis.Options{
			Addr:         addrs[0],
			Username:     o.Username,
			Password:     o.Password,
			DB:           o.DB,
			TLSConfig:    o.TLSConfig,
			DialTimeout:  o.DialTimeout,
			ReadTimeout:  o.ReadTimeout,
			WriteTimeout: o.WriteTimeout,
			PoolSize:     o.PoolSize,
		}
		t.detect = o.Mode == Auto
	}
	return openRedis(t, o)
}

// redisTarget is what Open and OpenURL connect to.
type redisTarget struct {
	op      string                  // "Open", "OpenURL", for messages
	where   string                  // the addresses or the redacted URL, for messages
	single  *goredis.Options        // a single server (nil: cluster)
	cluster *goredis.ClusterOptions // a cluster (nil: single)
	detect  bool                    // single, unless the server is a cluster node
	secrets []string                // never in an error
}

// silenceRedisLog replaces go-redis' global logger, which writes to
// stderr, with one that discards (see Set).
var silenceRedisLog = sync.OnceFunc(func() { goredis.SetLogger(silentRedisLogger{}) })

// silentRedisLogger implements go-redis' logging interface (internal.Logging).
type silentRedisLogger struct{}

func (silentRedisLogger) Printf(context.Context, string, ...any) {}

// openRedis opens the set described by t and o.
func openRedis(t redisTarget, o Options) (*Set, error) {
	silenceRedisLog()
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if strings.ContainsAny(o.Prefix, "{}") {
		return nil, fmt.Errorf("seen: %s %s: prefix %q contains '{' or '}'", t.op, t.where, o.Prefix)
	}
	var params seen.Params
	if o.Params == nil && !o.AnyParams {
		return nil, fmt.Errorf("seen: %s %s: %w", t.op, t.where, store.ErrNilParams)
	}
	if o.Params != nil {
		var err error
		if params, err = store.WithFormat(o.Params, redisFormat); err != nil {
			return nil, fmt.Errorf("seen: %s %s: %w", t.op, t.where, err)
		}
	}
	r := &Set{
		timeout:   o.Timeout,
		pipelines: o.Pipelines,
		done:      make(chan struct{}),
		retries:   o.Retries,
		backoff:   o.RetryBackoff,
		backoffX:  o.MaxRetryBackoff,
		paramsKey: o.Prefix + "params",
		idKey:     o.Prefix + "id",
		runsKey:   o.Prefix + "runs",
		name:      fmt.Sprintf("redis set %q on %s", o.Prefix, t.where),
	}
	onConnect := func(ctx context.Context, cn *goredis.Conn) error {
		r.connected(ctx, cn)
		return nil
	}
	for _, s := range t.secrets {
		if s != "" {
			r.secrets = append(r.secrets, s)
		}
	}
	if r.pipelines <= 0 {
		r.pipelines = DefaultPipelines
	}
	switch {
	case r.retries == 0:
		r.retries = DefaultRetries
	case r.retries < 0:
		r.retries = 0
	}
	if r.backoff <= 0 {
		r.backoff = DefaultRetryBackoff
	}
	if r.backoffX <= 0 {
		r.backoffX = DefaultMaxRetryBackoff
	}
	r.backoffX = max(r.backoffX, r.backoff)
	fail := func(format string, args ...any) (*Set, error) {
		if r.client != nil {
			r.client.Close()
		}
		return nil, r.scrub(fmt.Errorf("seen: %s %s: "+format, append([]any{t.op, t.where}, args...)...))
	}
	ctx, cancel := r.context()
	defer cancel()
	if t.single != nil {
		t.single.OnConnect = onConnect
		c := goredis.NewClient(t.single)
		cluster := false
		if t.detect {
			info, err := c.Info(ctx, "cluster").Result()
			if err != nil {
				c.Close()
				return fail("%w", err)
			}
			cluster = strings.Contains(info, "cluster_enabled:1")
		}
		if !cluster {
			r.client = c
		} else {
			c.Close()
			co, err := clusterOptions(t.single)
			if err != nil {
				return fail("the server is a cluster node: %w", err)
			}
			t.cluster = co
		}
	}
	if r.client == nil {
		r.cluster = true
		t.cluster.OnConnect = onConnect
		r.client = goredis.NewClusterClient(t.cluster)
	}
	if err := r.client.Ping(ctx).Err(); err != nil {
		return fail("%w", err)
	}
	if r.cluster {
		// A cluster client only learns the slot map lazily; fail early
		// (rather than on the first Add) if the cluster is not serving
		// every slot.
		info, err := r.client.ClusterInfo(ctx).Result()
		if err != nil {
			return fail("CLUSTER INFO: %w", err)
		}
		if !strings.Contains(info, "cluster_state:ok") {
			return fail("cluster state is not ok")
		}
	}
	tags := redisSlotTags()
	for s := range r.keys {
		r.keys[s] = o.Prefix + "{" + tags[s] + "}"
	}
	if params != nil {
		if err := r.checkParams(ctx, r.name, params, o.Recover); err != nil {
			r.client.Close()
			return nil, r.scrub(err)
		}
	}
	if err := r.openIdentity(ctx); err != nil {
		r.client.Close()
		return nil, r.scrub(err)
	}
	return r, nil
}

// openIdentity reads the set's identity, recording a new one (SET NX: of
// concurrent first openers one wins and the others read its) where there
// is none, and takes the count as the floor. Connections made so far are
// checked by this.
func (r *Set) openIdentity(ctx context.Context) error {
	conns := r.conns.Load()
	if err := r.client.SetNX(ctx, r.idKey, store.NewID(), 0).Err(); err != nil {
		return fmt.Errorf("seen: %s: recording the identity (SET %s NX): %w", r.name, r.idKey, err)
	}
	id, err := r.client.Get(ctx, r.idKey).Result()
	if err != nil {
		return fmt.Errorf("seen: %s: reading the identity (GET %s): %w", r.name, r.idKey, err)
	}
	n, err := r.count(ctx)
	if err != nil {
		return fmt.Errorf("seen: %s: counting keys: %w", r.name, err)
	}
	r.id = id
	r.floor.Store(n)
	r.checked.Store(conns)
	return nil
}

// Stamp returns the set's identity and the floor of its count: the keys
// it held when opened plus those this process added since.
func (r *Set) Stamp() seen.Stamp { return seen.Stamp{ID: r.id, Count: r.floor.Load()} }

// Check reads the set's identity and count from the server and returns a
// *seen.LostError if the set is not the one s was taken of, or holds fewer
// keys than s.Count (see "A server that forgets" on Set). It retries
// transient errors as Contains does.
func (r *Set) Check(s seen.Stamp) error {
	if r.closed.Load() {
		return seen.ErrClosed
	}
	return r.check("Check", s)
}

// check reads the identity record and the count, retrying transient
// errors, and compares them with s.
func (r *Set) check(op string, s seen.Stamp) error {
	var id string
	var n int64
	err := r.retry(op, func(ctx context.Context) error {
		var err error
		id, err = r.client.Get(ctx, r.idKey).Result()
		if errors.Is(err, goredis.Nil) {
			id, err = "", nil // no identity record
		}
		if err == nil {
			n, err = r.count(ctx)
		}
		return err
	})
	if err != nil {
		return err
	}
	return store.CheckStamp(r.name, s, id, n)
}

// connected runs on each new connection (go-redis' OnConnect) and counts
// it in r.conns when it goes to a server process not met before: its
// run_id (INFO server), random per start of redis-server, is new, or
// cannot be read. A connection to a server met before (the pool growing)
// needs no check; the first to a restarted one, or to a cluster node not
// met yet, does.
func (r *Set) connected(ctx context.Context, cn *goredis.Conn) {
	id := ""
	if info, err := cn.Info(ctx, "server").Result(); err == nil {
		for _, line := range strings.Split(info, "\n") {
			if v, ok := strings.CutPrefix(line, "run_id:"); ok {
				id = strings.TrimSpace(v)
			}
		}
	}
	r.runMu.Lock()
	defer r.runMu.Unlock()
	if id == "" || !r.runIDs[id] {
		if id != "" {
			if r.runIDs == nil {
				r.runIDs = map[string]bool{}
			}
			r.runIDs[id] = true
		}
		r.conns.Add(1)
	}
}

// checkReconnect runs after a call's commands were answered (see "A
// server that forgets" on Set). If go-redis connected to a server
// process not met before since the last check, the server may be another
// one, or the same one restarted, so the identity and the count are
// checked against what this process knows (the identity record alone is
// read by every pipeline: exec). A set found to have lost keys stays
// failed.
func (r *Set) checkReconnect() error {
	if lost := r.lost.Load(); lost != nil {
		return lost
	}
	if r.conns.Load() == r.checked.Load() {
		return nil
	}
	r.checkMu.Lock()
	defer r.checkMu.Unlock()
	conns := r.conns.Load()
	err := r.check("check after a reconnect", r.Stamp())
	if lost, ok := err.(*seen.LostError); ok {
		r.lost.Store(lost)
	}
	if err == nil {
		r.checked.Store(conns)
	}
	return err
}

// clusterOptions converts the options of a single server (from Open
// or goredis.ParseURL) into those of a cluster with that seed node.
func clusterOptions(o *goredis.Options) (*goredis.ClusterOptions, error) {
	if o.DB != 0 {
		return nil, fmt.Errorf("a Redis Cluster has only DB 0, not DB %d", o.DB)
	}
	return &goredis.ClusterOptions{
		Addrs:                   []string{o.Addr},
		ClientName:              o.ClientName,
		Protocol:                o.Protocol,
		Username:                o.Username,
		Password:                o.Password,
		MaxRetries:              o.MaxRetries,
		MinRetryBackoff:         o.MinRetryBackoff,
		MaxRetryBackoff:         o.MaxRetryBackoff,
		DialTimeout:             o.DialTimeout,
		DialerRetries:           o.DialerRetries,
		DialerRetryTimeout:      o.DialerRetryTimeout,
		ReadTimeout:             o.ReadTimeout,
		WriteTimeout:            o.WriteTimeout,
		PoolFIFO:                o.PoolFIFO,
		PoolSize:                o.PoolSize,
		PoolTimeout:             o.PoolTimeout,
		MaxConcurrentDials:      o.MaxConcurrentDials,
		MinIdleConns:            o.MinIdleConns,
		MaxIdleConns:            o.MaxIdleConns,
		MaxActiveConns:          o.MaxActiveConns,
		ConnMaxIdleTime:         o.ConnMaxIdleTime,
		ConnMaxLifetime:         o.ConnMaxLifetime,
		ConnMaxLifetimeJitter:   o.ConnMaxLifetimeJitter,
		PipelinePoolSize:        o.PipelinePoolSize,
		PipelineReadBufferSize:  o.PipelineReadBufferSize,
		PipelineWriteBufferSize: o.PipelineWriteBufferSize,
		TLSConfig:               o.TLSConfig,
	}, nil
}

// checkParams records params in an empty set that has none, and compares
// them with the record (see seen.Params). SET NX makes concurrent first openers
// agree: one records, and the others read its record back and compare.
func (r *Set) checkParams(ctx context.Context, name string, params seen.Params, recover bool) error {
	rec, err := r.client.Get(ctx, r.paramsKey).Bytes()
	if errors.Is(err, goredis.Nil) {
		n, cerr := r.count(ctx)
		if cerr != nil {
			return fmt.Errorf("seen: %s: counting keys: %w", name, cerr)
		}
		if n > 0 {
			// Keys without the records a first open writes: a set made
			// without seen.Params or by an earlier version, or one whose
			// server lost its data and then took keys from a writer
			// that had not noticed (no identity either).
			switch ids, err := r.client.Exists(ctx, r.idKey).Result(); {
			case err != nil:
				return fmt.Errorf("seen: %s: reading the identity (EXISTS %s): %w", name, r.idKey, err)
			case ids == 0 && recover:
				n = 0 // recorded below
			case ids == 0:
				return &seen.LostError{Store: name, Count: n,
					Why: fmt.Sprintf("it holds %d keys but records neither parameters nor an identity: it lost its data (a restart without persistence, a flush) and then took keys from a writer that had not noticed; rebuild it, or open it with Recover (uriscan dedup --rebuild)", n)}
			}
		}
		if n > 0 {
			// Another first opener may have recorded its parameters and
			// added keys since the GET: read them again before refusing.
			rec, err = r.client.Get(ctx, r.paramsKey).Bytes()
			if errors.Is(err, goredis.Nil) {
				return store.NoParamsError(name, n, params)
			}
			if err != nil {
				return fmt.Errorf("seen: %s: reading the parameters (GET %s): %w", name, r.paramsKey, err)
			}
			stored, err := store.DecodeParams(rec)
			if err != nil {
				return fmt.Errorf("seen: %s: %s: %w", name, r.paramsKey, err)
			}
			return store.CheckParams(name, stored, params)
		}
		if serr := r.client.SetNX(ctx, r.paramsKey, store.EncodeParams(params), 0).Err(); serr != nil {
			return fmt.Errorf("seen: %s: recording the parameters: %w", name, serr)
		}
		rec, err = r.client.Get(ctx, r.paramsKey).Bytes()
	}
	if err != nil {
		return fmt.Errorf("seen: %s: reading the parameters (GET %s): %w", name, r.paramsKey, err)
	}
	stored, err := store.DecodeParams(rec)
	if err != nil {
		return fmt.Errorf("seen: %s: %s: %w", name, r.paramsKey, err)
	}
	return store.CheckParams(name, stored, params)
}

// Cluster reports whether r talks to a Redis Cluster.
func (r *Set) Cluster() bool { return r.cluster }

// Client returns the underlying go-redis client (a *goredis.Client or a
// *goredis.ClusterClient), for inspection and administration.
func (r *Set) Client() goredis.UniversalClient { return r.client }

// ShardKey returns the Redis key of the shard that holds k.
func (r *Set) ShardKey(k seen.Key) string { return r.keys[redisShard(k)] }

func redisShard(k seen.Key) int { return int(uint16(k[0])|uint16(k[1])<<8) & (redisShards - 1) }

func (r *Set) context() (context.Context, context.CancelFunc) {
	if r.timeout > 0 {
		return context.WithTimeout(context.Background(), r.timeout)
	}
	return context.Background(), func() {}
}

// noRetryCmd is a SADD that go-redis must not send again after a network
// error or timeout: see "Retries" on Set. A pipeline that contains such
// a command is not replayed either; MOVED and ASK redirections still are.
// Insert uses it too, and InsertCommit for its HSET, and they retry whole
// pipelines themselves.
type noRetryCmd struct{ *goredis.IntCmd }

func (noRetryCmd) NoRetry() bool { return true }

func (r *Set) saddOne(ctx context.Context, k *seen.Key) noRetryCmd {
	return noRetryCmd{goredis.NewIntCmd(ctx, "sadd", r.keys[redisShard(*k)], string(k[:]))}
}

// Add records k and reports whether no process had recorded it before.
func (r *Set) Add(k seen.Key) (bool, error) {
	if r.closed.Load() {
		return false, seen.ErrClosed
	}
	ctx, cancel := r.context()
	defer cancel()
	if lost := r.lost.Load(); lost != nil {
		return false, lost
	}
	cmd := r.saddOne(ctx, &k)
	pipe := r.client.Pipeline()
	_ = pipe.Process(ctx, cmd) // only queues
	if err := r.exec(ctx, pipe); err != nil {
		return false, r.wrap(err)
	}
	r.floor.Add(cmd.Val())
	if err := r.checkReconnect(); err != nil {
		return false, err
	}
	return cmd.Val() == 1, nil
}

// AddBatch records keys with pipelined SADDs and sets isNew[i] for each;
// see Set. See Redis for how a batch is split into pipelines.
func (r *Set) AddBatch(keys []seen.Key, isNew []bool) error {
	if r.closed.Load() {
		return seen.ErrClosed
	}
	if len(isNew) < len(keys) {
		return seen.ErrShortBatch
	}
	if len(keys) == 0 {
		return nil
	}
	if lost := r.lost.Load(); lost != nil {
		return lost
	}
	ctx, cancel := r.context()
	defer cancel()
	b := redisBatchPool.Get().(*redisBatch)
	defer redisBatchPool.Put(b)
	for off := 0; off < len(keys); off += PipelineChunk {
		end := min(off+PipelineChunk, len(keys))
		if err := r.addChunk(ctx, b, keys[off:end], isNew[off:end]); err != nil {
			return r.wrap(err)
		}
	}
	return r.checkReconnect()
}

// redisBatch is the reusable scratch space of one AddBatch, Contains or
// Insert.
type redisBatch struct {
	table []int32 // open addressing: index+1 into the chunk, 0 empty
	first []int32 // chunk indexes of first occurrences, in order
	dups  []int32 // pairs (index of a repeat, index of its first occurrence)
}

var redisBatchPool = sync.Pool{New: func() any { return new(redisBatch) }}

// redisMinPart is the fewest keys worth a pipeline of their own.
const redisMinPart = 256

// addChunk adds at most PipelineChunk keys. Repeats within the chunk
// are answered here (false) and only first occurrences are sent, so the
// pipelines may run concurrently without reordering a key's occurrences.
func (r *Set) addChunk(ctx context.Context, b *redisBatch, keys []seen.Key, isNew []bool) error {
	first := b.dedup(keys)
	for j := 0; j < len(b.dups); j += 2 {
		isNew[b.dups[j]] = false
	}
	return r.inParts(first, func(part []int32) error { return r.sadd(ctx, keys, part, isNew) })
}

// inParts calls send with up to r.pipelines parts of first (at least
// redisMinPart indexes each), concurrently, and joins their errors.
func (r *Set) inParts(first []int32, send func(part []int32) error) error {
	parts := min(r.pipelines, (len(first)+redisMinPart-1)/redisMinPart)
	if parts <= 1 {
		return send(first)
	}
	var wg sync.WaitGroup
	errs := make([]error, parts)
	for p := range parts {
		part := first[p*len(first)/parts : (p+1)*len(first)/parts]
		if p == parts-1 {
			errs[p] = send(part)
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[p] = send(part)
		}()
	}
	wg.Wait()
	return joinParts(errs)
}

// partsError is the error of several pipelines: one line, with each
// distinct message once.
type partsError struct{ errs []error }

func (e *partsError) Error() string {
	var msgs []string
	for _, err := range e.errs {
		if m := err.Error(); !slices.Contains(msgs, m) {
			msgs = append(msgs, m)
		}
	}
	if len(msgs) == 1 && len(e.errs) > 1 {
		return fmt.Sprintf("%s (in %d pipelines)", msgs[0], len(e.errs))
	}
	return strings.Join(msgs, "; ")
}

func (e *partsError) Unwrap() []error { return e.errs }

// joinParts returns nil, the one error, or a *partsError.
func joinParts(errs []error) error {
	var failed []error
	for _, err := range errs {
		if err != nil {
			failed = append(failed, err)
		}
	}
	switch len(failed) {
	case 0:
		return nil
	case 1:
		return failed[0]
	}
	return &partsError{failed}
}

// dedup returns the indexes of the first occurrences of keys, in order,
// and records in b.dups each later occurrence with its first.
func (b *redisBatch) dedup(keys []seen.Key) []int32 {
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
	first, dups := b.first[:0], b.dups[:0]
	for i := range keys {
		k := &keys[i]
		// seen.Key bits are uniform (a keyed hash); any bits make a slot.
		h := (uint64(k[2]) | uint64(k[3])<<8 | uint64(k[4])<<16 | uint64(k[5])<<24 |
			uint64(k[6])<<32 | uint64(k[7])<<40) * 0x9e3779b97f4a7c15 >> 20
		for j := h & mask; ; j = (j + 1) & mask {
			if t[j] == 0 {
				t[j] = int32(i + 1)
				first = append(first, int32(i))
				break
			}
			if keys[t[j]-1] == *k {
				dups = append(dups, int32(i), t[j]-1)
				break
			}
		}
	}
	b.first, b.dups = first, dups
	return first
}

// redisArgs holds the arguments of one pipeline of single-member
// commands (SADD, SISMEMBER) on keys[i] for each i in part: the members
// are substrings of one string, and arguments are pointers (*string,
// which go-redis writes as the string), so that putting them in an
// interface allocates nothing. That makes three allocations, and leaves
// one per key, the command itself.
type redisArgs struct {
	members []string
	args    []any
}

func (r *Set) memberArgs(name string, keys []seen.Key, part []int32) redisArgs {
	n := len(part)
	var sb strings.Builder
	sb.Grow(n * len(seen.Key{}))
	for _, i := range part {
		sb.Write(keys[i][:])
	}
	blob := sb.String()
	a := redisArgs{members: make([]string, n), args: make([]any, 3*n)}
	for j, i := range part {
		a.members[j] = blob[j*len(seen.Key{}) : (j+1)*len(seen.Key{})]
		a.args[3*j], a.args[3*j+1], a.args[3*j+2] = name, &r.keys[redisShard(keys[i])], &a.members[j]
	}
	return a
}

// cmd returns the arguments of the j-th command.
func (a *redisArgs) cmd(j int) []any { return a.args[3*j : 3*j+3 : 3*j+3] }

// sadd adds keys[idx] for each idx in part with one pipeline and, unless
// isNew is nil, sets their isNew.
func (r *Set) sadd(ctx context.Context, keys []seen.Key, part []int32, isNew []bool) error {
	a := r.memberArgs("sadd", keys, part)
	cmds := make([]noRetryCmd, len(part))
	pipe := r.client.Pipeline()
	for j := range part {
		cmds[j] = noRetryCmd{goredis.NewIntCmd(ctx, a.cmd(j)...)}
		_ = pipe.Process(ctx, cmds[j]) // only queues
	}
	if err := r.exec(ctx, pipe); err != nil {
		return err
	}
	var added int64
	for j, i := range part {
		v := cmds[j].Val()
		added += v
		if isNew != nil {
			isNew[i] = v == 1
		}
	}
	r.floor.Add(added)
	return nil
}

// exec sends the pipeline with a GET of the identity record at its end
// and returns a *seen.LostError (and the set stays failed) when the record is
// not the one read at open (see "A server that forgets" on Set): on a
// single server the GET runs after the pipeline's other commands on the
// same connection, so their answers came from the set that was opened.
//
// goredis.Nil (no such key: the GET of a missing identity record, an HGET
// of a run that has none) is not an error here; any other error of any
// command is returned, so that an identity record that could not be read
// (a cluster node that failed while another answered Nil) is never taken
// for a missing one.
func (r *Set) exec(ctx context.Context, pipe goredis.Pipeliner) error {
	id := noRetryStringCmd{goredis.NewStringCmd(ctx, "get", r.idKey)}
	_ = pipe.Process(ctx, id)
	cmds, err := pipe.Exec(ctx)
	if err != nil && !errors.Is(err, goredis.Nil) {
		return err
	}
	for _, c := range cmds {
		if err := c.Err(); err != nil && !errors.Is(err, goredis.Nil) {
			return err
		}
	}
	if id.Val() == r.id {
		return nil
	}
	err = store.CheckStamp(r.name, r.Stamp(), id.Val(), -1)
	r.lost.Store(err.(*seen.LostError))
	return err
}

// noRetryStringCmd is exec's GET (and Committed's HGET), which go-redis
// must not send again on its own either: the callers retry.
type noRetryStringCmd struct{ *goredis.StringCmd }

func (noRetryStringCmd) NoRetry() bool { return true }

// noRetryBoolCmd is a SISMEMBER, SMISMEMBER that go-redis does not retry
// itself: Contains retries (see Set), and a retry of go-redis' own on
// top would multiply the attempts.
type noRetryBoolCmd struct{ *goredis.BoolCmd }

func (noRetryBoolCmd) NoRetry() bool { return true }

type noRetryBoolSliceCmd struct{ *goredis.BoolSliceCmd }

func (noRetryBoolSliceCmd) NoRetry() bool { return true }

// sismember sets has[idx] for each idx in part with one pipeline of
// SISMEMBER.
func (r *Set) sismember(ctx context.Context, keys []seen.Key, part []int32, has []bool) error {
	a := r.memberArgs("sismember", keys, part)
	cmds := make([]noRetryBoolCmd, len(part))
	pipe := r.client.Pipeline()
	for j := range part {
		cmds[j] = noRetryBoolCmd{goredis.NewBoolCmd(ctx, a.cmd(j)...)}
		_ = pipe.Process(ctx, cmds[j])
	}
	if err := r.exec(ctx, pipe); err != nil {
		return err
	}
	for j, i := range part {
		has[i] = cmds[j].Val()
	}
	return nil
}

// smismember sets has[idx] for each idx in part with one pipeline of
// SMISMEMBER, one per shard that part touches.
func (r *Set) smismember(ctx context.Context, keys []seen.Key, part []int32, has []bool) error {
	byShard := slices.Clone(part)
	slices.SortFunc(byShard, func(a, b int32) int { return cmp.Compare(redisShard(keys[a]), redisShard(keys[b])) })
	var sb strings.Builder
	sb.Grow(len(byShard) * len(seen.Key{}))
	for _, i := range byShard {
		sb.Write(keys[i][:])
	}
	blob := sb.String()
	args := make([]any, 0, len(byShard)+2*len(byShard))
	var cmds []noRetryBoolSliceCmd
	var starts []int // index into byShard of each command's first key
	pipe := r.client.Pipeline()
	for j := 0; j < len(byShard); {
		s := redisShard(keys[byShard[j]])
		start := len(args)
		args = append(args, "smismember", &r.keys[s])
		starts = append(starts, j)
		for ; j < len(byShard) && redisShard(keys[byShard[j]]) == s; j++ {
			args = append(args, blob[j*len(seen.Key{}):(j+1)*len(seen.Key{})])
		}
		c := noRetryBoolSliceCmd{goredis.NewBoolSliceCmd(ctx, args[start:len(args):len(args)]...)}
		cmds = append(cmds, c)
		_ = pipe.Process(ctx, c)
	}
	if err := r.exec(ctx, pipe); err != nil {
		return err
	}
	for c, cmd := range cmds {
		for j, v := range cmd.Val() {
			has[byShard[starts[c]+j]] = v
		}
	}
	return nil
}

// Contains sets has[i] to whether keys[i] is in the set (recorded by any
// writer), with pipelined SISMEMBERs of the distinct keys (see Set),
// and changes nothing. It retries after transient errors (see Set,
// Retries). It returns seen.ErrClosed after Close, seen.ErrShortBatch if len(has) <
// len(keys), and otherwise the error of the last attempt.
func (r *Set) Contains(keys []seen.Key, has []bool) error {
	if r.closed.Load() {
		return seen.ErrClosed
	}
	if len(has) < len(keys) {
		return seen.ErrShortBatch
	}
	if len(keys) == 0 {
		return nil
	}
	if lost := r.lost.Load(); lost != nil {
		return lost
	}
	b := redisBatchPool.Get().(*redisBatch)
	defer redisBatchPool.Put(b)
	look := r.sismember
	if r.perShard {
		look = r.smismember
	}
	for off := 0; off < len(keys); off += PipelineChunk {
		end := min(off+PipelineChunk, len(keys))
		chunk, h := keys[off:end], has[off:end]
		first := b.dedup(chunk)
		err := r.retry("Contains", func(ctx context.Context) error {
			return r.inParts(first, func(part []int32) error { return look(ctx, chunk, part, h) })
		})
		if err != nil {
			return err
		}
		for j := 0; j < len(b.dups); j += 2 {
			h[b.dups[j]] = h[b.dups[j+1]]
		}
	}
	return r.checkReconnect()
}

// Insert records keys with pipelined SADDs of the distinct keys, ignoring
// the replies (see Set); a key already recorded, by this writer or
// another, is left as it is. It retries after transient errors (see
// Set, Retries): a retried SADD of a key the failed attempt did add
// changes nothing, so a retry, or a later call with the same keys, is
// harmless. It returns seen.ErrClosed after Close and otherwise the error of
// the last attempt, after which some of the keys may be recorded.
func (r *Set) Insert(keys []seen.Key) error {
	if r.closed.Load() {
		return seen.ErrClosed
	}
	if len(keys) == 0 {
		return nil
	}
	if lost := r.lost.Load(); lost != nil {
		return lost
	}
	if err := r.insert("Insert", keys); err != nil {
		return err
	}
	return r.checkReconnect()
}

// insert is Insert's work, for op (Insert, InsertCommit), without the
// check after a reconnect.
func (r *Set) insert(op string, keys []seen.Key) error {
	b := redisBatchPool.Get().(*redisBatch)
	defer redisBatchPool.Put(b)
	for off := 0; off < len(keys); off += PipelineChunk {
		chunk := keys[off:min(off+PipelineChunk, len(keys))]
		first := b.dedup(chunk)
		err := r.retry(op, func(ctx context.Context) error {
			return r.inParts(first, func(part []int32) error { return r.sadd(ctx, chunk, part, nil) })
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// InsertCommit records c in the hash Prefix + "runs" (HSET of field c.Run
// to c.Seq in decimal, replacing what the run had), and once the server
// has acknowledged that, inserts keys as Insert does (see "Commit
// records" on Set). Each step retries after transient errors, as Insert
// does; the HSET is idempotent, so a retry of it is harmless. When it
// returns an error, c may or may not be recorded, and some of keys may be
// recorded, but none of keys without c. It returns an error wrapping
// seen.ErrRunID when c.Run is not a run identity (seen.ValidRunID), an
// error for a c.Seq below 1, and seen.ErrClosed after Close.
func (r *Set) InsertCommit(c seen.Commit, keys []seen.Key) error {
	if r.closed.Load() {
		return seen.ErrClosed
	}
	if !seen.ValidRunID(c.Run) {
		return fmt.Errorf("seen: redis: InsertCommit: run %q: %w", c.Run, seen.ErrRunID)
	}
	if c.Seq < 1 {
		return fmt.Errorf("seen: redis: InsertCommit: run %s: its Seq is %d, not a batch number (from 1)", c.Run, c.Seq)
	}
	if lost := r.lost.Load(); lost != nil {
		return lost
	}
	seq := strconv.FormatInt(c.Seq, 10)
	err := r.retry("InsertCommit", func(ctx context.Context) error {
		pipe := r.client.Pipeline()
		_ = pipe.Process(ctx, noRetryCmd{goredis.NewIntCmd(ctx, "hset", r.runsKey, c.Run, seq)})
		return r.exec(ctx, pipe)
	})
	if err != nil {
		return err
	}
	if len(keys) > 0 {
		if err := r.insert("InsertCommit", keys); err != nil {
			return err
		}
	}
	return r.checkReconnect()
}

// Committed returns the Seq that InsertCommit recorded last for run (an
// HGET of the hash Prefix + "runs"), 0 when it recorded none. It retries
// after transient errors, as Contains does. It returns an error wrapping
// seen.ErrRunID when run is not a run identity (seen.ValidRunID), and
// seen.ErrClosed after Close.
func (r *Set) Committed(run string) (int64, error) {
	if r.closed.Load() {
		return 0, seen.ErrClosed
	}
	if !seen.ValidRunID(run) {
		return 0, fmt.Errorf("seen: redis: Committed: run %q: %w", run, seen.ErrRunID)
	}
	if lost := r.lost.Load(); lost != nil {
		return 0, lost
	}
	var rec string
	err := r.retry("Committed", func(ctx context.Context) error {
		pipe := r.client.Pipeline()
		cmd := noRetryStringCmd{goredis.NewStringCmd(ctx, "hget", r.runsKey, run)}
		_ = pipe.Process(ctx, cmd)
		if err := r.exec(ctx, pipe); err != nil {
			return err
		}
		rec = cmd.Val() // "" for none (goredis.Nil)
		return nil
	})
	if err != nil {
		return 0, err
	}
	var seq int64
	if rec != "" {
		if seq, err = strconv.ParseInt(rec, 10, 64); err != nil {
			return 0, fmt.Errorf("seen: %s: the commit record of run %s (field of the hash %s) is %q, not a number", r.name, run, r.runsKey, rec)
		}
	}
	return seq, r.checkReconnect()
}

// retry runs attempt, each time with a context of its own (Timeout), until
// it succeeds, fails with an error that is not transient, or has failed
// 1 + r.retries times, waiting r.wait(n) after the n-th failure. Close
// ends the wait.
func (r *Set) retry(op string, attempt func(ctx context.Context) error) error {
	start := time.Now()
	for n := 1; ; n++ {
		if r.closed.Load() {
			return seen.ErrClosed
		}
		ctx, cancel := r.context()
		err := attempt(ctx)
		cancel()
		var lost *seen.LostError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &lost):
			return lost // says it all (from every pipeline alike)
		case r.closed.Load():
			return r.closedWhile(op, err)
		case !redisTransient(err):
			if n > 1 {
				return r.wrap(fmt.Errorf("%s: attempt %d failed with an error that is not retried: %w", op, n, err))
			}
			return r.wrap(fmt.Errorf("%s: %w", op, err))
		case n > r.retries:
			if r.retries == 0 {
				return r.wrap(fmt.Errorf("%s: %w", op, err))
			}
			return r.wrap(fmt.Errorf("%s: gave up after %d attempts in %v, the last failed: %w",
				op, n, time.Since(start).Round(time.Millisecond), err))
		}
		t := time.NewTimer(r.wait(n))
		select {
		case <-t.C:
		case <-r.done:
			t.Stop()
			return r.closedWhile(op, err)
		}
	}
}

// closedWhile is the error of a Contains or Insert whose set was closed
// while it ran; its last attempt failed with err.
func (r *Set) closedWhile(op string, err error) error {
	return r.scrub(&store.Error{
		Msg:  fmt.Sprintf("seen: redis: %s: the set was closed while retrying; the last attempt failed: %v", op, err),
		Errs: []error{seen.ErrClosed, err},
	})
}

// wait is the wait after the n-th failed attempt (n >= 1): r.backoff,
// doubled n-1 times, at most r.backoffX.
func (r *Set) wait(n int) time.Duration {
	d := r.backoff
	for i := 1; i < n && d < r.backoffX; i++ {
		d *= 2
	}
	return min(d, r.backoffX)
}

// redisTransientReplies are the prefixes of server errors that mean "not
// now" rather than "never": loading the dataset after a restart, a script
// running, a cluster resharding or failing over, a replica promoted, too
// many clients.
var redisTransientReplies = []string{
	"LOADING ", "BUSY ", "TRYAGAIN ", "CLUSTERDOWN ", "MASTERDOWN ", "READONLY ", "NOREPLICAS ",
	"max number of clients reached",
}

// redisTransient reports whether err (from go-redis, or joined from
// several pipelines) is worth retrying: a network error, a timeout, a
// connection closed by the server, a full connection pool, or one of
// redisTransientReplies. A closed client, a canceled context, an unknown
// host, TLS and authentication errors, and other server errors are not.
func redisTransient(err error) bool {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		some := false
		for _, e := range j.Unwrap() {
			if e != nil {
				if !redisTransient(e) {
					return false
				}
				some = true
			}
		}
		return some
	}
	switch {
	case errors.Is(err, goredis.ErrClosed), errors.Is(err, seen.ErrClosed), errors.Is(err, context.Canceled):
		return false
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, goredis.ErrPoolTimeout), errors.Is(err, goredis.ErrPoolExhausted),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNABORTED), errors.Is(err, syscall.EPIPE):
		return true
	}
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return !dns.IsNotFound
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	for _, p := range redisTransientReplies {
		if goredis.HasErrorPrefix(err, p) {
			return true
		}
	}
	return false
}

// Len returns the number of keys in the set, from all writers: the sum of
// SCARD over the shards. It returns -1 when that fails (for example after
// Close, or when a server is unreachable); Count reports the error.
func (r *Set) Len() int64 {
	n, err := r.Count()
	if err != nil {
		return -1
	}
	return n
}

// Count is Len with its error.
func (r *Set) Count() (int64, error) {
	if r.closed.Load() {
		return 0, seen.ErrClosed
	}
	ctx, cancel := r.context()
	defer cancel()
	n, err := r.count(ctx)
	return n, r.wrap(err)
}

func (r *Set) count(ctx context.Context) (int64, error) {
	pipe := r.client.Pipeline()
	cmds := make([]*goredis.IntCmd, redisShards)
	for s := range cmds {
		cmds[s] = pipe.SCard(ctx, r.keys[s])
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return 0, err
	}
	var n int64
	for _, c := range cmds {
		n += c.Val()
	}
	return n, nil
}

// Drop deletes the whole set from the server (UNLINK of every shard, of
// the parameter record, of the identity and of the commit records), for
// every process that
// shares it. The Redis stays open, as a new empty set with a new identity
// (other processes that had the set open find it lost). No other call on
// r may run at the same time.
func (r *Set) Drop() error {
	if r.closed.Load() {
		return seen.ErrClosed
	}
	ctx, cancel := r.context()
	defer cancel()
	pipe := r.client.Pipeline()
	for s := range r.keys {
		pipe.Unlink(ctx, r.keys[s])
	}
	pipe.Unlink(ctx, r.paramsKey)
	pipe.Unlink(ctx, r.idKey)
	pipe.Unlink(ctx, r.runsKey)
	if _, err := pipe.Exec(ctx); err != nil {
		return r.wrap(err)
	}
	r.lost.Store(nil)
	return r.wrap(r.openIdentity(ctx))
}

// Close closes the connections, and ends the wait of a Contains or Insert
// that is retrying. The set stays on the server. A second Close returns
// seen.ErrClosed.
func (r *Set) Close() error {
	if r.closed.Swap(true) {
		return seen.ErrClosed
	}
	close(r.done)
	if err := r.client.Close(); err != nil {
		return r.scrub(fmt.Errorf("seen: redis: close: %w", err))
	}
	return nil
}

// wrap maps go-redis' "client is closed" (a Close racing with an operation)
// to seen.ErrClosed, prefixes other errors, and keeps the password out.
func (r *Set) wrap(err error) error {
	var lost *seen.LostError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &lost):
		return lost
	case errors.Is(err, goredis.ErrClosed) || r.closed.Load():
		return r.scrub(fmt.Errorf("seen: redis: %w (%w)", seen.ErrClosed, err))
	default:
		return r.scrub(fmt.Errorf("seen: redis: %w", err))
	}
}

// scrub returns err, or, when its text contains one of r.secrets, an error
// with each of them replaced by "***" (redisurl.Scrub) that wraps only
// seen.ErrClosed, seen.ErrNoParams, seen.ErrLost and seen.ErrRunID (where
// err does), not err.
func (r *Set) scrub(err error) error { return scrub(err, r.secrets) }

func scrub(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	red := redisurl.Scrub(msg, secrets)
	if red == msg {
		return err
	}
	w := &store.Error{Msg: red}
	for _, e := range []error{seen.ErrClosed, seen.ErrNoParams, seen.ErrLost, seen.ErrRunID} {
		if errors.Is(err, e) {
			w.Errs = append(w.Errs, e)
		}
	}
	return w
}

// redisSlotTags returns, for each Redis Cluster hash slot s, the hash tag
// tag(s) described on Set: the decimal form of the smallest i >= 0 with
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

var (
	_ seen.Set       = (*Set)(nil)
	_ seen.Stamped   = (*Set)(nil)
	_ seen.Committer = (*Set)(nil)
)
