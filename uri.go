package uriscan

import (
	"strconv"
	"unsafe"
)

// Component names one part of a URI-reference (RFC 3986 §3).
type Component uint8

// The components of a URI-reference, in the order they appear in it.
const (
	Scheme Component = iota
	Userinfo
	Host
	Port
	Path
	Query
	Fragment
	numComponents
)

var componentNames = [numComponents]string{"scheme", "userinfo", "host", "port", "path", "query", "fragment"}

// String returns the component's lower-case name as the RFC spells it
// ("scheme", "userinfo", …).
func (c Component) String() string {
	if c < numComponents {
		return componentNames[c]
	}
	return "component(" + strconv.Itoa(int(c)) + ")"
}

// HostType says which alternative of RFC 3986 §3.2.2
// host = IP-literal / IPv4address / reg-name matched.
type HostType uint8

const (
	// NoHost: the reference has no authority, so no host.
	NoHost HostType = iota
	// RegName is reg-name = *( unreserved / pct-encoded / sub-delims ), possibly empty.
	RegName
	// IPv4 is IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet.
	IPv4
	// IPv6 is an IP-literal holding an IPv6address.
	IPv6
	// IPvFuture is an IP-literal holding IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ).
	IPvFuture
)

var hostTypeNames = [...]string{"none", "reg-name", "ipv4", "ipv6", "ipvfuture"}

// String returns "reg-name", "ipv4", "ipv6", "ipvfuture", or "none".
func (h HostType) String() string {
	if int(h) < len(hostTypeNames) {
		return hostTypeNames[h]
	}
	return "hosttype(" + strconv.Itoa(int(h)) + ")"
}

type span struct{ start, end int32 }

// URI is a parsed URI-reference: offsets into the bytes it was parsed from.
// It holds no copy of them: a URI from Parse aliases the caller's slice
// (do not modify the slice while the URI is in use), one from ParseString
// aliases the string. The zero URI is the empty relative reference "".
//
// Every component is either undefined or defined, possibly empty:
// "http://h?" has an empty query, "http://h" has none; "http://h:" has an
// empty port. Components are returned exactly as written (still
// percent-encoded; IP-literal hosts keep their brackets).
type URI struct {
	src string // the text the spans index: the input, or a LineScanner's buffer
	uriFields
}

// uriFields is a URI without its text: offsets and flags only, so the
// batch assembly writes them (fastbatch_amd64.s knows this layout; a test
// checks it) and a LineScanner copies them into its URI with no pointer.
type uriFields struct {
	start, end int32 // the reference is src[start:end]
	spans      [numComponents]span
	defined    uint8 // bit c set when component c is defined
	hostType   HostType
	portOK     bool // port fits in 16 bits
	port       uint16
	grammar    Grammar // the grammar that parsed it (rfc2396.go); RFC3986 is 0, as the batch assembly leaves it
}

// String returns the text the URI was parsed from.
func (u *URI) String() string { return u.src[u.start:u.end] }

// Has reports whether component c is defined (present, possibly empty).
func (u *URI) Has(c Component) bool { return c < numComponents && u.defined&(1<<c) != 0 }

// Get returns component c as written, or "" when it is undefined; use Has
// to tell an empty component from an undefined one.
func (u *URI) Get(c Component) string {
	if !u.Has(c) {
		return ""
	}
	s := u.spans[c]
	return u.src[s.start:s.end]
}

// Span returns the byte offsets of component c in the parsed input, so a
// caller holding the original []byte can sub-slice it without copying.
// ok is false when c is undefined.
func (u *URI) Span(c Component) (start, end int, ok bool) {
	if !u.Has(c) {
		return 0, 0, false
	}
	s := u.spans[c]
	return int(s.start - u.start), int(s.end - u.start), true
}

// Scheme returns the scheme without its ":" ("" if undefined).
func (u *URI) Scheme() string { return u.Get(Scheme) }

// Userinfo returns the userinfo without its "@" ("" if undefined).
func (u *URI) Userinfo() string { return u.Get(Userinfo) }

// Host returns the host; an IP-literal keeps its brackets ("" if undefined).
func (u *URI) Host() string { return u.Get(Host) }

// Port returns the port digits without the ":" ("" if undefined).
func (u *URI) Port() string { return u.Get(Port) }

// Path returns the path, which is always defined (possibly empty).
func (u *URI) Path() string { return u.Get(Path) }

// Query returns the query without its "?" ("" if undefined).
func (u *URI) Query() string { return u.Get(Query) }

// Fragment returns the fragment without its "#" ("" if undefined).
func (u *URI) Fragment() string { return u.Get(Fragment) }

// HasAuthority reports whether the reference has an authority ("//" …);
// then Host is defined, possibly empty as in "file:///etc".
func (u *URI) HasAuthority() bool { return u.Has(Host) }

// Authority returns the authority ("" if undefined):
// [ userinfo "@" ] host [ ":" port ].
func (u *URI) Authority() string {
	if !u.Has(Host) {
		return ""
	}
	start := u.spans[Host].start
	if u.Has(Userinfo) {
		start = u.spans[Userinfo].start
	}
	end := u.spans[Host].end
	if u.Has(Port) {
		end = u.spans[Port].end
	}
	return u.src[start:end]
}

// HostType returns which kind of host the authority holds.
func (u *URI) HostType() HostType { return u.hostType }

// Grammar returns the grammar u was parsed with: RFC2396 for a URI from
// RFC2396.Parse, else RFC3986.
func (u *URI) Grammar() Grammar { return u.grammar }

// PortNumber returns the port as a number. ok is false when the port is
// undefined, empty, or larger than 65535 (port = *DIGIT allows any length).
func (u *URI) PortNumber() (port uint16, ok bool) { return u.port, u.portOK }

// IsAbsolute reports whether the reference has a scheme (RFC 3986 §4.3
// absolute-URI additionally has no fragment; §4.2 relative-ref has no scheme).
func (u *URI) IsAbsolute() bool { return u.Has(Scheme) }

func (u *URI) set(c Component, start, end int) {
	u.spans[c] = span{int32(start), int32(end)}
	u.defined |= 1 << c
}

// bytesToString aliases b as a string without copying. The caller of Parse
// promises not to modify b while the URI is in use.
func bytesToString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
