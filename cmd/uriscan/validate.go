package main

import (
	"flag"
	"strconv"
)

// setupValidate: "uriscan validate" prints the invalid lines.
func setupValidate(fs *flag.FlagSet) func(*env, []string) int {
	return func(e *env, files []string) int {
		var buf []byte // reused for every line
		return e.eachRecord(files, func(name string, s *recordScanner) {
			perr := s.ParseError()
			if perr == nil {
				return
			}
			w := e.out
			w.WriteString(name)
			w.WriteByte(':')
			w.WriteString(strconv.Itoa(s.Line()))
			w.WriteString(": offset ")
			w.WriteString(strconv.Itoa(perr.Offset))
			w.WriteString(": ")
			w.WriteString(perr.Reason())
			w.WriteString(": ")
			buf = appendEcho(buf[:0], s.Bytes(), s.Len())
			buf = append(buf, '\n')
			w.Write(buf)
		})
	}
}
