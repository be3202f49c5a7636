package cpuinfo

import (
	"os"
	"runtime"
	"testing"
	"testing/fstest"
)

// x86 is /proc/cpuinfo of a machine with one socket, two cores and two
// threads per core (fields trimmed).
const x86 = `processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 143
model name	: Intel(R) Xeon(R) Platinum 8488C
stepping	: 8
physical id	: 0
core id		: 0
cache_alignment	: 64

processor	: 1
vendor_id	: GenuineIntel
model name	: Intel(R) Xeon(R) Platinum 8488C
physical id	: 0
core id		: 1

processor	: 2
model name	: Intel(R) Xeon(R) Platinum 8488C
physical id	: 0
core id		: 0

processor	: 3
model name	: Intel(R) Xeon(R) Platinum 8488C
physical id	: 0
core id		: 1
`

// arm64 is /proc/cpuinfo of a two-core Neoverse N1: no model name, no
// core ids.
const arm64 = `processor	: 0
BogoMIPS	: 243.75
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1

processor	: 1
CPU implementer	: 0x41
CPU part	: 0xd0c
`

func cache(level, typ, size string) map[string]*fstest.MapFile {
	return map[string]*fstest.MapFile{"level": {Data: []byte(level + "\n")}, "type": {Data: []byte(typ + "\n")}, "size": {Data: []byte(size + "\n")}, "coherency_line_size": {Data: []byte("64\n")}}
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/cpuinfo":                  {Data: []byte(x86)},
		"sys/devices/system/cpu/online": {Data: []byte("0-3\n")},
	}
	const dir = "sys/devices/system/cpu/cpu0/cache/"
	for name, c := range map[string]map[string]*fstest.MapFile{
		"index0": cache("1", "Data", "48K"), "index1": cache("1", "Instruction", "32K"),
		"index2": cache("2", "Unified", "2048K"), "index3": cache("3", "Unified", "105M"),
	} {
		for f, d := range c {
			fsys[dir+name+"/"+f] = d
		}
	}
	got := ReadFS(fsys)
	want := Info{
		Brand: "Intel(R) Xeon(R) Platinum 8488C", Vendor: "GenuineIntel",
		Family: "6", Model: "143", Stepping: "8",
		Logical: 4, Physical: 2,
		L1D: 48 << 10, L2: 2 << 20, L3: 105 << 20, LineSize: 64,
	}
	if got != want {
		t.Errorf("x86:\n got %+v\nwant %+v", got, want)
	}

	got = ReadFS(fstest.MapFS{"proc/cpuinfo": {Data: []byte(arm64)}})
	want = Info{Vendor: "0x41", Family: "8", Model: "0xd0c", Stepping: "1", Logical: 2}
	if got != want {
		t.Errorf("arm64:\n got %+v\nwant %+v", got, want)
	}

	if got := ReadFS(fstest.MapFS{}); got != (Info{}) {
		t.Errorf("nothing to read: got %+v, want all unknown", got)
	}
}

func TestCountList(t *testing.T) {
	for s, want := range map[string]int{"0": 1, "0-1": 2, "0-3,8,10-11": 7, "5-5": 1} {
		if n, ok := countList(s); !ok || n != want {
			t.Errorf("countList(%q) = %d, %v; want %d", s, n, ok, want)
		}
	}
	for _, s := range []string{"", "a", "3-1", "0-", "1,,2"} {
		if n, ok := countList(s); ok {
			t.Errorf("countList(%q) = %d, true; want false", s, n)
		}
	}
}

func TestParseSize(t *testing.T) {
	for s, want := range map[string]int{"32K": 32 << 10, "1M": 1 << 20, "512": 512} {
		if n, ok := parseSize(s); !ok || n != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, n, ok, want)
		}
	}
	for _, s := range []string{"", "K", "-1K", "0"} {
		if n, ok := parseSize(s); ok {
			t.Errorf("parseSize(%q) = %d, true; want false", s, n)
		}
	}
}

// TestRead reads this machine's files: on Linux it knows at least the
// CPUs this process may run on.
func TestRead(t *testing.T) {
	if _, err := os.Stat("/proc/cpuinfo"); runtime.GOOS != "linux" || err != nil {
		t.Skip("no /proc/cpuinfo here")
	}
	in := Read()
	if in.Logical < runtime.NumCPU() {
		t.Errorf("Read: %d logical CPUs, but this process may run on %d", in.Logical, runtime.NumCPU())
	}
}
