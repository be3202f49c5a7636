package pebble

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/bits-and-blooms/bloom/v3"

	"github.com/uriscan/uriscan/internal/atomicfile"
	"github.com/uriscan/uriscan/seen"
)

// The filter: a Set keeps a Bloom filter (github.com/bits-and-blooms/bloom)
// of every key in its store, in memory, so that a key the filter has not
// seen is known to be new without a look-up in Pebble: most new keys
// never touch the store. A key the filter may have is looked up.
//
// The filter holds every key the store holds, and possibly more: a
// commit's keys are added to it before the commit, so a failed commit
// leaves only false positives (a look-up more), never a key the store
// holds and the filter misses, which would be reported new twice. It is
// sized for four times the keys of the store at open (at least
// minFilterKeys), at Options.FilterRate false positives when full, and
// rebuilt four times as large from a scan of the store when it fills up.
//
// Close writes it to the file uriscan-seen.bloom, with the set's identity
// and count and a CRC-32C of the whole; Open reads it back only if both
// match the store and the checksum is right, and removes it, so the file
// exists only while the set is closed; otherwise (a process that was
// killed, a file from another copy of the set, a damaged file) Open
// rebuilds the filter from a scan of the store (about 0.1 s per million
// keys).

// filterFile is the name of the filter's file in a set's directory.
const filterFile = "uriscan-seen.bloom"

// filterMagic begins the filter's file.
const filterMagic = "uriscan seen filter v1\n"

// minFilterKeys is the smallest capacity of a filter, in keys.
const minFilterKeys = 1 << 20

// defaultFilterRate is Options.FilterRate's default.
const defaultFilterRate = 0.01

var crc32c = crc32.MakeTable(crc32.Castagnoli)

type filter struct {
	b    *bloom.BloomFilter
	keys uint64  // the keys it was sized for
	n    uint64  // the keys added (with repeats of failed commits)
	rate float64 // the false-positive rate when n == keys
}

// filterHashes is the number of bits a key sets in the filter: three
// instead of the seven that minimize the bits for a 1% rate, for 30%
// more bits (12.4 per key instead of 9.6) and less than half the cache
// misses of an add; a look-up of a new key mostly stops at its first.
const filterHashes = 3

// newFilter returns an empty filter for at least keys keys: four times
// as many (at least least: minFilterKeys, but in tests), so that a set that grows from empty
// rebuilds it about once per four-fold growth (a scan of the store each
// time: 1.33 reads of each key in all).
func newFilter(keys int64, rate float64, least uint64) *filter {
	c := max(4*uint64(max(keys, 0)), least)
	// The rate of k hashes and m bits holding n keys: (1 - e^(-kn/m))^k.
	bitsPerKey := -filterHashes / math.Log(1-math.Pow(rate, 1.0/filterHashes))
	m := uint(math.Ceil(bitsPerKey * float64(c)))
	return &filter{b: bloom.New(m, filterHashes), keys: c, rate: rate}
}

// full reports whether the filter holds the keys it was sized for.
func (f *filter) full() bool { return f.n >= f.keys }

func (f *filter) add(k *seen.Key) {
	f.b.Add(k[:])
	f.n++
}

// mayHave reports whether k may be in the store; false means it is not.
func (f *filter) mayHave(k *seen.Key) bool { return f.b.Test(k[:]) }

// bytes is the filter's size in memory.
func (f *filter) bytes() int64 { return int64(f.b.Cap() / 8) }

// write writes the filter with the set's identity and count (its file's
// content).
func (f *filter) write(w io.Writer, id string, count int64) error {
	h := crc32.New(crc32c)
	mw := io.MultiWriter(w, h)
	var head bytes.Buffer
	head.WriteString(filterMagic)
	binary.Write(&head, binary.LittleEndian, uint32(len(id)))
	head.WriteString(id)
	binary.Write(&head, binary.LittleEndian, []uint64{uint64(count), f.keys, f.n})
	binary.Write(&head, binary.LittleEndian, f.rate)
	if _, err := mw.Write(head.Bytes()); err != nil {
		return err
	}
	if _, err := f.b.WriteTo(mw); err != nil {
		return err
	}
	return binary.Write(w, binary.LittleEndian, h.Sum32())
}

// readFilter reads a filter written for the set id with count keys at
// rate from r, a file of size bytes; it returns an error, and no filter,
// for a file that is not one, is damaged (its checksum, verified before
// anything in it is believed), or was written for another set, count or
// rate.
func readFilter(r io.ReadSeeker, size int64, id string, count int64, rate float64) (*filter, error) {
	if size < int64(len(filterMagic))+4 {
		return nil, errors.New("not a filter file")
	}
	h := crc32.New(crc32c)
	if _, err := io.Copy(h, io.LimitReader(r, size-4)); err != nil {
		return nil, err
	}
	var stored uint32
	if err := binary.Read(r, binary.LittleEndian, &stored); err != nil {
		return nil, err
	}
	if stored != h.Sum32() {
		return nil, errors.New("checksum mismatch")
	}
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	br := bufio.NewReaderSize(io.LimitReader(r, size-4), 256<<10)
	magic := make([]byte, len(filterMagic))
	if _, err := io.ReadFull(br, magic); err != nil || string(magic) != filterMagic {
		return nil, errors.New("not a filter file")
	}
	var idLen uint32
	if err := binary.Read(br, binary.LittleEndian, &idLen); err != nil || idLen > 256 {
		return nil, errors.New("damaged header")
	}
	fid := make([]byte, idLen)
	var nums [3]uint64
	var frate float64
	if _, err := io.ReadFull(br, fid); err != nil {
		return nil, err
	}
	if err := binary.Read(br, binary.LittleEndian, &nums); err != nil {
		return nil, err
	}
	if err := binary.Read(br, binary.LittleEndian, &frate); err != nil {
		return nil, err
	}
	if string(fid) != id || int64(nums[0]) != count || frate != rate {
		return nil, fmt.Errorf("written for set %q with %d keys at rate %g, not this one", fid, int64(nums[0]), frate)
	}
	f := &filter{b: &bloom.BloomFilter{}, keys: nums[1], n: nums[2], rate: rate}
	if _, err := f.b.ReadFrom(br); err != nil {
		return nil, err
	}
	return f, nil
}

// loadFilter reads dir's filter file for the set id with count keys;
// nil if there is none or it does not match (see "The filter").
func loadFilter(dir, id string, count int64, rate float64) *filter {
	file, err := os.Open(filepath.Join(dir, filterFile))
	if err != nil {
		return nil
	}
	defer file.Close()
	fi, err := file.Stat()
	if err != nil {
		return nil
	}
	f, err := readFilter(file, fi.Size(), id, count, rate)
	if err != nil {
		return nil
	}
	return f
}

// saveFilter writes f to dir's filter file.
func saveFilter(dir string, f *filter, id string, count int64) error {
	return atomicfile.WriteFunc(filepath.Join(dir, filterFile), func(w io.Writer) error {
		return f.write(w, id, count)
	})
}
