package cli

import (
	"strconv"

	"github.com/uriscan/uriscan"
)

// validateCommand is uriscan validate.
var validateCommand = command{
	name:     "validate",
	synopsis: "[FILE...]",
	summary:  "print the invalid lines with line number, offset and reason",
	doc: `Prints nothing for a valid line; for an invalid one prints
FILE:LINE: offset N: REASON: "INPUT" on standard output (these reports are
validate's output, where the other commands write theirs on standard
error). --quiet prints nothing: the exit status says whether every line is
valid, as grep -q. --errors jsonl prints one JSON record per invalid line,
the other commands' report records.`,
	example: `uriscan validate urls.txt.gz`,
	takes:   takesLines | takesPasswords | takesGrammar | takesURI | takesVerify,
	setup:   setupValidate,
}

// setupValidate: "uriscan validate" prints the invalid lines.
func setupValidate(fs *flagSet) func(*env, []string) error {
	workers := fs.addWorkers("")
	warn := fs.Bool("warn", false, "also print each valid line that raises an RFC 3986 §7 security warning: \"NAME:LINE: warning: WARNINGS: LINE\" (the warnings as split --flags names them); they do not change the exit status")
	return func(e *env, files []string) error {
		warns := *warn // the warnings are computed only when they are shown
		// Nothing is done for a valid line unless warnings are shown.
		invalidOnly := !warns && e.sc.grammar == uriscan.RFC3986
		return statusErr(e.eachLineOf(files, *workers, invalidOnly, func() lineFn {
			return func(k *sink, name string, s *recordScanner) {
				perr := s.ParseError()
				if perr == nil {
					if !warns {
						return
					}
					if w := s.URI().Warnings(); w != 0 {
						b := k.out
						b = append(b, name...)
						b = append(b, ':')
						b = strconv.AppendInt(b, int64(s.Line()), 10)
						b = append(b, ": warning: "...)
						b = appendWarningsText(b, s.URI(), w)
						b = append(b, ": "...)
						b = strconv.AppendQuote(b, view(appendURI(nil, s.URI(), k.rep.redacts())))
						k.out = append(b, '\n')
					}
					return
				}
				if k.rep.quiet || k.rep.jsonl {
					// validate's reports are its output: --quiet leaves
					// only the exit status, --errors jsonl writes the
					// JSON records the other commands write on standard
					// error.
					k.out = k.rep.appendReport(k.out, name, s)
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
				b = appendEcho(b, s.Bytes(), s.Len(), k.rep.redacts())
				k.out = append(b, '\n')
			}
		}))
	}
}
