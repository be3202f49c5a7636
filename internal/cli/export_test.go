package cli

// SetStores gives the tests' runs the Stores (see stores_test.go).
func SetStores(s Stores) { linked = s }
