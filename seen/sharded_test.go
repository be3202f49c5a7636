package seen_test

import (
	"testing"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/settest"
)

// TestSharded runs the shared suite over Sharded sets of one, two and
// three shards (batches of 256 keys or more are decided on the shards'
// goroutines at once), growing and pre-sized.
func TestSharded(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		t.Run("Growing", func(t *testing.T) {
			settest.Run(t, func(t *testing.T) seen.Set { return seen.NewSharded(n, 0) })
		})
		t.Run("PreSized", func(t *testing.T) {
			settest.Run(t, func(t *testing.T) seen.Set { return seen.NewSharded(n, settest.RandomKeys) })
		})
	}
}
