package logformat

import (
	"bytes"
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Columns takes numbered columns out of delimited lines, as cut -d SEP -f
// LIST does and with no regular expression: for log formats that are
// neither Combined nor JSON Lines (a TSV export, a CSV with no quoting, a
// custom nginx log_format with tabs, a pipe-separated firewall log).
//
// Every Sep byte ends a column, so two in a row make an empty column, as
// with cut (not awk's runs of blanks). Columns are numbered from 1. A line
// with fewer columns than a selected one simply has no such field; a line
// without Sep is one column (cut, unless -s, passes such a line whole
// whatever the list). Nothing is decoded: each Value is a subslice
// of the line and Offset its offset there.
type Columns struct {
	sep    byte
	ranges []colRange // ascending, not overlapping
	names  []string   // names[i] is "$" + (i+1), for the columns up to maxNamed
}

type colRange struct{ lo, hi int } // 1-based, inclusive; hi 0: to the end

// maxNamed is how many column names Columns keeps ready at most (those up
// to the highest column listed, or to maxNamed with an open range); a
// column past them is named when met, which allocates.
const maxNamed = 4096

// ParseColumns reads cut's LIST: column numbers and ranges separated by
// commas ("3", "2,7", "4-6", "5-" to the last column, "-3" from the
// first), in any order; a column given twice is taken once, and columns
// come out in line order. It returns an error for an empty list, a number
// below 1, a range whose end comes before its start, or anything else.
func ParseColumns(sep byte, list string) (*Columns, error) {
	c := &Columns{sep: sep}
	var rs []colRange
	if list == "" {
		return nil, &ListError{List: list, Reason: "no column given"}
	}
	for _, item := range strings.Split(list, ",") {
		lo, hi, ok := strings.Cut(item, "-")
		r := colRange{lo: 1}
		var why string
		switch {
		case item == "" || item == "-":
			return nil, &ListError{List: list, Reason: "empty item"}
		case !ok:
			if r.lo, why = column(lo); why != "" {
				return nil, &ListError{List: list, Reason: why}
			}
			r.hi = r.lo
		default:
			if lo != "" {
				if r.lo, why = column(lo); why != "" {
					return nil, &ListError{List: list, Reason: why}
				}
			}
			if hi != "" {
				if r.hi, why = column(hi); why != "" {
					return nil, &ListError{List: list, Reason: why}
				}
				if r.hi < r.lo {
					return nil, &ListError{List: list, Reason: "range " + strconv.Quote(item) + " ends before it starts"}
				}
			}
		}
		rs = append(rs, r)
	}
	// Sort and merge.
	slices.SortFunc(rs, func(a, b colRange) int { return cmp.Compare(a.lo, b.lo) })
	for _, r := range rs {
		if n := len(c.ranges); n > 0 {
			last := &c.ranges[n-1]
			if last.hi == 0 || r.lo-1 <= last.hi { // r.lo >= 1: no overflow
				if last.hi != 0 && (r.hi == 0 || r.hi > last.hi) {
					last.hi = r.hi
				}
				continue
			}
		}
		c.ranges = append(c.ranges, r)
	}
	top := 0
	for _, r := range c.ranges {
		top = max(top, r.lo, r.hi)
	}
	if c.ranges[len(c.ranges)-1].hi == 0 {
		top = max(top, maxNamed)
	}
	c.names = make([]string, min(top, maxNamed))
	for i := range c.names {
		c.names[i] = "$" + strconv.Itoa(i+1)
	}
	return c, nil
}

// column reads one column number, or says why it is none.
func column(s string) (int, string) {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || s[0] < '0' || s[0] > '9': // no sign
		return 0, strconv.Quote(s) + " is not a column number"
	case n < 1:
		return 0, "columns are numbered from 1, not " + s
	}
	return n, ""
}

// ListError is a column list ParseColumns cannot read.
type ListError struct {
	List   string // the list as given
	Reason string // what is wrong with it
}

// Error returns e.g. `column list "0": columns are numbered from 1, not 0`.
func (e *ListError) Error() string {
	return "column list " + strconv.Quote(e.List) + ": " + e.Reason
}

// Append appends the selected columns of line to fields, in line order,
// each named "$N" (N its number). It does not allocate beyond growing
// fields, except to name a column past the 4096th.
func (c *Columns) Append(fields []Field, line []byte) []Field {
	n, start := 1, 0
	ri := 0
	for ri < len(c.ranges) {
		r := c.ranges[ri]
		end := len(line)
		if i := bytes.IndexByte(line[start:], c.sep); i >= 0 {
			end = start + i
		}
		if n >= r.lo {
			fields = append(fields, Field{Name: c.name(n), Value: line[start:end:end], Offset: start})
		}
		if end == len(line) {
			break // the last column
		}
		if n == r.hi {
			ri++
		}
		n, start = n+1, end+1
	}
	return fields
}

func (c *Columns) name(n int) string {
	if n <= len(c.names) {
		return c.names[n-1]
	}
	return "$" + strconv.Itoa(n)
}
