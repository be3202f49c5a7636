package keylog

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/uriscan/uriscan/seen"
)

// The key log, keys.log, is a sequence of 16-byte units:
//
//	header   units 0 .. h-1: logMagic (24 bytes), the set's identity
//	         (32 hex digits), the length P of its seen.Params as JSON
//	         (uint32), the CRC-32C of these 60 bytes and the params
//	         (uint32); then the params, zero-padded to a whole unit.
//	records  from unit h on, one per call that added keys, and one per
//	         InsertCommit: a record header unit (its tag, the number n of
//	         units after it, the CRC-32C of those n units, the CRC-32C of
//	         the header's first 12 bytes), then the n units.
//
// A record is one of two kinds, by its tag:
//
//	keys     recordTag ("UKR1"): n >= 1 keys, one unit each.
//	commit   commitTag ("UKC1"): n = 2, a seen.Commit: the run's
//	         identity as 16 bytes (its 32 hex digits decoded), its Seq
//	         (uint64, at least 1), 8 zero bytes.
//
// InsertCommit writes its commit record and the keys record of its new
// keys (if any) together, the commit record first, in one write: a write
// that a crash cuts short keeps a prefix, so a log that holds the keys
// holds the commit record too. A commit record is not a key: it takes
// units, but no position of the index, Len or Stamp counts them. The
// last commit record of a run in the log is what the set records of it.
//
// All integers are little-endian. A key's position is its unit number,
// which the index stores in 32 bits: a log holds at most 2^32 units
// (64 GiB, about four billion keys).
//
// Logs written before commit records read as before. A log with commit
// records is refused as damaged by a uriscan that does not know them (a
// record it does not recognize, then a valid one), except that a log
// whose only commit records come last, after the last keys record, loses
// them there (it drops them as a write a crash cut short).
const (
	logName   = "keys.log"
	unit      = len(seen.Key{})
	logMagic  = "uriscan seen key log v1\n"
	logFixed  = 64         // the header's fixed part
	recordTag = 0x31524b55 // "UKR1"
	commitTag = 0x31434b55 // "UKC1"
	// commitUnits is the size of a commit record: its header and 2
	// units.
	commitUnits = 3
	// maxUnits is the number of units a log may hold (positions are
	// uint32; 0 is never a key's, the header is there).
	maxUnits = 1<<32 - 1
)

// castagnoli is the CRC-32C table, made on first use (not by every
// process that links the key log: see internal/atomicfile).
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// encodeHeader returns the log header of a set with identity id (32 hex
// digits) and encoded params (nil: none).
func encodeHeader(id string, params []byte) []byte {
	h := make([]byte, logFixed+(len(params)+unit-1)/unit*unit)
	copy(h, logMagic)
	copy(h[24:56], id)
	binary.LittleEndian.PutUint32(h[56:], uint32(len(params)))
	copy(h[logFixed:], params)
	c := crc32.Update(crc32.Checksum(h[:60], castagnoli()), castagnoli(), params)
	binary.LittleEndian.PutUint32(h[60:], c)
	return h
}

// errNotLog marks a file that does not begin with a key log's header.
var errNotLog = errors.New("not a uriscan key log")

// decodeHeader reads the header at the start of data (the whole log): the
// identity, the params (nil: none) and the unit where records begin.
func decodeHeader(data []byte) (id string, params []byte, start int64, err error) {
	if len(data) < logFixed || string(data[:24]) != logMagic {
		return "", nil, 0, errNotLog
	}
	p := int64(binary.LittleEndian.Uint32(data[56:]))
	end := logFixed + (p+int64(unit)-1)/int64(unit)*int64(unit)
	if end > int64(len(data)) {
		return "", nil, 0, fmt.Errorf("%w: its header is cut short", ErrDamaged)
	}
	params = data[logFixed : logFixed+p]
	c := crc32.Update(crc32.Checksum(data[:60], castagnoli()), castagnoli(), params)
	if c != binary.LittleEndian.Uint32(data[60:]) {
		return "", nil, 0, fmt.Errorf("%w: its header fails its checksum", ErrDamaged)
	}
	if p == 0 {
		params = nil
	}
	return string(data[24:56]), params, end / int64(unit), nil
}

// putRecordHeader writes the header unit of a keys record of the keys in
// keys (their bytes, a whole number of units) into h.
func putRecordHeader(h []byte, keys []byte) {
	putHeader(h, recordTag, keys)
}

// putHeader writes the header unit of a record of kind tag whose units
// after the header are body into h.
func putHeader(h []byte, tag uint32, body []byte) {
	binary.LittleEndian.PutUint32(h[0:], tag)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(body)/unit))
	binary.LittleEndian.PutUint32(h[8:], crc32.Checksum(body, castagnoli()))
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(h[:12], castagnoli()))
}

// putCommit writes the commit record of run (32 lowercase hex digits,
// checked by the caller) and seq into b (commitUnits units).
func putCommit(b []byte, run string, seq int64) {
	body := b[unit : commitUnits*unit]
	hex.Decode(body[:16], []byte(run))
	binary.LittleEndian.PutUint64(body[16:], uint64(seq))
	clear(body[24:])
	putHeader(b[:unit], commitTag, body)
}

// decodeCommit reads the body of a commit record (2 units): the run and
// its Seq, or an error if it is not what putCommit writes.
func decodeCommit(body []byte) (run string, seq int64, err error) {
	seq = int64(binary.LittleEndian.Uint64(body[16:]))
	if seq < 1 {
		return "", 0, fmt.Errorf("its Seq is %d, not a batch number (from 1)", seq)
	}
	for _, c := range body[24:32] {
		if c != 0 {
			return "", 0, errors.New("its last 8 bytes are not zeros")
		}
	}
	return hex.EncodeToString(body[:16]), seq, nil
}

// record returns the kind (recordTag, commitTag) and the number of units
// after the header of the valid record at unit u of data, or ok false if
// none is there (a torn write, damage, or zeros). With check false the
// record's checksum is not verified (a log this process wrote or has
// already verified).
func record(data []byte, u int64, check bool) (tag uint32, n int64, ok bool) {
	off := u * int64(unit)
	if off+int64(unit) > int64(len(data)) {
		return 0, 0, false
	}
	h := data[off : off+int64(unit)]
	tag = binary.LittleEndian.Uint32(h[0:])
	if tag != recordTag && tag != commitTag ||
		binary.LittleEndian.Uint32(h[12:]) != crc32.Checksum(h[:12], castagnoli()) {
		return 0, 0, false
	}
	n = int64(binary.LittleEndian.Uint32(h[4:]))
	end := off + int64(unit)*(1+n)
	if n == 0 || tag == commitTag && n != commitUnits-1 || end > int64(len(data)) {
		return 0, 0, false
	}
	if check && crc32.Checksum(data[off+int64(unit):end], castagnoli()) != binary.LittleEndian.Uint32(h[8:]) {
		return 0, 0, false
	}
	return tag, n, true
}

// countKeys counts the keys the keys records' headers from unit start on
// say they hold, up to the first record that does not fit (for sizing the
// index; scanLog checks them).
func countKeys(data []byte, start int64) int64 {
	var keys int64
	for u := start; ; {
		tag, n, ok := record(data, u, false)
		if !ok {
			return keys
		}
		if tag == recordTag {
			keys += n
		}
		u += 1 + n
	}
}

// scanResult is what scanLog found.
type scanResult struct {
	keys int64 // keys in the valid records
	end  int64 // the unit after the last valid record
	// torn is the number of units after end: a record cut short by a
	// crash (or zeros), to be truncated.
	torn int64
}

// logRecord is a valid record that scanLog found.
type logRecord struct {
	u    int64  // the unit of its header
	tag  uint32 // recordTag or commitTag
	body []byte // the units after its header: the keys, or the commit
	// run and seq are a commit record's.
	run string
	seq int64
}

// scanLog checks the records of data from unit start on and calls fn (if
// not nil) with each, in order; an error of fn ends the scan and is
// returned. A record that fails its checksums ends the log if no valid
// record (of either kind) follows it (a write torn by a crash: the rest
// is reported in torn); if one does, the log is damaged and scanLog
// returns an error wrapping ErrDamaged that says where. So is a commit
// record whose checksums hold and whose contents are not a commit.
func scanLog(data []byte, start int64, check bool, fn func(r logRecord) error) (scanResult, error) {
	units := int64(len(data)) / int64(unit)
	var r scanResult
	u := start
	for u < units {
		tag, n, ok := record(data, u, check)
		if !ok {
			break
		}
		rec := logRecord{u: u, tag: tag, body: data[(u+1)*int64(unit) : (u+1+n)*int64(unit)]}
		if tag == commitTag {
			var err error
			if rec.run, rec.seq, err = decodeCommit(rec.body); err != nil {
				return r, fmt.Errorf("%w: the commit record at byte %d of %s is not one: %v", ErrDamaged, u*int64(unit), logName, err)
			}
		} else {
			r.keys += n
		}
		if fn != nil {
			if err := fn(rec); err != nil {
				return r, err
			}
		}
		u += 1 + n
	}
	r.end = u
	r.torn = units - u
	// A valid record header after it (its own checksum, 2^-32 by chance,
	// and a tag) says the log went on: damage, not a torn write. (The
	// records' checksums are not checked here: one unit at a time, the
	// search stays linear in the tail.)
	for v := u + 1; v < units; v++ {
		if _, _, ok := record(data, v, false); ok {
			return r, fmt.Errorf("%w: the record at byte %d of %s fails its checksum, and another follows at byte %d", ErrDamaged, u*int64(unit), logName, v*int64(unit))
		}
	}
	if int64(len(data))%int64(unit) != 0 {
		r.torn++ // a partial unit
	}
	return r, nil
}
