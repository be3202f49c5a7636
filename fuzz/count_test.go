package fuzz

import "github.com/uriscan/uriscan"

func parseForCount(s string) (uriscan.URI, error) { return uriscan.ParseString(s) }
