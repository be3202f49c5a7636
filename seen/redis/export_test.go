package redis

// SetContainsPerShard makes r's Contains send one SMISMEMBER per shard
// instead of one SISMEMBER per key, for BenchmarkRedisContains.
func SetContainsPerShard(r *Set, on bool) { r.perShard = on }
