package cli

import (
	"errors"
	"strconv"

	"github.com/uriscan/uriscan"
	getfmt "github.com/uriscan/uriscan/format"
)

// getFlags are --get and --private-suffixes, the same on every command
// that writes URIs.
type getFlags struct {
	spec    *string
	private *bool
}

func addGetFlags(fs *flagSet, what string) getFlags {
	return getFlags{
		spec:    fs.String("get", "", "write `TEMPLATE` for "+what+" instead, in trurl's --get syntax: {scheme} {user} {password} {host} {port} {path} {query} {fragment} {url} {query:KEY} {query-all:KEY} {query-keys} {path:N} {etld} {rdn} {subdomain}, decoded unless written {:name}; {default:port}; \\t \\n (uriscan help get)"),
		private: fs.Bool("private-suffixes", false, "with --get, {etld}, {rdn} and {subdomain} count the Public Suffix List's private section too (user.github.io is then registrable under github.io)"),
	}
}

// compile returns the --get template (nil when there is none), or a
// usage error.
// domains says whether another flag of the command splits hosts (then
// --private-suffixes goes with it too).
func (g getFlags) compile(e *env, cmd string, fs *flagSet, domains bool) (*getfmt.Format, error) {
	if !fs.given("get") {
		if *g.private && !domains {
			what := map[string]string{"split": "--get or --domains", "dedup": "--get or --scope"}[cmd]
			if what == "" {
				what = "--get"
			}
			return nil, usageErr(cmd+": --private-suffixes goes with "+what, e.cmd)
		}
		return nil, nil
	}
	newSplit := func() getfmt.SplitFunc { return e.stores.NewSplit(*g.private) }
	f, err := getfmt.Compile(*g.spec, newSplit)
	if err != nil {
		var se *getfmt.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = "--get: " + se.Msg + " at offset " + strconv.Itoa(se.Offset) + " of " + strconv.Quote(se.Format)
		}
		return nil, usageErr(cmd+": "+msg, e.cmd)
	}
	return f, nil
}

// appendGet appends f's text for u; with redact, a password in u is
// written as uriscan.Redacted, whichever variables show it.
func appendGet(dst []byte, f *getfmt.Format, u *uriscan.URI, redact bool) []byte {
	if redact {
		if _, _, ok := u.PasswordSpan(); ok {
			red := uriscan.AppendRedacted(nil, []byte(u.String()))
			if v, err := uriscan.Parse(red); err == nil {
				u = &v
			}
		}
	}
	return f.Append(dst, u)
}

// helpTopics are the texts of "uriscan help TOPIC" that are no command's.
var helpTopics = map[string]string{
	"get": `--get TEMPLATE (split, normalize, extract, dedup) writes TEMPLATE once per URI,
its variables filled from the URI, in trurl's --get syntax.

A variable is a name in braces, {host}, or in brackets, [host]; the first
opener in the template decides which (the other is then text). An opener
with no closer is text. \t \n \r \\ \{ \[ are a tab, a newline, a carriage
return, a backslash and the openers.

  {url}                    the whole URI, as written
  {scheme} {user} {password} {host} {port} {path} {query} {fragment}
  {query:KEY}              the value of the first pair whose key is KEY
  {query-all:KEY}          the values of every such pair, space-separated
  {query-keys}             the keys, in order, each once, space-separated
  {path:N}                 path segment N: 1 the first, -1 the last
  {etld}                   the host's public suffix ("co.uk")
  {rdn}                    its registrable domain ("example.co.uk")
  {subdomain}              what is before that ("www")
  {default:port}           the port, or the scheme's default when none

Values are percent-decoded ("+" is a space in query pairs) unless written
{:name} or {url:name}; a decoded control byte stays encoded, so that one URI
is one line. An undefined part writes nothing. Public suffixes come from the
Public Suffix List (golang.org/x/net/publicsuffix), its ICANN section only
unless --private-suffixes; an IP address, a single-label host ("localhost")
and a host that is a public suffix have no registrable domain. A password is
written *** unless --show-passwords.

Where it differs from trurl: trurl normalizes the URL first (uriscan writes
parts as written: use normalize --get for normal forms), writes decoded
control bytes raw and %00 in a query value as "."; must:, strict:, puny:
and idn: are refused; {query-keys}, {path:N}, {etld}, {rdn}, {subdomain}
are uriscan's.

  $ echo 'https://shop.example.co.uk/items/blue%20cup?id=42' | uriscan split --get '{rdn} {path:-1} {query:id}'
  example.co.uk blue cup 42
`,
}

// splitter returns a new host splitter of st under --private-suffixes'
// rules.
func (g getFlags) splitter(st *Stores) hostSplit {
	return st.NewSplit(*g.private)
}

// hostSplit is a Stores.NewSplit splitter.
type hostSplit = func(host string) (subdomain, registrable, suffix string, ok bool)

// appendDomainsJSON appends split --domains' keys for u's host.
func appendDomainsJSON(b []byte, split hostSplit, u *uriscan.URI) []byte {
	sub, rdn, suffix, ok := split(u.Host())
	for _, f := range [...]struct{ key, v string }{{`,"etld":`, suffix}, {`,"rdn":`, rdn}, {`,"subdomain":`, sub}} {
		b = append(b, f.key...)
		if !ok { // no registrable domain: all three null

			b = append(b, "null"...)
			continue
		}
		b = appendJSONString(b, f.v)
	}
	return b
}

// appendDomainsTSV appends split --domains' columns for u's host.
func appendDomainsTSV(b []byte, split hostSplit, u *uriscan.URI) []byte {
	sub, rdn, suffix, ok := split(u.Host())
	for _, v := range [...]string{suffix, rdn, sub} {
		b = append(b, '\t')
		if !ok {
			b = append(b, tsvNull...)
			continue
		}
		b = appendTSVField(b, v)
	}
	return b
}
