package compat

// amp is the separator of query parameters, for bytes.Count.
var amp = []byte{'&'}
