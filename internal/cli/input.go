package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"

	"compress/bzip2"

	"github.com/klauspost/compress/gzip"

	"github.com/klauspost/compress/zstd"
	"github.com/uriscan/uriscan"
)

// input is one opened input: its bytes (decompressed), for messages its
// name, and how to skip to an offset when resuming.
type input struct {
	name  string
	r     io.Reader
	close func() error
	// file is the plain regular file r reads, if it is one: skip seeks it
	// (to base + the offset: base is the byte-order mark's length).
	file *os.File
	base int64
	// note is what open says on standard error about the input (a
	// skipped byte-order mark), or "".
	note string
}

// Magic numbers of the compressed formats inputs may be in (RFC 1952
// §2.3.1, RFC 8878 §3.1.1).
var (
	gzipMagic  = []byte{0x1f, 0x8b}
	zstdMagic  = []byte{0x28, 0xb5, 0x2f, 0xfd}
	bzip2Magic = []byte("BZh") // then the block size, '1' to '9', then a block's or the end's magic
	xzMagic    = []byte{0xfd, '7', 'z', 'X', 'Z', 0}

	bzip2Block = []byte{0x31, 0x41, 0x59, 0x26, 0x53, 0x59} // π: a block
	bzip2End   = []byte{0x17, 0x72, 0x45, 0x38, 0x50, 0x90} // √π: an empty stream's end
	// The byte-order mark LineScanner.SkipBOM skips; the commands skip it
	// here, before any reader (lines, text, chunks) sees the input,
	// and say so once.
	utf8BOM = []byte(uriscan.UTF8BOM)
)

// open opens one input; "-" is standard input. gzip, zstd and bzip2 are told by
// their magic numbers and decompressed, whatever the name; a UTF-8
// byte-order mark at the start (of the decompressed bytes) is skipped and
// said on standard error. With e.verifyInput a compressed input is
// verified first (see verify). The returned input's name is for messages,
// and it can be closed even when err is not nil. The caller holds e.mu
// (the input loop, eachRecord): it is released while verify waits in a
// read.
func (e *env) open(file string) (input, error) {
	in, err := e.openWith(file, &e.mu)
	e.errw.WriteString(in.note)
	return in, err
}

// openQuiet is open, with the note about the input left in in.note, for
// a caller that does not hold e.mu (the engine's reader: fileSource).
func (e *env) openQuiet(file string) (in input, err error) {
	return e.openWith(file, nil)
}

// openWith is openQuiet; mu, if not nil, is held by the caller and
// released while verify reads.
func (e *env) openWith(file string, mu *sync.Mutex) (in input, err error) {
	in.name, in.close = file, func() error { return nil }
	defer func() {
		if err != nil { // closed here: nothing of it is read
			in.close()
			in.close = func() error { return nil }
		}
	}()
	var f *os.File
	var r io.Reader
	if file == "-" {
		in.name, r = e.stdinName, e.stdin
	} else {
		f, err = os.Open(file)
		if err != nil {
			return in, e.notAFileHint(file, err) // *PathError names the file
		}
		in.close, r = f.Close, f
	}
	// The first bytes: read in place from a regular file (so that it can
	// still be seeked), peeked through a buffer otherwise.
	var head []byte
	if fi, err := statRegular(f); err == nil && fi {
		head = make([]byte, 10)
		n, _ := f.ReadAt(head, 0)
		head = head[:n]
		in.file = f
	} else {
		br := bufio.NewReaderSize(r, 64<<10)
		head, _ = br.Peek(10)
		r = br
	}
	kind := ""
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		kind = "gzip"
	case bytes.HasPrefix(head, zstdMagic):
		kind = "zstd"
	case isBzip2(head):
		kind = "bzip2"
	case bytes.HasPrefix(head, xzMagic):
		// Refused: ulikunitz/xz, the Go decoder at hand, allocates the dictionary a
		// block header asks for (up to 4 GiB), so one hostile header
		// would be unbounded memory.
		return in, fmt.Errorf("%s: xz input is not read (its decoder takes whatever dictionary size the input asks for); decompress it first: xz -dc FILE | uriscan ...", in.name)
	}
	if kind != "" && e.verifyInput {
		if r, err = verify(&in, kind, r, mu); err != nil {
			return in, err
		}
	}
	var zclose func() error
	if kind != "" {
		zr, err := newDecompressor(kind, r)
		if err != nil {
			return in, zr.openError(in.name, err)
		}
		// Its Close returns the error a Read returned already (reported
		// then): not said twice.
		r, zclose = zr, func() error { zr.Close(); return nil }
	}
	if zclose != nil {
		in.file = nil // the offsets are the decompressed stream's
		fclose := in.close
		in.close = func() error {
			err := zclose()
			if ferr := fclose(); err == nil {
				err = ferr
			}
			return err
		}
		br := bufio.NewReaderSize(r, 64<<10)
		head, _ = br.Peek(3)
		r = br
	} else if in.file == nil {
		head, _ = r.(*bufio.Reader).Peek(3)
	}
	if bytes.HasPrefix(head, utf8BOM) {
		in.note = e.rep.notice(in.name, "skipped a UTF-8 byte-order mark at its start")
		if in.file != nil {
			if _, err := in.file.Seek(int64(len(utf8BOM)), io.SeekStart); err != nil {
				return in, err
			}
			in.base = int64(len(utf8BOM))
		} else {
			r.(*bufio.Reader).Discard(len(utf8BOM))
		}
	}
	in.r = r
	return in, nil
}

func statRegular(f *os.File) (bool, error) {
	if f == nil {
		return false, os.ErrInvalid
	}
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	return fi.Mode().IsRegular(), nil
}

// skip moves the input past its first n bytes (not counting a byte-order
// mark): a seek for a plain file, reads of through (which reads in.r)
// otherwise.
func (in *input) skip(through io.Reader, n int64) error {
	if in.file != nil {
		fi, err := in.file.Stat()
		if err != nil {
			return err
		}
		if fi.Size() < in.base+n {
			return fmt.Errorf("the file has %d bytes", fi.Size()-in.base)
		}
		_, err = in.file.Seek(in.base+n, io.SeekStart)
		return err
	}
	m, err := io.CopyN(io.Discard, through, n)
	if m < n {
		if err == nil || err == io.EOF {
			return fmt.Errorf("the input has %d bytes", m)
		}
		return err
	}
	return nil
}

// decompressor is a gzip, zstd or bzip2 decompressor reading r.
type decompressor struct {
	io.Reader
	kind  string
	close func()
}

func (d decompressor) Close() { d.close() }

// openError words an error starting to decompress (a broken header) as
// before: "gunzip NAME: REASON", "unzstd NAME: REASON".
func (d decompressor) openError(name string, err error) error {
	op := map[string]string{"gzip": "gunzip", "zstd": "unzstd", "bzip2": "bunzip2"}[d.kind]
	return &os.PathError{Op: op, Path: name, Err: err}
}

// isBzip2 reports whether head, the input's first 10 bytes, begins a bzip2
// stream: "BZh", the block size '1' to '9', then a block's magic or the
// end of an empty stream (so that a text line "BZh1.example/x" is text).
func isBzip2(head []byte) bool {
	return len(head) == 10 && bytes.HasPrefix(head, bzip2Magic) && '1' <= head[3] && head[3] <= '9' &&
		(bytes.Equal(head[4:], bzip2Block) || bytes.Equal(head[4:], bzip2End))
}

// newDecompressor returns kind's decompressor of r ("gzip": every member,
// each one's CRC-32 and size checked at its end; "zstd": every frame, each
// one's checksum checked when it has one), in bounded memory.
func newDecompressor(kind string, r io.Reader) (decompressor, error) {
	d := decompressor{kind: kind, close: func() {}}
	switch kind {
	case "bzip2":
		// Each block's CRC and the stream's are checked as they end;
		// memory is the format's (at most 900 kB blocks).
		d.Reader = bzip2.NewReader(r)
		return d, nil
	}
	if kind == "gzip" {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return d, err
		}
		d.Reader, d.close = zr, func() { zr.Close() }
		return d, nil
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return d, err
	}
	d.Reader, d.close = zr, zr.Close
	return d, nil
}

// verifyError is a compressed input that failed verification: none of
// its lines was taken.
type verifyError struct {
	Name string // the input, for messages
	Kind string // gzip, zstd or bzip2
	N    int64  // decompressed bytes read before the error
	Err  error  // the decompressor's (or the read's) error
}

func (v *verifyError) Error() string {
	return fmt.Sprintf("%s: the %s input fails verification after %d decompressed bytes, and none of its lines is taken: %v", v.Name, v.Kind, v.N, v.Err)
}

func (v *verifyError) Unwrap() error { return v.Err }

// verify reads a compressed input to its end through its decompressor
// (--verify-input) before any of its lines is taken, so that a corrupt or
// truncated archive gives an error and no line: gzip checks each member's
// CRC-32 and length at its end, zstd each frame's checksum, and a stream
// cut short is an unexpected EOF. r reads the compressed bytes from the
// top (a plain file at offset 0, or a buffered stream); verify returns
// the reader to take the lines from. A plain file is read twice (the
// check through ReadAt, so r's offset stays); a stream (a pipe on
// standard input) cannot be, and is copied to a temporary file in $TMPDIR
// while it is checked, then read from there; the file is removed when the
// input is closed (at once, where the system lets an open file be
// removed: a killed run leaves nothing). Memory is the decompressor's and
// a copy buffer's, whatever the input. mu, if not nil, is released while
// a read waits (a signal can then finish the run).
//
// A file changed between the check and the read is not checked again;
// the read still ends with the decompressor's error then.
func verify(in *input, kind string, r io.Reader, mu *sync.Mutex) (io.Reader, error) {
	var src io.Reader
	var tmp *os.File
	if in.file != nil {
		src = io.NewSectionReader(in.file, 0, 1<<62)
	} else {
		var err error
		tmp, err = os.CreateTemp("", "uriscan-verify-*")
		if err != nil {
			return r, fmt.Errorf("%s: a temporary file to verify the %s input in: %w", in.name, kind, err)
		}
		removed := os.Remove(tmp.Name()) == nil // (not where it is open: at close)
		fclose := in.close
		in.close = func() error {
			tmp.Close()
			if !removed {
				os.Remove(tmp.Name())
			}
			return fclose()
		}
		src = io.TeeReader(r, &tmpWriter{f: tmp})
	}
	if mu != nil {
		src = &flushReader{r: src, mu: mu}
	}
	zr, err := newDecompressor(kind, src)
	if err != nil {
		if te := (*tmpError)(nil); errors.As(err, &te) {
			return r, te.msg(in.name, kind)
		}
		return r, zr.openError(in.name, err)
	}
	n, err := io.Copy(io.Discard, zr)
	zr.Close()
	if te := (*tmpError)(nil); errors.As(err, &te) {
		return r, te.msg(in.name, kind)
	}
	if err != nil {
		return r, &verifyError{Name: in.name, Kind: kind, N: n, Err: err}
	}
	if tmp == nil {
		return r, nil
	}
	// The decompressor read the stream to its end (the bytes after the
	// last member or frame would be an error); anything left is copied
	// all the same.
	if _, err := io.Copy(&tmpWriter{f: tmp}, r); err != nil {
		if te := (*tmpError)(nil); errors.As(err, &te) {
			return r, te.msg(in.name, kind)
		}
		return r, fmt.Errorf("%s: %w", in.name, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return r, fmt.Errorf("%s: the temporary copy to verify the %s input in: %w", in.name, kind, err)
	}
	return tmp, nil
}

// tmpWriter writes verify's temporary copy; its errors are told apart
// from the input's.
type tmpWriter struct{ f *os.File }

func (w *tmpWriter) Write(p []byte) (int, error) {
	n, err := w.f.Write(p)
	if err != nil {
		err = &tmpError{err}
	}
	return n, err
}

type tmpError struct{ err error }

func (e *tmpError) Error() string { return e.err.Error() }

func (e *tmpError) msg(name, kind string) error {
	return fmt.Errorf("%s: writing the temporary copy to verify the %s input in: %w", name, kind, e.err)
}

// notAFileHint adds to err, the error opening file, what to do when file
// is not there and is an absolute URI: the user meant a URI, not a file.
func (e *env) notAFileHint(file string, err error) error {
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if u, perr := uriscan.ParseString(file); perr != nil || !u.IsAbsolute() {
		return err
	}
	hint := "echo '" + file + "' | uriscan " + e.cmdName()
	if e.cmd != nil {
		switch e.cmd.name {
		case "validate", "split", "normalize", "resolve":
			hint = "uriscan " + e.cmd.name + " -u '" + file + "'"
		}
	}
	return fmt.Errorf("%w (a URI, not a file? to read it as a URI: %s)", err, hint)
}

// cmdName is the command being run, or "COMMAND".
func (e *env) cmdName() string {
	if e.cmd == nil {
		return "COMMAND"
	}
	return e.cmd.name
}
