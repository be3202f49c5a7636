package main

import (
	"flag"
	"strconv"
)

// setupValidate: "uriscan validate" prints the invalid lines.
func setupValidate(fs *flag.FlagSet) func(*env, []string) int {
	workers := addWorkersFlag(fs)
	return func(e *env, files []string) int {
		return e.eachLine(files, *workers, func() lineFn {
			return func(k *sink, name string, s *recordScanner) {
				perr := s.ParseError()
				if perr == nil {
					return
				}
				b := k.out
				b = append(b, name...)
				b = append(b, ':')
				b = strconv.AppendInt(b, int64(s.Line()), 10)
				b = append(b, ": offset "...)
				b = strconv.AppendInt(b, int64(perr.Offset), 10)
				b = append(b, ": "...)
				b = perr.AppendReason(b)
				b = append(b, ": "...)
				b = appendEcho(b, s.Bytes(), s.Len())
				k.out = append(b, '\n')
			}
		})
	}
}
