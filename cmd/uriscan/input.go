package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
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
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
	utf8BOM   = []byte{0xef, 0xbb, 0xbf}
)

// open opens one input; "-" is standard input. gzip and zstd are told by
// their magic numbers and decompressed, whatever the name; a UTF-8
// byte-order mark at the start (of the decompressed bytes) is skipped and
// said on standard error. The returned input's name is for messages, and
// it can be closed even when err is not nil.
func (e *env) open(file string) (input, error) {
	in, err := e.openQuiet(file)
	e.errw.WriteString(in.note)
	return in, err
}

// openQuiet is open, with the note about the input left in in.note.
func (e *env) openQuiet(file string) (in input, err error) {
	in.name, in.close = file, func() error { return nil }
	var f *os.File
	var r io.Reader
	if file == "-" {
		in.name, r = e.stdinName, e.stdin
	} else {
		f, err = os.Open(file)
		if err != nil {
			return in, err // *PathError names the file
		}
		in.close, r = f.Close, f
	}
	// The first bytes: read in place from a regular file (so that it can
	// still be seeked), peeked through a buffer otherwise.
	var head []byte
	if fi, err := statRegular(f); err == nil && fi {
		head = make([]byte, 4)
		n, _ := f.ReadAt(head, 0)
		head = head[:n]
		in.file = f
	} else {
		br := bufio.NewReaderSize(r, 64<<10)
		head, _ = br.Peek(4)
		r = br
	}
	var zclose func() error
	switch {
	case bytes.HasPrefix(head, gzipMagic):
		zr, err := gzip.NewReader(r)
		if err != nil {
			return in, &os.PathError{Op: "gunzip", Path: in.name, Err: err}
		}
		r, zclose = zr, zr.Close
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
		if err != nil {
			return in, &os.PathError{Op: "unzstd", Path: in.name, Err: err}
		}
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
		in.note = "uriscan: " + in.name + ": skipped a UTF-8 byte-order mark at its start\n"
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
