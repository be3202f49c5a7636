package uriscan

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uriscan/uriscan/internal/shareddata"
)

// javaRequireEnv makes TestJava2396 fail, not skip, without java.
const javaRequireEnv = "URISCAN_JAVA_REQUIRE"

// javaSplit is one line of internal/javaoracle/Split.java's output.
type javaSplit struct {
	Valid    bool    `json:"valid"`
	Scheme   *string `json:"scheme"`
	Userinfo *string `json:"userinfo"`
	Host     *string `json:"host"`
	Port     *string `json:"port"`
	Path     *string `json:"path"`
	Query    *string `json:"query"`
	Fragment *string `json:"fragment"`
	Registry bool    `json:"registry"`
	Error    *struct {
		Index  int    `json:"index"`
		Reason string `json:"reason"`
	} `json:"error"`
}

func (j *javaSplit) comps() [numComponents]*string {
	return [numComponents]*string{j.Scheme, j.Userinfo, j.Host, j.Port, j.Path, j.Query, j.Fragment}
}

func uriComps(u *URI) [numComponents]*string {
	var c [numComponents]*string
	for k := Scheme; k < numComponents; k++ {
		if u.Has(k) {
			v := u.Get(k)
			c[k] = &v
		}
	}
	return c
}

func sameComps(a, b [numComponents]*string) bool {
	for k := range a {
		if (a[k] == nil) != (b[k] == nil) || a[k] != nil && *a[k] != *b[k] {
			return false
		}
	}
	return true
}

func showComps(c [numComponents]*string) string {
	var b strings.Builder
	for k, v := range c {
		if v != nil {
			fmt.Fprintf(&b, "%s=%q ", Component(k), *v)
		}
	}
	return strings.TrimSpace(b.String())
}

// javaCase is one input with both answers.
type javaCase struct {
	in   string
	u    URI
	err  *Error
	java *javaSplit
}

// javaQuirk is a named class of disagreement between RFC2396.Parse and
// java.net.URI: a known java.net.URI deviation from RFC 2396 + RFC 2732,
// checked on the case, not just named.
type javaQuirk struct {
	name, what string
	is         func(c *javaCase) bool
}

var reDottedQuad = regexp.MustCompile(`^([0-9]+)\.([0-9]+)\.([0-9]+)\.([0-9]+)$`)

func groupsOver(s string, over func(g string) bool) bool {
	m := reDottedQuad.FindStringSubmatch(s)
	if m == nil {
		return false
	}
	for _, g := range m[1:] {
		if over(g) {
			return true
		}
	}
	return false
}

// ipv4Tail returns the dotted part at the end of an IPv6 literal "[…]".
func ipv4Tail(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return h[strings.LastIndexByte(h, ':')+1:]
}

func over255(g string) bool { v, err := strconv.Atoi(g); return err != nil || v > 255 }
func over3(g string) bool   { return len(g) > 3 }

// encodeHigh percent-encodes the bytes >= 0x80 of s.
func encodeHigh(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

var javaQuirks = []javaQuirk{
	{"non-ascii", "java.net.URI accepts unescaped non-ASCII characters (any above U+0080 that is not a space or a control, U+FFFD for malformed UTF-8) wherever escaped is allowed; RFC 2396 §2 allows US-ASCII only (uriscan: invalid, at the first such byte; valid once they are percent-encoded)",
		func(c *javaCase) bool {
			if c.err == nil || !c.java.Valid || c.err.Offset >= len(c.in) || c.in[c.err.Offset] < 0x80 {
				return false
			}
			_, err := RFC2396.ParseString(encodeHigh(c.in))
			return err == nil
		}},
	{"empty-authority-at-end", `java.net.URI rejects an empty authority that ends the input ("s://", "//": "Expected authority"); RFC 2396's server = [ … ] may be empty (uriscan: the empty server, host "")`,
		func(c *javaCase) bool {
			return c.err == nil && !c.java.Valid && c.u.HasAuthority() && c.u.Host() == "" && int(c.u.spans[Host].end) == len(c.in)
		}},
	{"empty-authority", `java.net.URI leaves an empty authority before "/", "?" or "#" undefined ("file:///x" has no host); RFC 2396's empty server is still an authority (uriscan: host "", defined)`,
		func(c *javaCase) bool {
			if c.err != nil || !c.java.Valid || !c.u.HasAuthority() || c.u.Host() != "" || c.java.Host != nil {
				return false
			}
			g := uriComps(&c.u)
			g[Host] = nil
			return sameComps(g, c.java.comps())
		}},
	{"empty-path-query", `java.net.URI accepts a relative reference whose path is empty and which has a query ("?q"; its source says "DEVIATION: May be empty"); RFC 2396's relativeURI needs net_path, abs_path or rel_path (uriscan: invalid at offset 0; with a path segment in front, valid with Java's query and fragment)`,
		func(c *javaCase) bool {
			if c.err == nil || c.err.Offset != 0 || !strings.HasPrefix(c.in, "?") || !c.java.Valid || c.java.Path == nil || *c.java.Path != "" {
				return false
			}
			u, err := RFC2396.ParseString("g" + c.in)
			if err != nil {
				return false
			}
			g, j := uriComps(&u), c.java.comps()
			g[Path], j[Path] = nil, nil
			return sameComps(g, j)
		}},
	{"opaque-bracket-first", `java.net.URI checks a whole opaque part against uric, so it may begin with "[" or "]"; RFC 2396's opaque_part = uric_no_slash *uric does not (uriscan: invalid just after the ":")`,
		func(c *javaCase) bool {
			if c.err == nil || !c.java.Valid || c.java.Scheme == nil || c.err.Offset != len(*c.java.Scheme)+1 {
				return false
			}
			return c.in[c.err.Offset] == '[' || c.in[c.err.Offset] == ']'
		}},
	{"ipv6-scope-id", `java.net.URI accepts a scope id after "%" in an IPv6 literal ("[fe80::1%eth0]"); RFC 2732 has none (uriscan: invalid; valid without the scope id)`,
		func(c *javaCase) bool {
			if c.err == nil || !c.java.Valid || c.java.Host == nil || !strings.HasPrefix(*c.java.Host, "[") {
				return false
			}
			h := *c.java.Host
			i := strings.IndexByte(h, '%')
			if i < 0 {
				return false
			}
			_, err := RFC2396.ParseString(strings.Replace(c.in, h, h[:i]+"]", 1))
			return err == nil
		}},
	{"ipv4-over-255", `java.net.URI requires each IPv4 group to be at most 255 and otherwise takes the authority as registry-based, or rejects an IPv6 literal; RFC 2732's IPv4address = 1*3DIGIT groups has no such limit (uriscan: an IPv4 host, or a valid IPv6 literal)`,
		func(c *javaCase) bool {
			if c.err != nil {
				return false
			}
			switch c.u.HostType() {
			case IPv4:
				return groupsOver(c.u.Host(), over255) && c.java.Valid && c.java.Registry
			case IPv6:
				return groupsOver(ipv4Tail(c.u.Host()), over255) && !c.java.Valid
			}
			return false
		}},
	{"ipv4-digits", `java.net.URI allows an IPv4 group of more than 3 digits when its value is at most 255 ("0001.2.3.4"); RFC 2732's IPv4address has 1*3DIGIT (uriscan: a reg_name authority, or an invalid IPv6 literal)`,
		func(c *javaCase) bool {
			if !c.java.Valid || c.java.Host == nil || c.java.Registry {
				return false
			}
			h := *c.java.Host
			if strings.HasPrefix(h, "[") {
				return c.err != nil && groupsOver(ipv4Tail(h), over3)
			}
			return c.err == nil && c.u.RegistryBased() && groupsOver(h, over3)
		}},
	{"numeric-hostname", `java.net.URI accepts a hostname of one label that begins with a digit ("123", "1a", "1."), checking the first character only of the last label of a dotted name; RFC 2396's toplabel begins with alpha (uriscan: a reg_name authority; the host text is the same unless there is a userinfo or a port)`,
		func(c *javaCase) bool {
			if c.err != nil || !c.u.RegistryBased() || !c.java.Valid || c.java.Registry || c.java.Host == nil {
				return false
			}
			h := strings.TrimSuffix(*c.java.Host, ".")
			return h != "" && h[0] >= '0' && h[0] <= '9' && !strings.Contains(h, ".") && !reDottedQuad.MatchString(h)
		}},
	{"port-overflow", `java.net.URI parses the port as an int: one above 2147483647 makes the authority registry-based, or with an IPv6 literal invalid ("Malformed port number"); RFC 2396's port = *digit has no limit (uriscan: a server with that port)`,
		func(c *javaCase) bool {
			if c.err != nil || !c.u.Has(Port) || !(c.java.Valid && c.java.Registry || !c.java.Valid && c.u.HostType() == IPv6) {
				return false
			}
			v, err := strconv.ParseUint(c.u.Port(), 10, 64)
			return err != nil || v > math.MaxInt32
		}},
}

// javaStats counts agreement on one source of inputs.
type javaStats struct {
	name                      string
	lines, validAgree         int
	bothValid, compsAgree     int
	explained                 map[string]int
	unexplained               []string
	examples                  map[string][]string
	validityOnlyDisagreements int
}

// TestJava2396 runs internal/javaoracle/Split.java over every line of the
// shared URL lists and over generated inputs and compares java.net.URI's
// answers with RFC2396.Parse's.
func TestJava2396(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the java.net.URI differential runs in the full (native) test run")
	}
	java, err := exec.LookPath("java")
	if err != nil {
		if os.Getenv(javaRequireEnv) == "1" {
			t.Fatalf("java not found (%v) and %s=1: install a JDK or JRE (11 or later) for the java.net.URI differential test", err, javaRequireEnv)
		}
		t.Skipf("java not found on PATH: skipping the differential test against java.net.URI (set %s=1 to fail instead)", javaRequireEnv)
	}
	type source struct {
		name, path string
		lines      []string
	}
	var sources []source
	for _, p := range shareddata.URLFiles() {
		name := strings.TrimSuffix(filepath.Base(p), ".txt")
		sources = append(sources, source{name, p, lines2396(shareddata.URLList(t, name))})
	}
	gen := gen2396(2396, 100000)
	genPath := filepath.Join(t.TempDir(), "generated.txt")
	if err := os.WriteFile(genPath, []byte(strings.Join(gen, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sources = append(sources, source{"generated", genPath, gen})

	// One JVM for everything: Split.java prints the files' lines in order.
	args := []string{filepath.Join("internal", "javaoracle", "Split.java")}
	for _, s := range sources {
		args = append(args, s.path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, java, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	t.Logf("java.net.URI (%s): %v", java, time.Since(start).Round(time.Millisecond))
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 64<<20)

	for _, src := range sources {
		st := javaStats{name: src.name, explained: map[string]int{}, examples: map[string][]string{}}
		for _, in := range src.lines {
			if !sc.Scan() {
				t.Fatalf("%s: Split.java printed fewer lines than the inputs hold (%v)", src.name, sc.Err())
			}
			var j javaSplit
			if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
				t.Fatalf("%s: Split.java line %q: %v", src.name, sc.Bytes(), err)
			}
			c := javaCase{in: in, java: &j}
			u, err := RFC2396.ParseString(in)
			if err != nil {
				c.err = err.(*Error)
			} else {
				c.u = u
			}
			st.lines++
			agree := (c.err == nil) == j.Valid
			if agree {
				st.validAgree++
			}
			if c.err == nil && j.Valid {
				st.bothValid++
				if sameComps(uriComps(&c.u), j.comps()) {
					st.compsAgree++
					continue
				}
			} else if agree {
				continue // both invalid
			}
			name := ""
			for _, q := range javaQuirks {
				if q.is(&c) {
					name = q.name
					break
				}
			}
			desc := describeJavaCase(&c)
			if name == "" {
				st.unexplained = append(st.unexplained, desc)
				continue
			}
			st.explained[name]++
			if len(st.examples[name]) < 3 {
				st.examples[name] = append(st.examples[name], desc)
			}
		}
		validPct := 100 * float64(st.validAgree) / float64(max(st.lines, 1))
		compPct := 100 * float64(st.compsAgree) / float64(max(st.bothValid, 1))
		t.Logf("%s: %d lines, validity agrees on %d (%.3f%%); both valid %d, components agree on %d (%.3f%%)",
			st.name, st.lines, st.validAgree, validPct, st.bothValid, st.compsAgree, compPct)
		for _, q := range javaQuirks {
			if n := st.explained[q.name]; n > 0 {
				t.Logf("  %s: %d, e.g. %s", q.name, n, strings.Join(st.examples[q.name], "; "))
			}
		}
		if validPct < 99.9 {
			t.Errorf("%s: validity agrees on %.3f%% of the lines, below 99.9%%", st.name, validPct)
		}
		for i, d := range st.unexplained {
			if i == 20 {
				t.Errorf("%s: … %d unexplained disagreements in all", st.name, len(st.unexplained))
				break
			}
			t.Errorf("%s: unexplained disagreement: %s", st.name, d)
		}
	}
	if sc.Scan() {
		t.Fatalf("Split.java printed more lines than the inputs hold: %q", sc.Bytes())
	}
}

func describeJavaCase(c *javaCase) string {
	g := "invalid (" + c.err.Error() + ")"
	if c.err == nil {
		g = showComps(uriComps(&c.u))
	}
	j := "invalid"
	if c.java.Error != nil {
		j += fmt.Sprintf(" (%s at index %d)", c.java.Error.Reason, c.java.Error.Index)
	}
	if c.java.Valid {
		j = showComps(c.java.comps())
		if c.java.Registry {
			j += " (registry)"
		}
	}
	return fmt.Sprintf("%q: uriscan %s; java %s", c.in, g, j)
}
