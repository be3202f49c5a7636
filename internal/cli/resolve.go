package cli

import (
	"strconv"

	"github.com/uriscan/uriscan"
)

// resolveCommand is uriscan resolve.
var resolveCommand = command{
	name:     "resolve",
	synopsis: "--base URI [--non-strict] [FILE...]",
	summary:  "resolve each reference against a base URI (RFC 3986 §5.2)",
	doc: `Writes each reference resolved against the base URI (strict RFC 3986
§5.2), one output line per input line. An invalid line gives an empty output
line, and its position and reason go to standard error.`,
	example: `printf '../g\n?y\n#s\n' | uriscan resolve --base 'http://a/b/c/d;p?q'`,
	takes:   takesLines | takesPasswords | takesGrammar | takesURI | takesVerify,
	setup:   setupResolve,
}

// setupResolve: "uriscan resolve --base URI" resolves each line against
// the base (RFC 3986 §5.2).
func setupResolve(fs *flagSet) func(*env, []string) error {
	base := fs.String("base", "", "the absolute `URI` to resolve against (required)")
	workers := fs.addWorkers("")
	nonStrict := fs.Bool("non-strict", false, "treat a reference with the base's scheme as relative (RFC 3986 §5.2.2, for RFC 1630 compatibility)")
	return func(e *env, files []string) error {
		if !fs.given("base") {
			return usageErr("resolve: --base is required", e.cmd)
		}
		b, err := e.sc.grammar.ParseString(*base)
		if err != nil {
			msg := "resolve: --base " + strconv.Quote(shownArg(*base, e.rep.redacts())) + " is not a URI"
			if perr, ok := err.(*uriscan.Error); ok {
				msg += ": offset " + strconv.Itoa(perr.Offset) + ": " + perr.Reason()
			}
			return usageErr(msg, e.cmd)
		}
		if !b.IsAbsolute() {
			return usageErr("resolve: --base "+strconv.Quote(shownArg(*base, e.rep.redacts()))+" is not absolute: it needs a scheme (RFC 3986 §5.2.1)", e.cmd)
		}
		var flags uriscan.ResolveFlags
		if *nonStrict && e.sc.grammar == uriscan.RFC2396 {
			return usageErr("resolve: --non-strict is RFC 3986's (§5.2.2); RFC 2396 §5.2 has no such choice", e.cmd)
		}
		if *nonStrict {
			flags |= uriscan.NonStrict
		}
		return statusErr(e.eachLine(files, *workers, func() lineFn {
			return func(k *sink, name string, s *recordScanner) {
				if s.ParseError() != nil {
					k.reportLine(name, s)
				} else if out, err := resolveWith(e.sc.grammar, k.out, &b, s.URI(), flags); err != nil {
					// Not expected: the base was checked above.
					k.ioError(name + ":" + strconv.Itoa(s.Line()) + ": " + err.Error())
				} else {
					k.out = redactDerived(out, len(k.out), k.rep.redacts(), &b, s.URI())
				}
				k.out = append(k.out, '\n')
			}
		}))
	}
}

// resolveWith resolves ref against base by the grammar's algorithm: RFC
// 3986 §5.2, or RFC 2396 §5.2 (which keeps ".." segments above the root).
func resolveWith(g uriscan.Grammar, dst []byte, base, ref *uriscan.URI, flags uriscan.ResolveFlags) ([]byte, error) {
	if g == uriscan.RFC2396 {
		return uriscan.ResolveRFC2396(dst, base, ref)
	}
	return uriscan.Resolve(dst, base, ref, flags)
}
