//go:build uriparser && cgo

package bench

/*
#cgo LDFLAGS: -luriparser
#include <stddef.h>
#include <stdlib.h>
#include <uriparser/Uri.h>

// nbuf is the reusable C output buffer of uriparser-normalize.
typedef struct { char *p; int cap; } nbuf;

static nbuf *nbuf_new(void) { return calloc(1, sizeof(nbuf)); }
static void nbuf_free(nbuf *b) { free(b->p); free(b); }

// normalize_one parses [first, first+n) as a URI-reference, normalizes it
// (uriNormalizeSyntaxA: every component), writes it to b->p (grown as
// needed, NUL-terminated) and frees what the parse allocated. It returns
// the length of the normal form, or -1 when parsing or normalizing fails.
static int normalize_one(const char *first, size_t n, nbuf *b) {
	UriUriA uri;
	const char *errorPos;
	int need, written;
	if (uriParseSingleUriExA(&uri, first, first + n, &errorPos) != URI_SUCCESS) {
		return -1; // uriparser frees the members itself on failure
	}
	if (uriNormalizeSyntaxA(&uri) != URI_SUCCESS ||
	    uriToStringCharsRequiredA(&uri, &need) != URI_SUCCESS) {
		uriFreeUriMembersA(&uri);
		return -1;
	}
	if (need + 1 > b->cap) {
		int cap = need + 1 < 256 ? 256 : 2 * (need + 1);
		char *p = realloc(b->p, (size_t)cap);
		if (p == NULL) {
			uriFreeUriMembersA(&uri);
			return -1;
		}
		b->p = p;
		b->cap = cap;
	}
	if (uriToStringA(b->p, &uri, need + 1, &written) != URI_SUCCESS) {
		uriFreeUriMembersA(&uri);
		return -1;
	}
	uriFreeUriMembersA(&uri);
	return need;
}
*/
import "C"

import (
	"runtime"
	"unsafe"
)

// cbuf owns a C nbuf and frees it when unreachable.
type cbuf struct{ b *C.nbuf }

func newCBuf() *cbuf {
	c := &cbuf{b: C.nbuf_new()}
	runtime.AddCleanup(c, func(b *C.nbuf) { C.nbuf_free(b) }, c.b)
	return c
}

func init() {
	registerNorm(Impl{
		rank: 40, Name: NormBaseline2,
		Desc: "uriparser (C, cgo) uriParseSingleUriExA + uriNormalizeSyntaxA + uriToStringCharsRequiredA/uriToStringA into a reused C buffer + uriFreeUriMembersA, one cgo call per line: RFC 3986 §6.2.2 (no §6.2.3); normalizing copies the URI on the C heap (not in allocs/URL)",
		Prepare: func(c *Corpus) func() int {
			buf := newCBuf()
			return func() (ok int) {
				total := 0
				for _, l := range c.Lines {
					n := int(C.normalize_one((*C.char)(unsafe.Pointer(unsafe.SliceData(l))), C.size_t(len(l)), buf.b))
					if n >= 0 {
						total += n
						ok++
					}
				}
				sink += total
				return ok
			}
		},
		One: func(l []byte) (string, bool) {
			buf := newCBuf()
			n := int(C.normalize_one((*C.char)(unsafe.Pointer(unsafe.SliceData(l))), C.size_t(len(l)), buf.b))
			if n < 0 {
				return "", false
			}
			s := C.GoStringN(buf.b.p, C.int(n))
			runtime.KeepAlive(buf)
			return s, true
		},
	})
}
