//go:build !unix

package lineio

import (
	"errors"
	"os"
)

func mapFile(*os.File, int64) ([]byte, error) { return nil, errors.ErrUnsupported }

func unmapFile([]byte) error { return nil }

func dropPages(_ []byte, from, _ int) int { return from }
