package main

import "flag"

// setupSplit: "uriscan split" writes one JSON object per input line.
func setupSplit(fs *flag.FlagSet) func(*env, []string) int {
	workers := addWorkersFlag(fs)
	flags := fs.Bool("flags", false, "add the RFC 3986 §7 security warnings of each valid URI: \"warnings\" (rare-ipv4, password, userinfo-like-host, host-not-utf8, mixed-script, encoded-nul, encoded-slash, encoded-backslash, encoded-dot-segment) and \"ipv4\", the address a rare IPv4 form is read as")
	return func(e *env, files []string) int {
		return e.eachLine(files, *workers, func() lineFn {
			return func(k *sink, name string, s *recordScanner) {
				if perr := s.ParseError(); perr != nil {
					k.out = appendSplitInvalid(k.out, recordFile(files, name), s.Line(), s.Bytes(), s.Len(), perr, k.rep.redacts())
					k.reportLine(name, s)
				} else {
					k.out = appendSplitValid(k.out, recordFile(files, name), s.Line(), s.URI(), k.rep.redacts())
					if *flags {
						k.out = appendWarningsJSON(k.out[:len(k.out)-1], s.URI(), s.URI().Warnings())
						k.out = append(k.out, '}')
					}
				}
				k.out = append(k.out, '\n')
			}
		})
	}
}
