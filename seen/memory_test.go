package seen_test

import (
	"testing"

	"github.com/uriscan/uriscan/seen"
	"github.com/uriscan/uriscan/seen/settest"
)

func TestMemory(t *testing.T) {
	t.Run("Growing", func(t *testing.T) {
		settest.Run(t, func(t *testing.T) seen.Set { return seen.NewMemory(0) })
	})
	t.Run("PreSized", func(t *testing.T) {
		settest.Run(t, func(t *testing.T) seen.Set { return seen.NewMemory(settest.RandomKeys) })
	})
}
