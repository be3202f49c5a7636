package seen

import (
	"fmt"
	"testing"
)

// BenchmarkMemoryAdd adds distinct keys (each op is one new key, its
// generation included, about 2 ns) to a set that is replaced every size
// keys, so each op is the average Add while a set fills from empty to
// size. Run with -benchtime of at least size iterations (for example
// -benchtime=10000000x) for the 1e7 cases to mean that. pre-sized sets
// never grow; growing sets start from NewMemory(0) and include the
// incremental growth.
func BenchmarkMemoryAdd(b *testing.B) {
	for _, size := range []int{1e5, 1e7} {
		for _, presized := range []bool{true, false} {
			name := fmt.Sprintf("size=%.0e/growing", float64(size))
			if presized {
				name = fmt.Sprintf("size=%.0e/presized", float64(size))
			}
			b.Run(name, func(b *testing.B) {
				hint := 0
				if presized {
					hint = size
				}
				b.ReportAllocs()
				m := NewMemory(hint)
				b.ResetTimer()
				for i := range b.N {
					if int(m.Len()) == size {
						b.StopTimer()
						m = NewMemory(hint)
						b.StartTimer()
					}
					m.Add(testKey(uint64(i)))
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
			})
		}
	}
}

// BenchmarkMemoryAddSeen adds keys that are all already in a set of size
// keys (the duplicate path).
func BenchmarkMemoryAddSeen(b *testing.B) {
	for _, size := range []int{1e5, 1e7} {
		b.Run(fmt.Sprintf("size=%.0e", float64(size)), func(b *testing.B) {
			m := NewMemory(size)
			for i := range uint64(size) {
				m.Add(testKey(i))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				m.Add(testKey(uint64(i % size)))
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

// BenchmarkMemoryAddBatch is BenchmarkMemoryAdd/presized through AddBatch,
// 256 keys per batch; ns/op is per key.
func BenchmarkMemoryAddBatch(b *testing.B) {
	const batch = 256
	for _, size := range []int{1e5, 1e7} {
		b.Run(fmt.Sprintf("size=%.0e/presized", float64(size)), func(b *testing.B) {
			keys := make([]Key, batch)
			isNew := make([]bool, batch)
			m := NewMemory(size)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i += batch {
				if int(m.Len())+batch > size {
					b.StopTimer()
					m = NewMemory(size)
					b.StartTimer()
				}
				for j := range keys {
					keys[j] = testKey(uint64(i + j))
				}
				m.AddBatch(keys, isNew)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}
