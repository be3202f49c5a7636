package main

import "flag"

// setupSplit: "uriscan split" writes one JSON object per input line.
func setupSplit(fs *flag.FlagSet) func(*env, []string) int {
	return func(e *env, files []string) int {
		var buf []byte // reused for every line
		return e.eachRecord(files, func(name string, s *recordScanner) {
			if perr := s.ParseError(); perr != nil {
				buf = appendSplitInvalid(buf[:0], s.Line(), s.Bytes(), s.Len(), perr)
				e.reportLine(name, s)
			} else {
				buf = appendSplitValid(buf[:0], s.Line(), s.URI())
			}
			buf = append(buf, '\n')
			e.out.Write(buf)
		})
	}
}
