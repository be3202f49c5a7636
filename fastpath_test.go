package uriscan

import (
	"strings"
	"testing"
)

// TestGoFastPorts: the Go fast path takes an authority with a port of
// digits (empty, and over 16 bits, too), with the components and port
// value ParseString gives, and leaves every other authority with a ':'
// or other structural byte to the walk.
func TestGoFastPorts(t *testing.T) {
	long := strings.Repeat("p", 80)
	take := []string{"http://h:8080/", "http://h:/", "https://h:65536/x?y", "http://h:0#f", "http://1.2.3.4:80/",
		"http://example.com:8002/antex/?a=%41", "https://h:443", "file://h:1/" + long + "?q"}
	decline := []string{"http://h:8a/", "http://h:8:9/", "http://u@h:80/", "http://[::1]:80/", "http://h:%38/", "http://h%41:80/", "http://h:80:/"}
	forEachKernel(t, func(t *testing.T) {
		fast := func(rec string) (URI, bool) {
			s := NewLineScannerBytes([]byte(rec + "\n"))
			s.w.refillAt(0)
			u := URI{src: s.w.src}
			end, ok := s.w.fast(&u, 0)
			u.start, u.end = 0, int32(end)
			return u, ok && end == len(rec)
		}
		for _, rec := range take {
			want, err := ParseString(rec)
			if err != nil {
				t.Fatalf("%q: %v", rec, err)
			}
			u, ok := fast(rec)
			if !ok {
				t.Errorf("%q: the Go fast path declined it", rec)
				continue
			}
			if got, want := render(u, nil)+extras(&u), render(want, nil)+extras(&want); got != want {
				t.Errorf("%q:\ngot  %s\nwant %s", rec, got, want)
			}
		}
		for _, rec := range decline {
			if _, ok := fast(rec); ok {
				t.Errorf("%q: the Go fast path took it", rec)
			}
		}
	})
}
