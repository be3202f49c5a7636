// Command compare runs every peer of package bench over every shared URL
// list and prints a Markdown table: ns/URL, MB/s, speed-up vs net/url,
// allocations per URL and how many lines each peer accepted.
//
// With -mode normalize it runs the normalizers instead (bench.NormImpls),
// on the lines of each list that all of them accept, with speed-ups vs
// purell FlagsSafe and vs uriparser's normalize.
//
// From the bench directory:
//
//	go run ./cmd/compare                      # pure-Go peers
//	go run -tags uriparser ./cmd/compare      # and uriparser (cgo, liburiparser-dev)
//	go run -tags uriparser ./cmd/compare -mode normalize
//
// Each run parses the whole list repeatedly for at least -mintime; the runs
// of all peers are interleaved (run 1 of every peer, then run 2, ...) so
// that a noisy neighbour slows them alike, and the median of -count runs is
// shown, with the spread (max-min)/2 as a percentage of it.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime"
	"slices"
	"time"

	"github.com/klauspost/cpuid/v2"
	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/bench"
)

func main() {
	var (
		data    = flag.String("data", bench.DefaultDataDir, "directory of URL lists (*.txt)")
		count   = flag.Int("count", 7, "runs per peer and list; the median is shown")
		minTime = flag.Duration("mintime", 200*time.Millisecond, "minimum duration of one run")
		implRE  = flag.String("impl", "", "only peers whose name matches this regexp")
		corpRE  = flag.String("corpus", "", "only lists whose name matches this regexp")
		legend  = flag.Bool("legend", true, "print what each peer calls")
		clockF  = flag.String("clock", "wall", "wall: elapsed time; cpu: CPU time of this process (CLOCK_PROCESS_CPUTIME_ID, GC threads included), which leaves out the time other processes hold the CPU")
		mode    = flag.String("mode", "parse", "parse: the parsers (bench.Impls); normalize: the normalizers (bench.NormImpls)")
	)
	flag.Parse()
	if *count < 1 {
		fmt.Fprintln(os.Stderr, "compare: -count must be at least 1")
		os.Exit(2)
	}
	switch *clockF {
	case "wall":
	case "cpu":
		if cpuClock == nil {
			fmt.Fprintln(os.Stderr, "compare: -clock cpu is only on Linux")
			os.Exit(2)
		}
		clock, clockName = cpuClock, "CPU time of the process"
	default:
		fmt.Fprintf(os.Stderr, "compare: -clock %q: want wall or cpu\n", *clockF)
		os.Exit(2)
	}
	all := bench.Impls()
	switch *mode {
	case "parse":
	case "normalize":
		all = bench.NormImpls()
	default:
		fmt.Fprintf(os.Stderr, "compare: -mode %q: want parse or normalize\n", *mode)
		os.Exit(2)
	}
	impls, err := filter(all, *implRE, func(i bench.Impl) string { return i.Name })
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}
	cs, err := bench.LoadCorpora(bench.FindDataDir(*data))
	if bench.IsNotExist(err) {
		fmt.Fprintf(os.Stderr, "compare: skipping, shared corpus absent: %v\n", err)
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
	if cs, err = filter(cs, *corpRE, func(c *bench.Corpus) string { return c.Name }); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(2)
	}

	w := os.Stdout
	header(w, *count, *minTime)
	if *mode == "normalize" {
		normalizeTable(w, cs, impls, *count, *minTime)
	} else {
		parseTable(w, cs, impls, *count, *minTime)
	}
	if *legend {
		fmt.Fprintln(w)
		for _, i := range impls {
			fmt.Fprintf(w, "- `%s`: %s\n", i.Name, i.Desc)
		}
	}
}

func parseTable(w io.Writer, cs []*bench.Corpus, impls []bench.Impl, count int, minTime time.Duration) {
	fmt.Fprintln(w, "| corpus (lines, avg bytes) | impl | ns/URL | ± | MB/s | vs net/url | allocs/URL | accepted |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, c := range cs {
		rows := measure(c, impls, count, minTime)
		base := 0.0
		for _, r := range rows {
			if r.name == bench.Baseline {
				base = r.ns
			}
		}
		label := fmt.Sprintf("%s (%d, %d B)", c.Name, len(c.Lines), c.Bytes/max(1, len(c.Lines)))
		for _, r := range rows {
			ratio := "–"
			if base > 0 {
				ratio = fmt.Sprintf("%.2fx", base/r.ns)
			}
			fmt.Fprintf(w, "| %s | %s | %.0f | %.0f%% | %.0f | %s | %s | %d |\n",
				label, r.name, r.ns, r.spread*100, r.mbs, ratio, allocs(r.allocs), r.accepted)
		}
	}
}

// normalizeTable times the normalizers on the lines of each list that all
// of impls accept; "accepts" counts the lines of the whole list each one
// accepts.
func normalizeTable(w io.Writer, cs []*bench.Corpus, impls []bench.Impl, count int, minTime time.Duration) {
	fmt.Fprintln(w, "Timed on the lines every normalizer listed accepts (\"timed lines\"); accepts: lines of the whole list each accepts.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| corpus (timed lines of all, avg bytes) | impl | ns/URL | ± | MB/s | vs purell | vs uriparser | allocs/URL | accepts |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, full := range cs {
		c, accepted := bench.NormCorpus(full, impls)
		if len(c.Lines) == 0 {
			fmt.Fprintf(os.Stderr, "compare: %s: no line accepted by every normalizer\n", full.Name)
			continue
		}
		rows := measure(c, impls, count, minTime)
		base := map[string]float64{}
		for _, r := range rows {
			base[r.name] = r.ns
		}
		ratio := func(name string, ns float64) string {
			if b, ok := base[name]; ok && ns > 0 {
				return fmt.Sprintf("%.2fx", b/ns)
			}
			return "–"
		}
		label := fmt.Sprintf("%s (%d of %d, %d B)", c.Name, len(c.Lines), len(full.Lines), c.Bytes/len(c.Lines))
		for i, r := range rows {
			fmt.Fprintf(w, "| %s | %s | %.0f | %.0f%% | %.0f | %s | %s | %s | %d |\n",
				label, r.name, r.ns, r.spread*100, r.mbs, ratio(bench.NormBaseline, r.ns),
				ratio(bench.NormBaseline2, r.ns), allocs(r.allocs), accepted[i])
		}
	}
}

func header(w io.Writer, count int, minTime time.Duration) {
	fmt.Fprintf(w, "CPU: %s (%d logical cores)  \n", cpuid.CPU.BrandName, runtime.NumCPU())
	fmt.Fprintf(w, "Go: %s %s/%s, GOMAXPROCS %d  \n", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	fmt.Fprintf(w, "uriscan kernel: %s  \n", uriscan.Kernel())
	fmt.Fprintf(w, "Median of %d interleaved runs of at least %s (%s) each; ± is (max-min)/2 over the runs.\n\n", count, minTime, clockName)
}

var (
	epoch     = time.Now()
	clock     = func() time.Duration { return time.Since(epoch) }
	clockName = "wall-clock time"
)

type row struct {
	name      string
	ns, mbs   float64 // medians
	spread    float64 // (max-min)/2 of ns/URL, relative to the median
	allocs    float64 // Go heap allocations per URL
	accepted  int     // lines the peer accepted
	durations []float64
}

// measure times every peer on c: a warm-up pass each, then count rounds in
// which every peer runs once for at least minTime.
func measure(c *bench.Corpus, impls []bench.Impl, count int, minTime time.Duration) []row {
	rows := make([]row, len(impls))
	passes := make([]func() int, len(impls))
	for i, impl := range impls {
		passes[i] = impl.Prepare(c)
		rows[i].name = impl.Name
		rows[i].accepted = passes[i]() // warm-up
		rows[i].allocs = allocsPerURL(passes[i], len(c.Lines))
	}
	n := float64(max(1, len(c.Lines)))
	for range count {
		for i, pass := range passes {
			runtime.GC()
			iters := 0
			start := clock()
			var d time.Duration
			for d < minTime {
				pass()
				iters++
				d = clock() - start
			}
			rows[i].durations = append(rows[i].durations, float64(d.Nanoseconds())/float64(iters)/n)
		}
	}
	for i := range rows {
		ds := rows[i].durations
		slices.Sort(ds)
		rows[i].ns = median(ds)
		rows[i].spread = (ds[len(ds)-1] - ds[0]) / 2 / rows[i].ns
		rows[i].mbs = float64(c.Bytes) / n / rows[i].ns * 1e3 // bytes/ns = GB/s; *1e3 = MB/s
	}
	return rows
}

// allocsPerURL counts Go heap allocations over a few passes.
func allocsPerURL(pass func() int, lines int) float64 {
	const passes = 3
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range passes {
		pass()
	}
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs-before.Mallocs) / passes / float64(max(1, lines))
}

func median(sorted []float64) float64 {
	m := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[m]
	}
	return (sorted[m-1] + sorted[m]) / 2
}

func allocs(a float64) string {
	switch {
	case a < 0.005:
		return "0"
	case a < 10:
		return fmt.Sprintf("%.2f", a)
	}
	return fmt.Sprintf("%.1f", a)
}

func filter[T any](xs []T, expr string, name func(T) string) ([]T, error) {
	if expr == "" {
		return xs, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(slices.Clone(xs), func(x T) bool { return !re.MatchString(name(x)) }), nil
}
