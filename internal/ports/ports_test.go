package ports

import "testing"

// TestTable: every scheme Each gives has its port from Default, once, and
// a scheme that is not listed (an uppercase one, a prefix, a longer name)
// has none.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	Each(func(scheme, port string) {
		if seen[scheme] {
			t.Errorf("%s listed twice", scheme)
		}
		seen[scheme] = true
		if got, ok := Default(scheme); !ok || got != port {
			t.Errorf("Default(%q) = %q, %v; the list says %q", scheme, got, ok, port)
		}
	})
	if len(seen) != len(schemes) {
		t.Fatalf("Each gave %d schemes, the list has %d", len(seen), len(schemes))
	}
	for _, s := range []string{"", "HTTP", "htt", "https2", "mailto", "file", "httpx", "sip "} {
		if p, ok := Default(s); ok {
			t.Errorf("Default(%q) = %q, true; it is not in the list", s, p)
		}
	}
}
