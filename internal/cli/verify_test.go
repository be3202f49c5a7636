package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	kgzip "github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/lineio"
)

// compressed returns text as a gzip member or a zstd frame (with its
// checksum, as the zstd tool writes it).
func compressed(t *testing.T, kind, text string) []byte {
	t.Helper()
	var b bytes.Buffer
	var w io.WriteCloser
	var err error
	if kind == "gzip" {
		w = kgzip.NewWriter(&b)
	} else if w, err = zstd.NewWriter(&b, zstd.WithEncoderCRC(true)); err != nil {
		t.Fatal(err)
	}
	io.WriteString(w, text)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// decompressedPrefix returns what the command reads of z before the
// decompressor's error (all of it for a good stream): as open reads it,
// peeking for a byte-order mark first (klauspost's zstd decoder may report
// a frame's missing checksum once, then hand out its last block: the
// peek takes that first error).
func decompressedPrefix(kind string, z []byte) []byte {
	var r io.Reader
	if kind == "gzip" {
		zr, err := kgzip.NewReader(bytes.NewReader(z))
		if err != nil {
			return nil // a header cut short: nothing
		}
		r = zr
	} else {
		zr, err := zstd.NewReader(bytes.NewReader(z), zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil
		}
		defer zr.Close()
		r = zr
	}
	br := bufio.NewReaderSize(r, 64<<10)
	br.Peek(3)
	p, _ := io.ReadAll(br)
	return p
}

// verifyCorpus is n distinct URIs, one a line, long enough for many
// deflate blocks and zstd blocks.
func verifyCorpus(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "https://host%d.example.org/path/%d/item?id=%d&x=%x\n", i%997, i, i*7919, i*104729)
	}
	return b.String()
}

// flipMiddle returns z with one bit of its middle byte flipped: in the
// compressed payload, far from the header and the trailer.
func flipMiddle(z []byte) []byte {
	b := bytes.Clone(z)
	b[len(b)/2] ^= 0x10
	return b
}

type dedupSum struct {
	Lines, Unique, Duplicates int64
}

func readDedupSummary(t *testing.T, name string) dedupSum {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var s dedupSum
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("%s: %v: %s", name, err, b)
	}
	return s
}

// TestVerifyInputCorruptArchive: one flipped byte in the middle of a .gz
// or .zst, read from a file or a pipe: dedup --output (which verifies by
// default) writes nothing, records no key in its disk store (a second run
// over a good copy finds every line new) and exits 2 naming the input and
// the decompressor's reason; a pipe's temporary copy is removed. With
// --verify-input=false the lines before the damage are taken, as before.
func TestVerifyInputCorruptArchive(t *testing.T) {
	const n = 6000
	text := verifyCorpus(n)
	key := writeFile(t, "key.hex", strings.Repeat("a1", 32))
	for _, kind := range []string{"gzip", "zstd"} {
		good := compressed(t, kind, text)
		bad := flipMiddle(good)
		if p := decompressedPrefix(kind, bad); bytes.Equal(p, []byte(text)) {
			t.Fatalf("%s: the flip is not seen", kind)
		}
		for _, pipe := range []bool{false, true} {
			for _, verify := range []bool{true, false} {
				name := fmt.Sprintf("%s/pipe=%v/verify=%v", kind, pipe, verify)
				dir := t.TempDir()
				tmp := filepath.Join(dir, "tmp")
				os.Mkdir(tmp, 0o755)
				t.Setenv("TMPDIR", tmp)
				st, out, sum := "disk:"+filepath.Join(dir, "st"), filepath.Join(dir, "out.txt"), filepath.Join(dir, "sum.json")
				badName := filepath.Join(dir, "bad."+kind)
				os.WriteFile(badName, bad, 0o644)
				args := []string{"dedup", "-q", "--store", st, "--key-file", key, "--output", out, "--summary", sum}
				if !verify {
					args = append(args, "--verify-input=false")
				}
				var code int
				var errs string
				shown := badName
				if pipe {
					code, _, errs = cliReader(t, bytes.NewReader(bad), args...)
					shown = stdinName
				} else {
					code, _, errs = cli(t, "", append(args, badName)...)
				}
				written, _ := os.ReadFile(out)
				s := readDedupSummary(t, sum)
				if left, _ := os.ReadDir(tmp); len(left) > 0 {
					t.Errorf("%s: left in $TMPDIR: %v", name, left)
				}
				// The second run, over a good copy, to standard output.
				code2, out2, errs2 := cliReader(t, bytes.NewReader(good), "dedup", "-q", "--store", st, "--key-file", key, "--summary", sum)
				s2 := readDedupSummary(t, sum)
				if code2 != 0 || s2.Lines != n {
					t.Fatalf("%s: second run: exit %d, %+v, %s", name, code2, s2, errs2)
				}
				if verify {
					if code != 2 || !strings.Contains(errs, "uriscan: dedup: "+shown+": the "+kind+" input fails verification after ") || !strings.Contains(errs, "none of its lines is taken: ") {
						t.Errorf("%s: exit %d, stderr %q", name, code, errs)
					}
					if len(written) != 0 || s.Lines != 0 || s.Unique != 0 {
						t.Errorf("%s: %d bytes written, %+v", name, len(written), s)
					}
					if s2.Unique != n || s2.Duplicates != 0 || out2 != text {
						t.Errorf("%s: a key of the corrupt archive was recorded: the good copy has %d new lines of %d", name, s2.Unique, n)
					}
					continue
				}
				// Streamed: the lines before the damage are taken, the
				// error comes after them.
				if code != 2 || len(written) == 0 || s.Unique == 0 || s2.Duplicates == 0 {
					t.Errorf("%s: exit %d, %d bytes written, %+v, then %+v; stderr %q", name, code, len(written), s, s2, errs)
				}
			}
		}
	}
}

// TestVerifyInputTruncated: a .gz or .zst cut short at 28 points: dedup
// takes nothing of it (output and summary empty, exit 2, the reason
// said); --verify-input=false streams it as before (the whole lines
// before the cut).
func TestVerifyInputTruncated(t *testing.T) {
	const n = 3000
	text := verifyCorpus(n)
	for _, kind := range []string{"gzip", "zstd"} {
		z := compressed(t, kind, text)
		dir := t.TempDir()
		for i := 1; i <= 28; i++ {
			cut := len(z) * i / 29
			name := filepath.Join(dir, fmt.Sprintf("cut%d.%s", cut, kind))
			os.WriteFile(name, z[:cut], 0o644)
			prefix := decompressedPrefix(kind, z[:cut])
			whole := bytes.LastIndexByte(prefix, '\n') + 1
			for _, verify := range []bool{true, false} {
				out := filepath.Join(dir, fmt.Sprintf("out-%d-%v", cut, verify))
				sum := out + ".json"
				code, _, errs := cli(t, "", "dedup", "-q", "--output", out, "--summary", sum, "--verify-input="+strconv.FormatBool(verify), name)
				written, _ := os.ReadFile(out)
				s := readDedupSummary(t, sum)
				switch {
				case verify && (code != 2 || len(written) != 0 || s.Lines != 0 || !strings.Contains(errs, name+": ")):
					t.Errorf("%s cut at %d: exit %d, %d bytes written, %+v, stderr %q", kind, cut, code, len(written), s, errs)
				case !verify && (code != 2 || string(written) != string(prefix[:whole])):
					t.Errorf("%s cut at %d, streamed: exit %d, %d bytes written, want the %d of the whole lines before the cut; stderr %q", kind, cut, code, len(written), whole, errs)
				}
			}
		}
	}
}

// TestVerifyInputLineCommands: the line commands and extract stream by
// default (the lines before the damage, then exit 2) and, with
// --verify-input, take nothing of a corrupt archive, file or pipe.
func TestVerifyInputLineCommands(t *testing.T) {
	text := verifyCorpus(4000)
	for _, kind := range []string{"gzip", "zstd"} {
		bad := flipMiddle(compressed(t, kind, text))
		name := writeFile(t, "bad."+kind, string(bad))
		for _, c := range [][]string{{"validate"}, {"split"}, {"normalize"}, {"resolve", "--base", "http://a/"}, {"extract"}} {
			what := kind + " " + c[0]
			code, out, _ := cli(t, "", append(c, name)...)
			if code != 2 || (c[0] != "validate" && out == "") {
				t.Errorf("%s streamed: exit %d, %d bytes out", what, code, len(out))
			}
			code, out, errs := cli(t, "", append(c, "--verify-input", name)...)
			if code != 2 || out != "" || !strings.Contains(errs, name+": the "+kind+" input fails verification") {
				t.Errorf("%s --verify-input: exit %d, %d bytes out, stderr %q", what, code, len(out), errs)
			}
			code, out, errs = cliReader(t, bytes.NewReader(bad), append(c, "--verify-input")...)
			if code != 2 || out != "" || !strings.Contains(errs, "<stdin>: the "+kind+" input fails verification") {
				t.Errorf("%s --verify-input, a pipe: exit %d, %d bytes out, stderr %q", what, code, len(out), errs)
			}
		}
		// A good archive is read whole after its check, from a file or a
		// pipe (its temporary copy), the same as without it.
		good := compressed(t, kind, text)
		gname := writeFile(t, "good."+kind, string(good))
		_, want, _ := cli(t, "", "normalize", "--verify-input=false", gname)
		for _, pipe := range []bool{false, true} {
			var code int
			var out, errs string
			if pipe {
				code, out, errs = cliReader(t, bytes.NewReader(good), "normalize", "--verify-input")
			} else {
				code, out, errs = cli(t, "", "normalize", "--verify-input", gname)
			}
			if code != 0 || out != want || len(want) < len(text) {
				t.Errorf("%s good archive, pipe=%v: exit %d, %d bytes out of %d, stderr %q", kind, pipe, code, len(out), len(want), errs)
			}
		}
	}
}

// TestVerifyInputResume: dedup --output stopped in the middle of a .gz
// resumes with verification on (the input re-opened, checked, skipped to
// the checkpoint's offset) to the uninterrupted output; an archive that
// went corrupt meanwhile adds nothing, and a rerun over the good one still
// completes it.
func TestVerifyInputResume(t *testing.T) {
	var b strings.Builder
	for i := range 1000 {
		if i == 500 {
			b.WriteString("http://a b/\n") // --max-errors 1 stops here
			continue
		}
		fmt.Fprintf(&b, "http://h%d.example/p%d\n", i%700, i)
	}
	for _, kind := range []string{"gzip", "zstd"} {
		dir := t.TempDir()
		good := compressed(t, kind, b.String())
		in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out.txt")
		os.WriteFile(in, good, 0o644)
		_, want, _ := cli(t, "", "dedup", "-q", in)
		code, _, errs := cli(t, "", "dedup", "-q", "--output", out, "--batch", "64", "--max-errors", "1", in)
		got, _ := os.ReadFile(out)
		if code != 1 || len(got) == 0 || len(got) >= len(want) {
			t.Fatalf("%s: first run: exit %d, %d of %d bytes, stderr %q", kind, code, len(got), len(want), errs)
		}
		// Corrupt after the checkpoint: nothing more is written.
		os.WriteFile(in, flipMiddle(good), 0o644)
		code, _, errs = cli(t, "", "dedup", "-q", "--output", out, "--batch", "64", in)
		if got2, _ := os.ReadFile(out); code != 2 || !bytes.Equal(got2, got) || !strings.Contains(errs, "fails verification") {
			t.Errorf("%s: resumed on a corrupt archive: exit %d, %d bytes (%d before), stderr %q", kind, code, len(got2), len(got), errs)
		}
		os.WriteFile(in, good, 0o644)
		code, _, errs = cli(t, "", "dedup", "-q", "--output", out, "--batch", "64", in)
		if got, _ = os.ReadFile(out); code != 1 || string(got) != want || !strings.Contains(errs, "resumed from") {
			t.Errorf("%s: resumed: exit %d, %d of %d bytes, stderr %q", kind, code, len(got), len(want), errs)
		}
	}
}

// extractRecord is one URI as extract reports it: its offset and bytes.
type extractRecord struct {
	off  int64
	text string
}

// parseExtract reads extract's output in a format into records (text:
// offsets -1, not written).
func parseExtract(t *testing.T, format, out string) []extractRecord {
	t.Helper()
	var rs []extractRecord
	for _, l := range lines(out) {
		switch format {
		case "text":
			rs = append(rs, extractRecord{-1, l})
		case "jsonl":
			var m struct {
				Offset int64
				URI    string
				Valid  bool
			}
			if err := json.Unmarshal([]byte(l), &m); err != nil || !m.Valid {
				t.Fatalf("%q: %v", l, err)
			}
			rs = append(rs, extractRecord{m.Offset, m.URI})
		case "tsv":
			f := strings.Split(l, "\t") // line, offset, URI (one input)
			off, err := strconv.ParseInt(f[1], 10, 64)
			if len(f) != 3 || err != nil {
				t.Fatalf("%q", l)
			}
			rs = append(rs, extractRecord{off, f[2]})
		}
	}
	return rs
}

// TestExtractTruncatedLastLine: extract over a .gz or .zst cut at every
// byte reports exactly the URIs of the whole text that end at or before
// the last byte read that no URI holds: a URI whose bytes run to the cut
// ("https://host1.exa") is never taken, in text, jsonl or tsv; the cut
// line is reported with its number (exit 2). dedup --extract, which
// reads lines, takes only the whole lines' URIs.
func TestExtractTruncatedLastLine(t *testing.T) {
	var b strings.Builder
	for i := range 20 {
		fmt.Fprintf(&b, "GET <https://h%d.example/a/%d> from http://ref%d.example.org/p?q=%d, then https://x%d.example/(b)\n", i%7, i*31, i, i*i, i)
	}
	text := b.String()
	var x uriscan.Extractor
	full := x.Append(nil, []byte(text))
	for _, kind := range []string{"gzip", "zstd"} {
		z := compressed(t, kind, text)
		dir := t.TempDir()
		for cut := len(zstdMagic); cut < len(z); cut++ { // (shorter: no magic number, plain text)
			name := filepath.Join(dir, "cut."+kind)
			os.WriteFile(name, z[:cut], 0o644)
			p := decompressedPrefix(kind, z[:cut])
			if len(p) == len(text) {
				continue // the trailer is cut: the text is whole (exit 2 all the same)
			}
			// What may be taken: the URIs that end at or before the last
			// byte read that no URI holds.
			settled := int64(lineio.LastNonURIByte(p))
			var want []extractRecord
			for _, m := range full {
				if m.End <= settled {
					// "offset" is in the line.
					col := m.Start - int64(strings.LastIndexByte(text[:m.Start], '\n')) - 1
					want = append(want, extractRecord{col, text[m.Start:m.End]})
				}
			}
			for _, format := range []string{"text", "jsonl", "tsv"} {
				sum := filepath.Join(dir, "sum.json")
				code, out, errs := cli(t, "", "extract", "--format", format, "--workers", "1", "--summary", sum, name)
				var s extractSummary
				if b, err := os.ReadFile(sum); err != nil || json.Unmarshal(b, &s) != nil || s.Bytes != int64(len(p)) {
					t.Fatalf("%s cut at %d: the command read %d bytes, the test %d (%v)", kind, cut, s.Bytes, len(p), err)
				}
				got := parseExtract(t, format, out)
				bad := code != 2 || len(got) != len(want)
				for i := 0; !bad && i < len(got); i++ {
					bad = got[i].text != want[i].text || format != "text" && got[i].off != want[i].off
				}
				if bad {
					t.Fatalf("%s cut at %d of %d (%d bytes read), --format %s: exit %d, %d URIs, want %d (got %v, want %v); stderr %q",
						kind, cut, len(z), len(p), format, code, len(got), len(want), got, want, errs)
				}
				if len(p) > 0 && p[len(p)-1] != '\n' {
					line := bytes.Count(p, []byte("\n")) + 1
					if msg := fmt.Sprintf("%s:%d: the last line was cut short by a read error at byte %d of the input, and is taken only up to byte %d", name, line, len(p), settled+1); !strings.Contains(errs, msg) {
						t.Fatalf("%s cut at %d: stderr %q, want %q", kind, cut, errs, msg)
					}
				}
			}
			if cut%7 == 0 {
				code, out, _ := cli(t, "", "dedup", "--extract", "--verify-input=false", "-q", name)
				whole := int64(bytes.LastIndexByte(p, '\n'))
				var want []string
				for _, m := range full {
					if m.End <= whole {
						want = append(want, text[m.Start:m.End])
					}
				}
				if got := lines(out); code != 2 || strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("dedup --extract, %s cut at %d: exit %d, %d URIs, want %d", kind, cut, code, len(got), len(want))
				}
			}
		}
	}
}
