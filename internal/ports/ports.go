// Package ports is the one default-port table of uriscan: the schemes
// whose port a normal form drops when it equals the scheme's default
// (normalize's Scheme and Crawler levels, SURT's subset) and the port
// format's {port} gives when a URI has none. It is a leaf, so that a
// package that needs the table (format) does not link the normalizer.
// Add a scheme here and nowhere else.
//
// The table is an array, not a map: a map literal is built by the
// package's init, in every process, whether it looks a port up or not.
package ports

// schemes is the table: each scheme (lowercase) and its default port,
// the schemes of most URIs first (a look-up walks it in order).
var schemes = [...]struct{ scheme, port string }{
	{"http", "80"}, {"https", "443"}, {"ws", "80"}, {"wss", "443"}, {"ftp", "21"},
	{"gopher", "70"}, {"telnet", "23"}, {"ldap", "389"}, {"ldaps", "636"},
	{"nntp", "119"}, {"rtsp", "554"}, {"ssh", "22"}, {"sftp", "22"}, {"imap", "143"},
	{"pop", "110"}, {"sip", "5060"}, {"sips", "5061"}, {"xmpp", "5222"},
	{"tftp", "69"},
}

// Default returns the default port of a lowercase scheme, and whether the
// table has one (normalize.DefaultPort says why each is there). http and
// https, first, are found in one or two comparisons.
func Default(scheme string) (string, bool) {
	for i := range schemes {
		if schemes[i].scheme == scheme {
			return schemes[i].port, true
		}
	}
	return "", false
}

// Each calls f for every scheme of the table and its port, in the
// table's order.
func Each(f func(scheme, port string)) {
	for _, s := range schemes {
		f(s.scheme, s.port)
	}
}
