package seen

// SetRedisContainsPerShard makes r's Contains send one SMISMEMBER per
// shard instead of one SISMEMBER per key, for BenchmarkRedisContains.
func SetRedisContainsPerShard(r *Redis, on bool) { r.perShard = on }
