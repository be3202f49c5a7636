// Package ports is the one default-port table of uriscan: the schemes
// whose port a normal form drops when it equals the scheme's default
// (normalize's Scheme and Crawler levels, SURT's subset) and the port
// format's {port} gives when a URI has none. It is a leaf, so that a
// package that needs the table (format) does not link the normalizer.
// Add a scheme here and nowhere else.
//
// The table is a switch and a list, not a map: a map literal is built by
// the package's init, in every process, whether it looks a port up or not.
package ports

// schemes lists the table: each scheme (lowercase) and its default port,
// in the order Each gives them. Default's switch holds the same pairs
// (TestTable holds them equal).
var schemes = [...]struct{ scheme, port string }{
	{"http", "80"}, {"https", "443"}, {"ws", "80"}, {"wss", "443"}, {"ftp", "21"},
	{"gopher", "70"}, {"telnet", "23"}, {"ldap", "389"}, {"ldaps", "636"},
	{"nntp", "119"}, {"rtsp", "554"}, {"ssh", "22"}, {"sftp", "22"}, {"imap", "143"},
	{"pop", "110"}, {"sip", "5060"}, {"sips", "5061"}, {"xmpp", "5222"},
	{"tftp", "69"},
}

// Default returns the default port of a lowercase scheme, and whether the
// table has one (normalize.DefaultPort says why each is there).
func Default(scheme string) (string, bool) {
	switch scheme {
	case "http", "ws":
		return "80", true
	case "https", "wss":
		return "443", true
	case "ftp":
		return "21", true
	case "gopher":
		return "70", true
	case "telnet":
		return "23", true
	case "ldap":
		return "389", true
	case "ldaps":
		return "636", true
	case "nntp":
		return "119", true
	case "rtsp":
		return "554", true
	case "ssh", "sftp":
		return "22", true
	case "imap":
		return "143", true
	case "pop":
		return "110", true
	case "sip":
		return "5060", true
	case "sips":
		return "5061", true
	case "xmpp":
		return "5222", true
	case "tftp":
		return "69", true
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
