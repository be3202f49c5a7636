package cli

// inputPos is a place in the inputs: file index, byte offset in that
// file (decompressed) and the number of the line before it; where a
// resumed run starts reading (frontier.Log.Start).
type inputPos struct {
	File   int
	Offset int64
	Line   int
}
