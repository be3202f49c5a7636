package normalize

import (
	"unsafe"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/normalize/compat"
)

// Raw reports whether the level reads the text of a line as its owner
// does, not an RFC 3986 parse: SafeBrowsing and W3lib canonicalize any
// bytes (a space, a raw non-ASCII byte, a "\" become escapes or are read
// as the owner reads them), where the RFC levels take only URIs that
// parse.
func (l Level) Raw() bool { return l == SafeBrowsing || l == W3lib }

// AppendRaw appends the canonical form of the text raw at level to dst.
// At SafeBrowsing and W3lib it is compat.AppendSafeBrowsing and
// compat.AppendW3lib (with n.W3lib's options): any bytes, and the error is
// the owner's (no host, say). At the RFC levels raw must parse as an RFC
// 3986 URI-reference (the error is the parse's *uriscan.Error) and the
// result is Append's.
func (n *Normalizer) AppendRaw(dst, raw []byte, level Level) ([]byte, error) {
	switch level {
	case SafeBrowsing:
		return compat.AppendSafeBrowsing(dst, raw)
	case W3lib:
		return compat.AppendW3lib(dst, raw, n.W3lib)
	}
	u, err := uriscan.Parse(raw)
	if err != nil {
		return dst, err
	}
	return n.Append(dst, &u, level), nil
}

// appendRawOrScheme is Append at a Raw level for a URI that parsed: its
// text canonicalized by the level's owner, or, when the owner refuses it
// (a URI with no host, say "mailto:a@b" under Safe Browsing), its Scheme
// normal form, so that every URI has one.
func (n *Normalizer) appendRawOrScheme(dst []byte, u *uriscan.URI, level Level) []byte {
	text := u.String()
	if out, err := n.AppendRaw(dst, unsafe.Slice(unsafe.StringData(text), len(text)), level); err == nil {
		return out
	}
	return n.appendScheme(dst, u, Scheme)
}
