package main

import "flag"

// setupSplit: "uriscan split" writes one JSON object per input line.
func setupSplit(fs *flag.FlagSet) func(*env, []string) int {
	workers := addWorkersFlag(fs)
	return func(e *env, files []string) int {
		return e.eachLine(files, *workers, func() lineFn {
			return func(k *sink, name string, s *recordScanner) {
				if perr := s.ParseError(); perr != nil {
					k.out = appendSplitInvalid(k.out, recordFile(files, name), s.Line(), s.Bytes(), s.Len(), perr)
					k.reportLine(name, s)
				} else {
					k.out = appendSplitValid(k.out, recordFile(files, name), s.Line(), s.URI())
				}
				k.out = append(k.out, '\n')
			}
		})
	}
}
