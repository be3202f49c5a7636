package atomicfile

import (
	"bytes"
	"errors"
	"testing"
)

// TestSeal: a sealed record unseals to what was sealed; any changed,
// dropped or added byte (but a trailing newline) is refused; a record
// written before sealing is returned as it is, unsealed.
func TestSeal(t *testing.T) {
	for _, obj := range []string{`{}`, `{"a":1}`, `{"version":3,"output_length":12345,"tally":{"lines":7}}`} {
		s := SealJSON([]byte(obj))
		if !bytes.HasPrefix(s, []byte(`{"checksum":"crc32c:`)) {
			t.Fatalf("SealJSON(%s) = %s", obj, s)
		}
		got, sealed, err := UnsealJSON(append(s, '\n'))
		if err != nil || !sealed || string(got) != obj {
			t.Fatalf("UnsealJSON(SealJSON(%s)) = %s, %v, %v", obj, got, sealed, err)
		}
		for i := range s {
			for _, c := range []byte{s[i] ^ 1, s[i] ^ 0x20, '0'} {
				if c == s[i] {
					continue
				}
				b := bytes.Clone(s)
				b[i] = c
				if got, sealed, err := UnsealJSON(b); err == nil && (sealed || string(got) == obj) {
					t.Fatalf("%s with byte %d changed to %q: accepted as %s (sealed %v)", s, i, c, got, sealed)
				}
			}
			b := append(bytes.Clone(s[:i]), s[i+1:]...)
			if _, _, err := UnsealJSON(b); err == nil && i < len(sealPrefix)+10 {
				// Dropping a byte of the checksum member leaves no
				// member to match: refused, not read as unsealed.
				t.Fatalf("%s without byte %d: accepted", s, i)
			}
		}
	}
	// Unsealed (an earlier version's): as it is.
	got, sealed, err := UnsealJSON([]byte(`{"version":2}` + "\n"))
	if err != nil || sealed || string(got) != `{"version":2}` {
		t.Fatalf("unsealed record: %s, %v, %v", got, sealed, err)
	}
	// A changed value, checksum kept: ErrSeal.
	s := SealJSON([]byte(`{"output_length":12345}`))
	b := bytes.Replace(s, []byte("12345"), []byte("12340"), 1)
	if _, _, err := UnsealJSON(b); !errors.Is(err, ErrSeal) {
		t.Fatalf("edited record: %v, want ErrSeal", err)
	}
}
