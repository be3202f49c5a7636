// Package shareddata finds the large test data that lives outside the
// repository (the real-world URL lists and the access log of ../shared/data)
// for tests and benchmarks, and says so visibly when it is absent.
//
// The data directory is $URISCAN_DATA when set (the directory that holds
// urls/ and logs/, or the one above it that holds data/), else shared/data
// in the checkout's parent directory, found by walking up from the working
// directory (a package directory of the module when go test runs).
//
// URISCAN_DATA=none means "no shared data": every test and benchmark then
// behaves as on a clone with nothing beside it (the ones that need the
// data skip, the ones with a fallback run it), although ../shared may be
// there. make test-nodata runs the tests that read the data that way, so
// that a fallback is run in CI and not only on a user's machine.
package shareddata

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// Env is the variable that points at the data directory.
const Env = "URISCAN_DATA"

// None is the value of Env that means "no shared data", wherever it is.
const None = "none"

// URLLists are the names of the shared URL lists the tests and benchmarks
// read (urls/NAME.txt).
var URLLists = []string{"kasztp", "isaacs_files", "node_files"}

var (
	dirOnce  sync.Once
	dir      string
	looked   []string
	noticeMu sync.Mutex
	noticed  bool
)

// Dir returns the data directory and whether it was found; when it was
// not, the string lists where Dir looked.
func Dir() (string, bool) {
	dirOnce.Do(func() { dir, looked = find() })
	return dir, dir != ""
}

func find() (string, []string) {
	var tried []string
	try := func(d string) bool {
		tried = append(tried, d)
		fi, err := os.Stat(filepath.Join(d, "urls"))
		return err == nil && fi.IsDir()
	}
	if e := os.Getenv(Env); e == None {
		return "", []string{"nowhere: " + Env + "=" + None}
	} else if e != "" {
		for _, d := range []string{e, filepath.Join(e, "data")} {
			if try(d) {
				return d, nil
			}
		}
		return "", tried // an explicit setting is not second-guessed
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", []string{"(no working directory: " + err.Error() + ")"}
	}
	for d := wd; ; {
		if c := filepath.Join(d, "shared", "data"); try(c) {
			return c, nil
		}
		up := filepath.Dir(d)
		if up == d {
			return "", tried
		}
		d = up
	}
}

// Notice writes, once per process, a line on stderr that the shared data
// is absent and where it was looked for. go test shows it without -v (a
// skipped test or benchmark says nothing otherwise).
func Notice() {
	noticeMu.Lock()
	defer noticeMu.Unlock()
	if noticed {
		return
	}
	noticed = true
	Dir()
	if os.Getenv(Env) == None {
		fmt.Fprintf(os.Stderr, "uriscan: shared test data off (%s=%s): the tests and benchmarks that need it are skipped, the others run their fallbacks\n", Env, None)
		return
	}
	fmt.Fprintf(os.Stderr, "uriscan: shared test data not found (looked for urls/ in %q): the tests and benchmarks that need it are skipped; set %s to the data directory (the one holding urls/ and logs/)\n", looked, Env)
}

// Available reports whether the data directory was found, for a test that
// goes on without it; it writes Notice when not. When URISCAN_DATA is set
// but holds no urls/ (and is not None), tb fails: the setting is wrong,
// not the data absent.
func Available(tb testing.TB) bool {
	tb.Helper()
	if _, ok := Dir(); ok {
		return true
	}
	if e := os.Getenv(Env); e != "" && e != None {
		tb.Fatalf("%s=%s holds no urls/ (nor does %s/data)", Env, e, e)
	}
	Notice()
	return false
}

// Path returns the path of rel inside the data directory, or skips tb
// with Notice when the directory is absent (fails it when URISCAN_DATA is
// wrong: see Available).
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	if !Available(tb) {
		tb.Skipf("shared data absent: set %s", Env)
	}
	d, _ := Dir()
	return filepath.Join(d, rel)
}

// URLList returns the bytes of urls/NAME.txt, or skips tb (with Notice)
// when the data directory is absent. A list missing from a directory that
// exists fails tb.
func URLList(tb testing.TB, name string) []byte {
	tb.Helper()
	p := Path(tb, filepath.Join("urls", name+".txt"))
	data, err := os.ReadFile(p)
	if err != nil {
		tb.Fatalf("shared URL list: %v", err)
	}
	return data
}

// URLFiles returns the paths of every urls/*.txt, or nil (with Notice)
// when the data directory is absent.
func URLFiles() []string {
	d, ok := Dir()
	if !ok {
		Notice()
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(d, "urls", "*.txt"))
	return m
}

// A List is a named input of newline-separated URLs.
type List struct {
	Name string
	Data []byte
}

// SampleAndLists returns the repository's bundled sample (at samplePath,
// named "sample"), then each shared URL list when the data directory is
// there (see Available), so that a test runs on the sample even without
// the shared data.
func SampleAndLists(tb testing.TB, samplePath string) []List {
	tb.Helper()
	sample, err := os.ReadFile(samplePath)
	if err != nil {
		tb.Fatal(err)
	}
	lists := []List{{"sample", sample}}
	if Available(tb) {
		for _, name := range URLLists {
			lists = append(lists, List{name, URLList(tb, name)})
		}
	}
	return lists
}
