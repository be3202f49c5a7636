package cli

import (
	"fmt"
	"strings"
	"testing"

	"github.com/uriscan/uriscan/internal/pathstats"
)

// TestFastPathNothingUnasked: the commands compute nothing their output
// does not show. validate computes the §7 warnings only with --warn (and
// split only with --flags); no command searches a host for a userinfo "@"
// under RFC 3986, where a URI without the Userinfo component has none.
// The counters exist only with the uriscan_pathstats tag (the Makefile's
// path leg runs this test).
func TestFastPathNothingUnasked(t *testing.T) {
	if !pathstats.Enabled {
		t.Skip("the path counters are compiled in only with -tags uriscan_pathstats (make test-go runs this)")
	}
	var b strings.Builder
	for i := range 500 {
		fmt.Fprintf(&b, "http://h%d.example/p?q=%d\n", i, i)
	}
	in := b.String()
	for _, c := range []struct {
		args               []string
		warnings, userinfo uint64
	}{
		{[]string{"validate"}, 0, 0},
		{[]string{"validate", "--warn"}, 500, 0},
		{[]string{"split"}, 0, 0},
		{[]string{"split", "--flags"}, 500, 0},
		{[]string{"normalize"}, 0, 0},
		{[]string{"dedup"}, 0, 0},
		{[]string{"validate", "--grammar", "rfc2396"}, 0, 0},
		// Shown (redacted) under RFC 2396: a reg_name host is searched.
		{[]string{"split", "--grammar", "rfc2396"}, 0, 500},
	} {
		before := pathstats.Snapshot()
		if code, _, errs := cli(t, in, c.args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s", c.args, code, errs)
		}
		d := pathstats.Snapshot().Since(before)
		if d[pathstats.Warnings] != c.warnings || d[pathstats.UserinfoScan] != c.userinfo {
			t.Errorf("%q over 500 lines: %d Warnings calls, %d userinfo scans; want %d and %d",
				c.args, d[pathstats.Warnings], d[pathstats.UserinfoScan], c.warnings, c.userinfo)
		}
	}
}
