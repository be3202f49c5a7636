package seen

import (
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// SetRedisContainsPerShard makes r's Contains send one SMISMEMBER per
// shard instead of one SISMEMBER per key, for BenchmarkRedisContains.
func SetRedisContainsPerShard(r *Redis, on bool) { r.perShard = on }

// SetDiskStateEvery sets how often a Disk's commits refresh its state
// file (default a second), for sets opened afterwards; it returns the old
// value.
func SetDiskStateEvery(d time.Duration) time.Duration {
	old := diskStateEvery
	diskStateEvery = d
	return old
}

// SetDiskFS makes Disks opened afterwards use fs (nil: the real one).
func SetDiskFS(fs vfs.FS) { diskFS = fs }
