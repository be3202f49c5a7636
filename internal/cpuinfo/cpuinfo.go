// Package cpuinfo describes the CPU a process runs on as the operating
// system reports it: on Linux, /proc/cpuinfo and /sys/devices/system/cpu.
// It is read when asked (uriscan cpu), never at start-up: a package that
// probes the CPU in its init (as klauspost/cpuid does, with CPUID
// instructions that trap to the hypervisor in a virtual machine) makes
// every run of every command pay for it. The features that dispatch
// reads come from golang.org/x/sys/cpu (internal/cpufeat), not from here.
package cpuinfo

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

// Info is what the system says of the CPU; a zero field is unknown.
type Info struct {
	Brand  string // "AMD EPYC 9R14", "Intel(R) Xeon(R) ...": model name
	Vendor string // vendor_id: "AuthenticAMD", "GenuineIntel"; on arm64 the implementer ("0x41")
	// Family, Model and Stepping as the system writes them (decimal on
	// x86; on arm64, Model is the part number, "0xd0c").
	Family, Model, Stepping string
	// Logical is how many CPUs the system has online; Physical how many
	// distinct cores (physical id, core id) /proc/cpuinfo lists.
	Logical, Physical int
	// L1D, L2 and L3 are cache sizes in bytes, LineSize the cache line's.
	L1D, L2, L3, LineSize int
}

// Read describes the CPU from the running system's files.
func Read() Info { return ReadFS(os.DirFS("/")) }

// ReadFS describes the CPU from a file system laid out as Linux's root
// (proc/cpuinfo, sys/devices/system/cpu/...); what is missing is left
// unknown.
func ReadFS(fsys fs.FS) Info {
	var in Info
	if b, err := fs.ReadFile(fsys, "proc/cpuinfo"); err == nil {
		in.parseCPUInfo(b)
	}
	if b, err := fs.ReadFile(fsys, "sys/devices/system/cpu/online"); err == nil {
		if n, ok := countList(strings.TrimSpace(string(b))); ok {
			in.Logical = n
		}
	}
	in.readCaches(fsys)
	return in
}

// parseCPUInfo takes the fields of /proc/cpuinfo: the first processor's
// description, and the cores and processors of them all.
func (in *Info) parseCPUInfo(b []byte) {
	cores := map[[2]string]bool{}
	var physID, coreID string
	processors := 0
	first := true
	set := func(dst *string, v string) {
		if first && *dst == "" {
			*dst = v
		}
	}
	endProcessor := func() {
		if coreID != "" {
			cores[[2]string{physID, coreID}] = true
		}
		physID, coreID = "", ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch k {
		case "processor":
			if processors > 0 {
				first = false
				endProcessor()
			}
			processors++
		case "model name":
			set(&in.Brand, v)
		case "vendor_id", "CPU implementer":
			set(&in.Vendor, v)
		case "cpu family", "CPU architecture":
			set(&in.Family, v)
		case "model", "CPU part":
			set(&in.Model, v)
		case "stepping", "CPU revision":
			set(&in.Stepping, v)
		case "physical id":
			physID = v
		case "core id":
			coreID = v
		case "cache_alignment":
			if n, err := strconv.Atoi(v); err == nil && first {
				in.LineSize = n
			}
		}
	}
	endProcessor()
	in.Logical = processors
	in.Physical = len(cores)
}

// readCaches takes the first CPU's data and unified caches from sysfs.
func (in *Info) readCaches(fsys fs.FS) {
	const dir = "sys/devices/system/cpu/cpu0/cache"
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "index") {
			continue
		}
		read := func(name string) string {
			b, _ := fs.ReadFile(fsys, dir+"/"+e.Name()+"/"+name)
			return strings.TrimSpace(string(b))
		}
		if read("type") == "Instruction" {
			continue
		}
		size, ok := parseSize(read("size"))
		if !ok {
			continue
		}
		switch read("level") {
		case "1":
			in.L1D = size
		case "2":
			in.L2 = size
		case "3":
			in.L3 = size
		}
		if n, err := strconv.Atoi(read("coherency_line_size")); err == nil && in.LineSize == 0 {
			in.LineSize = n
		}
	}
}

// parseSize reads a sysfs cache size: "32K", "1024K", "32M", or bytes.
func parseSize(s string) (int, bool) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n * mult, true
}

// countList counts the CPUs of a sysfs list: "0-3,8,10-11" is 7.
func countList(s string) (int, bool) {
	n := 0
	for part := range strings.SplitSeq(s, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0, false
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil || b < a {
				return 0, false
			}
		}
		n += b - a + 1
	}
	return n, true
}
