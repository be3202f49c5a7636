package logformat

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

func TestColumns(t *testing.T) {
	for _, tc := range []struct {
		sep        byte
		list, line string
		want       string // "$N=value@offset" joined by " | "
	}{
		{'\t', "2", "a\thttp://h/\tc", "$2=http://h/@2"},
		{'\t', "3,1", "a\tb\tc", "$1=a@0 | $3=c@4"},
		{'\t', "2-", "a\tb\tc\td", "$2=b@2 | $3=c@4 | $4=d@6"},
		{'\t', "-2", "a\tb\tc", "$1=a@0 | $2=b@2"},
		{'\t', "2,2,1-2", "a\tb\tc", "$1=a@0 | $2=b@2"},
		{'\t', "2", "a\t\tc", "$2=@2"},                 // an empty column
		{'\t', "4", "a\tb\tc", ""},                     // fewer columns
		{'\t', "1", "no tab here", "$1=no tab here@0"}, // one column
		{'\t', "1,2", "", "$1=@0"},
		{'\t', "2", "a\t", "$2=@2"}, // a trailing separator ends column 1
		{'|', "1,3-4", "x|y|z|w|v", "$1=x@0 | $3=z@4 | $4=w@6"},
		{' ', "2", "a  b", "$2=@2"}, // cut, not awk: no runs of blanks
		{',', "300", strings.Repeat("x,", 299) + "u", "$300=u@598"},
		{',', "299-", strings.Repeat("x,", 299) + "u", "$299=x@596 | $300=u@598"},
	} {
		c, err := ParseColumns(tc.sep, tc.list)
		if err != nil {
			t.Fatalf("%q: %v", tc.list, err)
		}
		if got := showFields(c.Append(nil, []byte(tc.line))); got != tc.want {
			t.Errorf("%q on %q: %s, want %s", tc.list, tc.line, got, tc.want)
		}
	}
}

func showFields(fs []Field) string {
	var s []string
	for _, f := range fs {
		s = append(s, fmt.Sprintf("%s=%s@%d", f.Name, f.Value, f.Offset))
	}
	return strings.Join(s, " | ")
}

func TestParseColumnsErrors(t *testing.T) {
	for _, tc := range []struct{ list, reason string }{
		{"", "no column given"},
		{"0", "columns are numbered from 1, not 0"},
		{"1,,2", "empty item"},
		{"-", "empty item"},
		{"a", `"a" is not a column number`},
		{"3-2", `range "3-2" ends before it starts`},
		{"1-2-3", `"2-3" is not a column number`},
		{" 1", `" 1" is not a column number`},
		{"-0", "columns are numbered from 1, not 0"},
		{"+2", `"+2" is not a column number`},
		{"99999999999999999999", `"99999999999999999999" is not a column number`},
	} {
		_, err := ParseColumns('\t', tc.list)
		le, ok := err.(*ListError)
		if !ok || le.Reason != tc.reason || le.List != tc.list {
			t.Errorf("%q: %v, want reason %q", tc.list, err, tc.reason)
		}
		if ok && err.Error() != "column list "+strconv.Quote(tc.list)+": "+tc.reason {
			t.Errorf("%q: message %q", tc.list, err)
		}
	}
}

// TestColumnsRandom checks Append against strings.Split and a direct
// reading of the list, on random lines and lists.
func TestColumnsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var items []string
		type item struct{ lo, hi int } // hi 0: open
		var parsed []item
		for range 1 + rng.IntN(3) {
			lo, hi := 1+rng.IntN(6), 0
			switch rng.IntN(4) {
			case 0:
				items = append(items, strconv.Itoa(lo))
				hi = lo
			case 1:
				hi = lo + rng.IntN(3)
				items = append(items, fmt.Sprintf("%d-%d", lo, hi))
			case 2:
				items = append(items, fmt.Sprintf("%d-", lo))
			case 3:
				hi = lo
				lo = 1
				items = append(items, fmt.Sprintf("-%d", hi))
			}
			parsed = append(parsed, item{lo, hi})
		}
		var line []byte
		for range rng.IntN(12) {
			line = append(line, "ab\t,"[rng.IntN(4)])
		}
		list := strings.Join(items, ",")
		c, err := ParseColumns('\t', list)
		if err != nil {
			t.Fatalf("%q: %v", list, err)
		}
		var want []string
		off := 0
		for i, v := range strings.Split(string(line), "\t") {
			n := i + 1
			for _, it := range parsed {
				if n >= it.lo && (it.hi == 0 || n <= it.hi) {
					want = append(want, fmt.Sprintf("$%d=%s@%d", n, v, off))
					break
				}
			}
			off += len(v) + 1
		}
		if got, w := showFields(c.Append(nil, line)), strings.Join(want, " | "); got != w {
			t.Fatalf("%q on %q: %s, want %s", list, line, got, w)
		}
	}
}

func TestColumnsNoAllocs(t *testing.T) {
	line := []byte(strings.Repeat("a\t", 4095) + "z")
	for _, tc := range []struct {
		list string
		n    int
	}{{"1,3-", 4095}, {"300", 1}, {"-300", 300}, {"1-", 4096}, {"4096", 1}} {
		c, _ := ParseColumns('\t', tc.list)
		fields := make([]Field, 0, 4096)
		if n := testing.AllocsPerRun(20, func() { fields = c.Append(fields[:0], line) }); n != 0 || len(fields) != tc.n {
			t.Errorf("%q: %v allocations, %d fields, want %d", tc.list, n, len(fields), tc.n)
		}
	}
	// Past the names kept ready, a name is made (and right).
	c, _ := ParseColumns('\t', "4097-")
	if f := c.Append(nil, append(line, "\tlast"...)); len(f) != 1 || f[0].Name != "$4097" || string(f[0].Value) != "last" {
		t.Errorf("column 4097: %v", f)
	}
}

// TestColumnsHuge: the largest column numbers neither overflow the merge
// of ranges nor make a column twice.
func TestColumnsHuge(t *testing.T) {
	const top = "9223372036854775807"
	for _, list := range []string{"1-" + top + ",5", top + ",1", "2-" + top + ",1-3", top + "-"} {
		c, err := ParseColumns(',', list)
		if err != nil {
			t.Fatalf("%q: %v", list, err)
		}
		got := showFields(c.Append(nil, []byte("a,b,c,d,e,f")))
		want := map[string]string{
			"1-" + top + ",5":   "$1=a@0 | $2=b@2 | $3=c@4 | $4=d@6 | $5=e@8 | $6=f@10",
			top + ",1":          "$1=a@0",
			"2-" + top + ",1-3": "$1=a@0 | $2=b@2 | $3=c@4 | $4=d@6 | $5=e@8 | $6=f@10",
			top + "-":           "",
		}[list]
		if got != want {
			t.Errorf("%q: %s, want %s", list, got, want)
		}
		if len(c.ranges) != 1 && list != top+",1" {
			t.Errorf("%q: ranges %v not merged", list, c.ranges)
		}
	}
}
