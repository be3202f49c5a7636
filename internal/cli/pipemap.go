package cli

import (
	"bytes"
	"io"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/uriscan/uriscan"
)

// dropEvery is how many bytes of a mapped input are read between two
// calls of dropPages on what was read: resident memory stays within that
// and the chunks in flight. Not per chunk: each call interrupts the other
// CPUs (a TLB shootdown), which measured 15% of the workers' time.
const dropEvery = 4 << 20

// dropWritten drops the pages of the mapped input before the end of c,
// every dropEvery bytes.
func (p *pipeline) dropWritten(c *chunk) {
	if c.mapped == nil {
		return
	}
	if unsafe.SliceData(c.mapped) != unsafe.SliceData(p.dropMap) {
		p.dropMap, p.dropFrom = c.mapped, 0
	}
	end := int(uintptr(unsafe.Pointer(unsafe.SliceData(c.data)))-uintptr(unsafe.Pointer(unsafe.SliceData(c.mapped)))) + len(c.data)
	if end-p.dropFrom >= dropEvery {
		p.dropFrom = dropPages(c.mapped, p.dropFrom, end)
	}
}

// mappedFault reports whether r, recovered from a panic, is a fault
// reading m (with SetPanicOnFault the runtime's error has the address).
func mappedFault(r any, m []byte) bool {
	err, ok := r.(interface{ Addr() uintptr })
	if !ok || len(m) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	return err.Addr() >= start && err.Addr()-start < uintptr(len(m))
}

// mapInput maps a plain regular file's bytes (after a byte-order mark,
// from the reader's offset: see readInput) for readMapped, or returns nil: standard input, pipes, compressed input,
// an empty file, a system that cannot map it, and (see mapInputs) a run
// with a CPU to spare are read.
func (p *pipeline) mapInput(in *input) ([]byte, error) {
	switch {
	case in.file == nil || p.mapInputs == mapNever:
		return nil, nil
	case p.mapInputs == mapAuto && p.workers < runtime.GOMAXPROCS(0):
		// A CPU to spare: read(2) copies the file on it while the
		// workers scan, which measured faster than faulting the pages
		// in from the workers (validate: 86 ms against 103 on 140 MB).
		return nil, nil
	}
	fi, err := in.file.Stat()
	from := in.base + p.off
	if err != nil || fi.Size() <= from || fi.Size() != int64(int(fi.Size())) {
		return nil, err
	}
	m, err := mapFile(in.file, fi.Size())
	if err != nil {
		return nil, err
	}
	p.mapped = m
	if p.afterMap != nil {
		p.afterMap(in.file)
	}
	return m[from:], nil
}

// When plain files are mapped (tuning.mapInputs).
const (
	mapAuto = iota
	mapAlways
	mapNever
)

// window is the length of a chunk's buffer: for extract exactly
// uriscan.DefaultBufferSize, so that a run of URI bytes too long for it is
// cut where uriscan.ExtractScanner cuts it; for the line commands twice
// chunkSize (grown for a long line). target is how many bytes a chunk
// holds.
func (p *pipeline) window() (window, target int) {
	if p.extract {
		return uriscan.DefaultBufferSize, min(p.chunkSize, uriscan.DefaultBufferSize/2)
	}
	return 2 * p.chunkSize, p.chunkSize
}

// readMapped cuts a mapped input into chunks, starting with c: as read
// does, without copying: a chunk's data is a slice of the mapping. A line
// over the limit goes to a worker whole (it is in memory already; the
// worker's scanner keeps its first bytes). For extract, a run of URI
// bytes that fills a window keeps only its end, as read and
// uriscan.ExtractScanner do. False if the run is quitting.
func (p *pipeline) readMapped(c *chunk, data []byte) (ok bool) {
	defer func() {
		// A fault here: the file shrank under the reader.
		if r := recover(); r != nil {
			if !mappedFault(r, p.mapped) {
				panic(r)
			}
			c.data = nil
			c.k.ioError(c.name + ": the file changed while it was read (it is mapped, and shrank)")
			c.k.inputErr = true
			p.sendDone(c)
			ok = true
		}
	}()
	debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(false)
	name := c.name
	window, target := p.window()
	if p.extract {
		target = window // the cuts need no room to read into here
	}
	// Offsets in the whole mapping, whose pages are aligned, are base+pos.
	base := len(p.mapped) - len(data)
	skipFrom := -1 // where the pages of a run being skipped are kept from
	inRun := false // a run being skipped was reported (see skipRun)
	pos := 0
	for pos < len(data) {
		if p.stopping() {
			return false
		}
		rest := data[pos:]
		var cut int
		switch {
		case len(rest) <= target:
			cut = len(rest)
		case bytes.LastIndexByte(rest[:target], '\n') >= 0:
			cut = bytes.LastIndexByte(rest[:target], '\n') + 1
		case !p.extract:
			// A line longer than a chunk: the chunk ends with it, unless
			// it is over the limit: then the reader's streaming scanner
			// reads past it, dropping the pages behind it.
			j := -1 // where the line ends, within the limit
			if hi := min(len(rest), p.maxLine+2); hi > target {
				j = bytes.IndexByte(rest[target:hi], '\n')
			}
			if j >= 0 || len(rest) <= p.maxLine+1 {
				if cut = target + j + 1; j < 0 {
					cut = len(rest)
				}
				break
			}
			d := &dropReader{m: p.mapped, pos: base + pos, dropped: base + pos}
			next, have, ok := p.longLine(c, 0, d)
			switch {
			case !ok:
				return false
			case have < 0:
				return true // the input ended with the line (c is freed)
			}
			c, pos = next, d.pos-base-have // have: read past the line's end
			continue
		default:
			w := rest[:min(window, len(rest))]
			if i := bytes.LastIndexByte(w, '\n'); i >= 0 {
				cut = i + 1
			} else if i := lastNonURIByte(w); i >= 0 {
				cut = i + 1
			} else if len(w) < window {
				cut = len(rest) // a run to the end of the input
			} else {
				drop := window - uriscan.MaxExtractLength // keep the run's end
				if !inRun {
					p.skipRun(c, w)
					inRun = true
				}
				if skipFrom < 0 {
					skipFrom = base + pos
				}
				pos += drop
				p.advance(int64(drop))
				// What it skips is not read again: its pages go, every
				// dropEvery bytes (no chunk is written meanwhile to
				// drop them: see dropWritten), so that a run of any
				// length keeps at most that much resident.
				if base+pos-skipFrom >= dropEvery {
					skipFrom = dropPages(p.mapped, skipFrom, base+pos)
				}
				continue
			}
		}
		c.mapped = p.mapped // the whole mapping, for guard and dropWritten
		c.before = 0
		if pos > 0 {
			c.before = data[pos-1]
		}
		p.send(c, rest[:cut:cut])
		pos += cut
		skipFrom, inRun = -1, false
		if c = p.get(); c == nil {
			return false
		}
		c.name = name
	}
	if len(c.k.err) > 0 {
		p.sendDone(c) // a note, and no bytes
	} else {
		p.free <- c
	}
	return true
}

// dropReader reads a mapping from pos, dropping the pages it has read
// (for a line over the limit: the process's memory does not grow with it).
type dropReader struct {
	m       []byte
	pos     int
	dropped int // where the pages were dropped up to
}

func (d *dropReader) Read(b []byte) (int, error) {
	if d.pos >= len(d.m) {
		return 0, io.EOF
	}
	// A megabyte at a time, copied out, then its pages dropped.
	n := copy(b[:min(len(b), 1<<20)], d.m[d.pos:])
	d.pos += n
	d.dropped = dropPages(d.m, d.dropped, d.pos)
	return n, nil
}
