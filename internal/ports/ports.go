// Package ports is the one default-port table of uriscan: the schemes
// whose port a normal form drops when it equals the scheme's default
// (normalize's Scheme and Crawler levels, SURT's subset) and the port
// format's {port} gives when a URI has none. It is a leaf, so that a
// package that needs the table (format) does not link the normalizer.
// Add a scheme here and nowhere else.
package ports

// table maps a lowercase scheme to its default port.
var table = map[string]string{
	"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21",
	"gopher": "70", "telnet": "23", "ldap": "389", "ldaps": "636",
	"nntp": "119", "rtsp": "554", "ssh": "22", "sftp": "22", "imap": "143",
	"pop": "110", "sip": "5060", "sips": "5061", "xmpp": "5222",
	"tftp": "69",
}

// Default returns the default port of a lowercase scheme, and whether the
// table has one (normalize.DefaultPort says why each is there).
func Default(scheme string) (string, bool) {
	p, ok := table[scheme]
	return p, ok
}

// Each calls f for every scheme of the table and its port, in no order.
func Each(f func(scheme, port string)) {
	for s, p := range table {
		f(s, p)
	}
}
