package keylog

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/uriscan/uriscan/seen"
)

// The key log, keys.log, is a sequence of 16-byte units:
//
//	header   units 0 .. h-1: logMagic (24 bytes), the set's identity
//	         (32 hex digits), the length P of its seen.Params as JSON
//	         (uint32), the CRC-32C of these 60 bytes and the params
//	         (uint32); then the params, zero-padded to a whole unit.
//	records  from unit h on, one per call that added keys: a record
//	         header unit (recordTag, the number n of keys, the CRC-32C of
//	         the keys, the CRC-32C of the first 12 bytes), then the n keys,
//	         one unit each.
//
// All integers are little-endian. A key's position is its unit number,
// which the index stores in 32 bits: a log holds at most 2^32 units
// (64 GiB, about four billion keys).
const (
	logName   = "keys.log"
	unit      = len(seen.Key{})
	logMagic  = "uriscan seen key log v1\n"
	logFixed  = 64         // the header's fixed part
	recordTag = 0x31524b55 // "UKR1"
	// maxUnits is the number of units a log may hold (positions are
	// uint32; 0 is never a key's, the header is there).
	maxUnits = 1<<32 - 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeHeader returns the log header of a set with identity id (32 hex
// digits) and encoded params (nil: none).
func encodeHeader(id string, params []byte) []byte {
	h := make([]byte, logFixed+(len(params)+unit-1)/unit*unit)
	copy(h, logMagic)
	copy(h[24:56], id)
	binary.LittleEndian.PutUint32(h[56:], uint32(len(params)))
	copy(h[logFixed:], params)
	c := crc32.Update(crc32.Checksum(h[:60], castagnoli), castagnoli, params)
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
	c := crc32.Update(crc32.Checksum(data[:60], castagnoli), castagnoli, params)
	if c != binary.LittleEndian.Uint32(data[60:]) {
		return "", nil, 0, fmt.Errorf("%w: its header fails its checksum", ErrDamaged)
	}
	if p == 0 {
		params = nil
	}
	return string(data[24:56]), params, end / int64(unit), nil
}

// putRecordHeader writes the header unit of a record of the keys in
// keys (their bytes, a whole number of units) into h.
func putRecordHeader(h []byte, keys []byte) {
	binary.LittleEndian.PutUint32(h[0:], recordTag)
	binary.LittleEndian.PutUint32(h[4:], uint32(len(keys)/unit))
	binary.LittleEndian.PutUint32(h[8:], crc32.Checksum(keys, castagnoli))
	binary.LittleEndian.PutUint32(h[12:], crc32.Checksum(h[:12], castagnoli))
}

// record returns the number of keys of the valid record at unit u of
// data, or ok false if none is there (a torn write, damage, or zeros).
// With check false the keys' checksum is not verified (a log this
// process wrote or has already verified).
func record(data []byte, u int64, check bool) (n int64, ok bool) {
	off := u * int64(unit)
	if off+int64(unit) > int64(len(data)) {
		return 0, false
	}
	h := data[off : off+int64(unit)]
	if binary.LittleEndian.Uint32(h[0:]) != recordTag ||
		binary.LittleEndian.Uint32(h[12:]) != crc32.Checksum(h[:12], castagnoli) {
		return 0, false
	}
	n = int64(binary.LittleEndian.Uint32(h[4:]))
	end := off + int64(unit)*(1+n)
	if n == 0 || end > int64(len(data)) {
		return 0, false
	}
	if check && crc32.Checksum(data[off+int64(unit):end], castagnoli) != binary.LittleEndian.Uint32(h[8:]) {
		return 0, false
	}
	return n, true
}

// countKeys counts the keys the record headers from unit start on say
// they hold, up to the first that does not fit (for sizing the index;
// scanLog checks them).
func countKeys(data []byte, start int64) int64 {
	var keys int64
	for u := start; ; {
		n, ok := record(data, u, false)
		if !ok {
			return keys
		}
		keys += n
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

// scanLog checks the records of data from unit start on and calls fn (if
// not nil) with the keys of each record (their bytes) and the position of
// the first, in order. A record that fails
// its checksums ends the log if no valid record follows it (a write torn
// by a crash: the rest is reported in torn); if one does, the log is
// damaged and scanLog returns an error wrapping ErrDamaged that says where.
func scanLog(data []byte, start int64, check bool, fn func(pos uint32, keys []byte)) (scanResult, error) {
	units := int64(len(data)) / int64(unit)
	var r scanResult
	u := start
	for u < units {
		n, ok := record(data, u, check)
		if !ok {
			break
		}
		if fn != nil {
			fn(uint32(u+1), data[(u+1)*int64(unit):(u+1+n)*int64(unit)])
		}
		r.keys += n
		u += 1 + n
	}
	r.end = u
	r.torn = units - u
	// A valid record header after it (its own checksum, 2^-32 by chance,
	// and a tag) says the log went on: damage, not a torn write. (The
	// keys' checksums are not checked here: one unit at a time, the
	// search stays linear in the tail.)
	for v := u + 1; v < units; v++ {
		if _, ok := record(data, v, false); ok {
			return r, fmt.Errorf("%w: the record at byte %d of %s fails its checksum, and another follows at byte %d", ErrDamaged, u*int64(unit), logName, v*int64(unit))
		}
	}
	if int64(len(data))%int64(unit) != 0 {
		r.torn++ // a partial unit
	}
	return r, nil
}
