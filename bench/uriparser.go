//go:build uriparser && cgo

package bench

/*
#cgo LDFLAGS: -luriparser
#include <stddef.h>
#include <uriparser/Uri.h>

// parse_one parses [first, first+n) as a URI-reference and frees what the
// parse allocated. uriParseSingleUriExA is uriParseSingleUriA with an end
// pointer instead of a NUL terminator, so Go memory is parsed in place.
static int parse_one(const char *first, size_t n) {
	UriUriA uri;
	const char *errorPos;
	if (uriParseSingleUriExA(&uri, first, first + n, &errorPos) != URI_SUCCESS) {
		return 0; // uriparser frees the members itself on failure
	}
	uriFreeUriMembersA(&uri);
	return 1;
}

// parse_all parses n records laid end to end in buf, record i ending at
// ends[i] and the next starting one byte later (after its "\n"); it
// returns how many were accepted. One cgo call for a whole corpus.
static int parse_all(const char *buf, const int *ends, int n) {
	int ok = 0, start = 0;
	for (int i = 0; i < n; i++) {
		ok += parse_one(buf + start, (size_t)(ends[i] - start));
		start = ends[i] + 1;
	}
	return ok;
}
*/
import "C"

import "unsafe"

func init() {
	register(Impl{
		rank: 40, Name: "uriparser",
		Desc: "uriparser (C, cgo) uriParseSingleUriExA + uriFreeUriMembersA, one cgo call per line: strict RFC 3986 URI-reference; allocates on the C heap (not counted)",
		Prepare: func(c *Corpus) func() int {
			return func() (ok int) {
				for _, l := range c.Lines {
					ok += int(C.parse_one((*C.char)(unsafe.Pointer(unsafe.SliceData(l))), C.size_t(len(l))))
				}
				return ok
			}
		},
	})
	register(Impl{
		rank: 41, Name: "uriparser-c-loop",
		Desc: "uriparser as above, the loop over lines in C: one cgo call per corpus, so no per-line cgo overhead",
		Prepare: func(c *Corpus) func() int {
			ends := make([]C.int, len(c.Lines))
			off := 0
			for i, l := range c.Lines {
				off += len(l)
				ends[i] = C.int(off)
				off++ // "\n"
			}
			return func() int {
				if len(ends) == 0 {
					return 0
				}
				return int(C.parse_all((*C.char)(unsafe.Pointer(unsafe.SliceData(c.Joined))), unsafe.SliceData(ends), C.int(len(ends))))
			}
		},
	})
}
