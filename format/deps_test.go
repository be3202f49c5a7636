package format

import (
	"testing"

	"github.com/uriscan/uriscan/internal/gotool"
)

// TestDependencies: format takes its default ports from the leaf table
// (internal/ports), and does not link the normalizer for them.
func TestDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	if linked, _ := gotool.Linked(t, ".", "github.com/uriscan/uriscan/normalize"); len(linked) > 0 {
		t.Errorf("package format links %v", linked)
	}
	if linked, _ := gotool.Linked(t, ".", "github.com/uriscan/uriscan/internal/ports"); len(linked) != 1 {
		t.Errorf("package format does not link internal/ports")
	}
}
