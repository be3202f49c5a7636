// Package urikey makes the key of a URI for a seen-set: the keyed 128-bit
// HighwayHash of its normal form (package normalize, at any Level), so
// that equivalent URIs have one 16-byte key.
//
//	key, _ := urikey.ReadKeyFile("key.hex") // the same key every run
//	h, _ := urikey.NewHasher(key, normalize.Scheme)
//	isNew, _ := set.Add(seen.Key(h.Sum(&u)))
//
// A Hasher hashes a URI that is already normal where it lies, without a
// copy, and allocates nothing once warm. Hasher.Params names everything
// its keys depend on (the key's fingerprint, the level, the options), for
// a persistent seen-set to record and check (seen.Params).
package urikey
