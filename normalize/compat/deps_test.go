package compat

import (
	"testing"

	"github.com/uriscan/uriscan/internal/gotool"
)

// TestDependencies: compat links neither package normalize (which
// imports it for its w3lib and safebrowsing levels) nor urikey, the
// seen-sets or their stores: a program that canonicalizes as w3lib, surt
// or Safe Browsing do takes none of them.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	linked, _ := gotool.Linked(t, ".",
		"github.com/uriscan/uriscan/normalize", "github.com/uriscan/uriscan/seen", "github.com/uriscan/uriscan/urikey",
		"github.com/cockroachdb/", "github.com/redis/go-redis")
	for _, d := range linked {
		if d != "github.com/uriscan/uriscan/normalize/compat" {
			t.Errorf("package compat links %s", d)
		}
	}
}
