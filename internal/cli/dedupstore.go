package cli

import (
	"errors"
	"slices"
	"strings"

	"github.com/uriscan/uriscan/frontier"
	"github.com/uriscan/uriscan/internal/redisurl"
	"github.com/uriscan/uriscan/seen"
)

// rebuildCmd is the command that fills the store spec names with the keys
// of the outputs of the runs that filled another.
func rebuildCmd(spec string) string {
	return "uriscan dedup --store " + spec + " --key-file K [the same level flags] OUTPUTS... >/dev/null"
}

// lostAdvice says what to do about a store that lost keys; resuming: a
// checkpoint records a run (with --output: of output's lines) against it.
func lostAdvice(output string, resuming bool) string {
	others := "rebuild the store from the outputs of the runs that filled it (" + rebuildCmd("NEW") + ")"
	switch {
	case resuming && output != "":
		return "a resume would write again lines --output " + output + " holds. Rerun with --rebuild to add back the keys of its lines and go on (keys of other runs' outputs are not added back: " + others + " first), or remove " + output + " and its checkpoint and start over with a new store"
	case resuming:
		return "a resume would write again lines written before it: " + others + ", or rerun with --rebuild to take the store as it is"
	}
	return "lines it held would be new again: " + others + ", or rerun with --rebuild to take it as it is"
}

// isRewinder reports whether set can be cut back (--rewind-store).
func isRewinder(set seen.Set) bool {
	_, ok := set.(frontier.Rewinder)
	return ok
}

// aheadAdvice says how to recover from a store ahead of the checkpoint
// (frontier.ErrStoreAhead): --rebuild cannot (it only adds keys).
func aheadAdvice(store, output, ckpt string, rewinder bool) string {
	newStore := "rerun with a new store and --rebuild (--store disk:NEWDIR --rebuild: the new store gets the keys of --output " + output + "'s lines and the run goes on; keys that other runs added to the old store are not in it: add their outputs first, " + rebuildCmd("disk:NEWDIR") + ")"
	if output == "" {
		newStore = "rerun with a new store and --rebuild (lines written before the checkpoint are then taken for new again: add the outputs of the runs that filled the old store to the new one first, " + rebuildCmd("disk:NEWDIR") + ")"
	}
	if isRedisURL(store) {
		newStore += " (for Redis, a new store is another --store-prefix, or another database)"
	}
	s := "to recover, put back the newer " + ckpt + " (and its output) if you have them; or " + newStore
	if rewinder {
		s += "; or rerun with --rewind-store to cut this key log back to the checkpoint's batch (the keys of the later batches go)"
	}
	return s + ". --rebuild alone cannot mend it: it only adds keys. Back up an output, its checkpoint and the store together (docs/dedup.md, \"Backups\")"
}

// storeMessage is err from opening the store --store shown, in the
// command's terms where the library's would not do: the settings a store
// was made with are the flags that make them.
func storeMessage(err error, shown string) string {
	var pe *seen.ParamsError
	if errors.As(err, &pe) {
		stored, given := paramFlags(pe.Stored), paramFlags(pe.Given)
		if slices.Equal(stored, given) {
			// What differs has no flag (an entry of an earlier version,
			// the store's format): the store's own words.
			return pe.Error() + " (no flag of this version makes the store's: use another store)"
		}
		return "--store " + shown + " was made with " + strings.Join(without(stored, given), " ") +
			"; this run has " + strings.Join(without(given, stored), " ") + ": rerun with the store's, or use another store"
	}
	return err.Error()
}

// without returns the flags of a that are not in b (or "(no flag)").
func without(a, b []string) []string {
	var out []string
	for _, f := range a {
		if !slices.Contains(b, f) {
			out = append(out, f)
		}
	}
	if out == nil {
		out = []string{"(no flag)"}
	}
	return out
}

// paramFlags writes a store's Params (urikey.Hasher.Params) as the
// flags that make them.
func paramFlags(p seen.Params) []string {
	var f []string
	if lv, ok := p["level"]; ok {
		f = append(f, "--level "+lv)
	}
	raw := p["level"] == "safebrowsing" || p["level"] == "w3lib"
	if hs, ok := p["heuristics"]; ok {
		for _, h := range strings.Split(hs, ",") {
			if h != "strip-params" || p["strip-params"] == "" {
				f = append(f, "--"+h)
			}
		}
	}
	if sp, ok := p["strip-params"]; ok {
		for _, name := range strings.Split(sp, ",") {
			f = append(f, "--strip-param "+name)
		}
	}
	if _, ok := p["dot-segments"]; !ok && !raw {
		f = append(f, "--keep-encoded-dots")
	}
	if _, ok := p["rootless-dots"]; !ok && !raw {
		f = append(f, "--keep-rootless-dots")
	}
	if p["ipv6"] == "rfc5952" {
		f = append(f, "--ipv6-rfc5952")
	}
	if g, ok := p["grammar"]; ok {
		f = append(f, "--grammar "+g)
	}
	if _, ok := p["passwords"]; !ok {
		f = append(f, "--show-passwords")
	}
	if fp, ok := p["key-fingerprint"]; ok {
		f = append(f, "--key-file (the key whose fingerprint is "+fp+")")
	}
	return f
}

// advice is what to do about err from opening the store, or "".
func (st *Stores) advice(err error, output string, resuming bool) string {
	var pe *seen.ParamsError
	switch {
	case st.Damaged != nil && st.Damaged(err):
		if resuming && output != "" {
			return "\nuriscan: dedup: once it is removed, rerun with --rebuild to add back the keys of --output " + output + "'s lines into a new store and go on"
		}
		return "\nuriscan: dedup: once it is removed, rebuild it from the outputs of the runs that filled it (" + rebuildCmd("NEW") + ")"
	case errors.Is(err, seen.ErrLost):
		return "\nuriscan: dedup: the store is not what it was; " + lostAdvice(output, resuming)
	case errors.As(err, &pe):
		return "" // storeMessage says it
	case errors.Is(err, seen.ErrNoParams):
		return "\nuriscan: dedup: nothing says how its keys were made: use another store (--store)"
	}
	return ""
}

// open opens the seen-set a --store value names, recording or
// checking params in a persistent one.
func (st *Stores) open(spec, prefix string, params seen.Params, so StoreOptions) (seen.Set, error) {
	switch {
	case spec == "memory":
		return seen.NewMemory(1 << 16), nil
	case strings.HasPrefix(spec, "disk:"):
		return st.openDisk("disk", spec[5:], params, so)
	case strings.HasPrefix(spec, "pebble:"):
		return st.openDisk("pebble", spec[7:], params, so)
	case isRedisURL(spec):
		return st.OpenRedis(spec, prefix, params, so)
	}
	return nil, errors.New("--store " + redisurl.Redact(spec) + ": want memory, disk:DIR, pebble:DIR, or a redis://, rediss:// or redis+cluster:// URL")
}
