package lineio

// Records is a Source of one input, name, that is no file: its lines are
// the records next returns (a message broker's, say), each followed by
// '\n', until next returns an error: io.EOF ends the input, another is a
// read error. A record that holds '\n' is more lines than one.
func Records(name string, next func() ([]byte, error)) Source {
	return records{name, next}
}

type records struct {
	name string
	next func() ([]byte, error)
}

func (r records) Len() int { return 1 }

func (r records) Open(int) (Input, error) {
	return Input{Name: r.name, R: &recordReader{next: r.next}}, nil
}

// recordReader reads records as lines.
type recordReader struct {
	next func() ([]byte, error)
	rec  []byte // what is left of the record being read
	nl   bool   // its '\n' is still to be read
	err  error
}

func (r *recordReader) Read(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		if len(r.rec) == 0 && !r.nl {
			if r.err != nil || n > 0 {
				break // (next may block: what is read goes first)
			}
			r.rec, r.err = r.next()
			r.nl = r.err == nil
			continue
		}
		m := copy(b[n:], r.rec)
		r.rec, n = r.rec[m:], n+m
		if len(r.rec) == 0 && r.nl && n < len(b) {
			b[n] = '\n'
			r.nl, n = false, n+1
		}
	}
	if n == 0 && r.err != nil {
		return 0, r.err
	}
	return n, nil
}
