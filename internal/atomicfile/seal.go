package atomicfile

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"sync"
)

// A sealed record is a JSON object whose first member is the CRC-32C
// (Castagnoli) of the object without that member:
//
//	{"checksum":"crc32c:1a2b3c4d","version":3,...}
//
// is sealed when 1a2b3c4d is the CRC-32C of {"version":3,...}. So a record
// that bit rot or an edit changed is told from the one that was written.
const sealPrefix = `{"checksum":"crc32c:`

// castagnoli is the CRC-32C table, made on first use: making it costs a
// tenth of a millisecond, which a process that seals nothing does not pay.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// ErrSeal is wrapped by UnsealJSON's error for a record whose checksum
// does not match.
var ErrSeal = errors.New("its checksum does not match its contents (the file was damaged or edited)")

// SealJSON returns the JSON object obj (as json.Marshal writes it, "{"
// first) with its checksum as the first member.
func SealJSON(obj []byte) []byte {
	if len(obj) < 2 || obj[0] != '{' {
		panic("atomicfile: SealJSON of something that is not a JSON object")
	}
	sum := crc32.Checksum(obj, castagnoli())
	out := make([]byte, 0, len(obj)+len(sealPrefix)+12)
	out = append(out, sealPrefix...)
	out = fmt.Appendf(out, "%08x\"", sum)
	if obj[1] != '}' {
		out = append(out, ',')
	}
	return append(out, obj[1:]...)
}

// UnsealJSON checks a sealed record and returns the object without its
// checksum. A record with no checksum member first (written before
// records were sealed) is returned as it is, with sealed false; one whose
// checksum does not match is an error wrapping ErrSeal.
func UnsealJSON(b []byte) (obj []byte, sealed bool, err error) {
	b = bytes.TrimRight(b, "\n")
	if !bytes.HasPrefix(b, []byte(sealPrefix)) {
		if bytes.Contains(b[:min(len(b), 16)], []byte("checksum")) || bytes.Contains(b[:min(len(b), 24)], []byte("crc32c")) {
			return nil, false, fmt.Errorf("%w: its checksum member is not crc32c:XXXXXXXX", ErrSeal)
		}
		return b, false, nil
	}
	rest := b[len(sealPrefix):]
	if len(rest) < 10 || rest[8] != '"' || rest[9] != ',' && rest[9] != '}' {
		return nil, false, fmt.Errorf("%w: its checksum member is not crc32c:XXXXXXXX", ErrSeal)
	}
	var want [4]byte
	if _, err := hex.Decode(want[:], rest[:8]); err != nil {
		return nil, false, fmt.Errorf("%w: its checksum %q is not 8 hex digits", ErrSeal, rest[:8])
	}
	if rest[9] == ',' {
		obj = append([]byte{'{'}, rest[10:]...)
	} else {
		obj = append([]byte{'{'}, rest[9:]...)
	}
	got := crc32.Checksum(obj, castagnoli())
	if fmt.Sprintf("%08x", got) != string(rest[:8]) {
		return nil, false, ErrSeal
	}
	return obj, true, nil
}
