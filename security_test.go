package uriscan

import (
	"net/netip"
	"strings"
	"testing"
)

// TestWarnings: every §7 warning, positive and negative cases, each with
// the exact set of warnings the URI raises.
func TestWarnings(t *testing.T) {
	cases := []struct {
		in   string
		want Warnings
		ipv4 string // RareIPv4's address, "" for none
	}{
		// §7.4 rare IP forms in a reg-name.
		{"http://0x7f.1/", RareIPv4, "127.0.0.1"},
		{"http://2130706433/", RareIPv4, "127.0.0.1"},
		{"http://127.1/", RareIPv4, "127.0.0.1"},
		{"http://0177.0.0.1/", RareIPv4, "127.0.0.1"},
		{"http://0x7F000001/", RareIPv4, "127.0.0.1"},
		{"http://127.0.0.1./", RareIPv4, "127.0.0.1"},
		{"http://%31%32%37.0.0.1/", RareIPv4, "127.0.0.1"},
		{"http://0/", RareIPv4, "0.0.0.0"},
		{"http://10.1.65535/", RareIPv4, "10.1.255.255"},
		{"http://0x/", RareIPv4, "0.0.0.0"},
		{"http://127.0.0.1/", 0, ""},   // IPv4address: host type ipv4, not a reg-name
		{"http://127.0.0.256/", 0, ""}, // last part over 255 with four parts: not an address
		{"http://4294967296/", 0, ""},  // over 2^32-1
		{"http://1.2.3.4.5/", 0, ""},   // five parts
		{"http://1..2/", 0, ""},        // an empty part
		{"http://08.1/", 0, ""},        // 8 is not an octal digit
		{"http://0x7g.1/", 0, ""},      // nor g a hex one
		{"http://example.com/", 0, ""}, // a name
		{"http://1.2.3.com/", 0, ""},   // ends in a label, not a number
		{"http://256.1/", 0, ""},       // a part before the last over 255
		{"http://[::1]/", 0, ""},       // IP-literal
		{"http://127.1.:80/x", RareIPv4, "127.0.0.1"},
		// Leading zeros without limit: a 64-byte buffer once missed these.
		{"http://" + strings.Repeat("0", 80) + "177.0.0.1/", RareIPv4, "127.0.0.1"},
		{"http://0x" + strings.Repeat("0", 80) + "7f.1/", RareIPv4, "127.0.0.1"},
		{"http://" + strings.Repeat("%30", 30) + "177.1/", RareIPv4, "127.0.0.1"},
		// Characters UTS #46 maps to digits and dots, as browsers do first.
		{"http://%EF%BC%91%EF%BC%92%EF%BC%97.0.0.1/", RareIPv4, "127.0.0.1"},      // fullwidth "１２７"
		{"http://127%E3%80%820%E3%80%820%E3%80%821/", RareIPv4, "127.0.0.1"},      // ideographic full stops
		{"http://%EF%BC%90%EF%BD%98%EF%BC%97%EF%BD%86.1/", RareIPv4, "127.0.0.1"}, // fullwidth "０ｘ７ｆ"
		{"http://1%C2%AD27.1/", RareIPv4, "127.0.0.1"},                            // a soft hyphen, mapped to nothing
		{"http://%EF%BC%91.2.3.4.5/", 0, ""},                                      // five parts, mapped or not
		{"http://%D9%A1%D9%A2%D9%A7.1/", 0, ""},                                   // Arabic-Indic digits: not mapped, a name
		{"http://%EF%BC%91%FF.1/", HostNotUTF8, ""},                               // not UTF-8: no address
		{"http://%E4%BE%8B.1/", 0, ""},                                            // 例.1: ends in a number, but not an address
		// §7.5 a password in userinfo.
		{"http://user:secret@h/", Password, ""},
		{"http://user:@h/", 0, ""}, // ":" and nothing after: no password
		{"http://user@h/", 0, ""},  // no ":"
		{"http://:pw@h/", Password, ""},
		// §7.6 userinfo that looks like a host.
		{"http://www.example.com@evil.test/", UserinfoLikeHost, ""},
		{"http://example.com:pw@evil.test/", UserinfoLikeHost | Password, ""},
		{"http://10.0.0.1@evil.test/", UserinfoLikeHost, ""},
		{"http://john.smith@h/", UserinfoLikeHost, ""}, // two labels, the last a letter: it does look like one
		{"http://john@h/", 0, ""},
		{"http://a.1@h/", 0, ""},  // last label starts with a digit
		{"http://a..b@h/", 0, ""}, // empty label
		{"http://-a.b@h/", 0, ""}, // hyphen at a label's start
		// §7.6 host bytes that are not UTF-8, mixed scripts.
		{"http://%FF.example/", HostNotUTF8, ""},
		{"http://caf%C3%A9.example/", 0, ""},                                           // UTF-8, one script
		{"http://p%D0%B0ypal.com/", MixedScript, ""},                                   // Latin and Cyrillic а
		{"http://xn--pypal-4ve.com/", MixedScript, ""},                                 // the same, as an A-label
		{"http://xn--bcher-kva.example/", 0, ""},                                       // bücher: Latin
		{"http://%E6%97%A5%E6%9C%AC%E3%81%AE.jp/", 0, ""},                              // 日本の: Han and Hiragana (Japanese)
		{"http://" + strings.Repeat("a", 255) + "%C3%A9%FF.example/", HostNotUTF8, ""}, // past a 256-byte buffer
		{"http://" + strings.Repeat("a", 255) + "%D0%B0.example/", MixedScript, ""},
		{"http://abc%E6%97%A5.jp/", 0, ""},                // Latin with Han
		{"http://%D0%B0%CE%B1.example/", MixedScript, ""}, // Cyrillic and Greek
		{"http://%D1%80%D1%84.example/", 0, ""},           // рф: Cyrillic alone
		{"http://%D1%80%D1%84.com/", 0, ""},               // labels are checked one by one
		{"http://Xn--%80/", HostNotUTF8, ""},              // an "xn--" label is decoded first (found by FuzzWarnings)
		{"http://xn--%C3%A9/", 0, ""},                     // decoded "xn--é": UTF-8, not Punycode
		{"http://%78n--pypal-4ve.com/", MixedScript, ""},  // decoded, an A-label: xn--pypal-4ve
		// §7.3 back-end transcoding in the path.
		{"http://h/a%00b", EncodedNUL, ""},
		{"http://h/a%2Fb", EncodedSlash, ""},
		{"http://h/a%2fb", EncodedSlash, ""},
		{"http://h/a%5Cb", EncodedBackslash, ""},
		{"http://h/a/%2E%2E/b", EncodedDotSegment, ""},
		{"http://h/a/.%2e/b", EncodedDotSegment, ""},
		{"http://h/%2e", EncodedDotSegment, ""},
		{"http://h/a/../b", 0, ""},        // written as dots: remove_dot_segments handles it
		{"http://h/a/%2E%2E%2E/b", 0, ""}, // three dots: a name
		{"http://h/a?x=%00%2F", 0, ""},    // the query is not the path
		{"http://h/a%41b", 0, ""},
		{"%2e%2e/x", EncodedDotSegment, ""}, // relative references too
		// Several at once.
		{"http://www.bank.com:pw@0x7f.1/%2E%2E/%00", RareIPv4 | Password | UserinfoLikeHost | EncodedDotSegment | EncodedNUL, "127.0.0.1"},
	}
	for _, c := range cases {
		u, err := ParseString(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		if got := u.Warnings(); got != c.want {
			t.Errorf("%q: warnings %q, want %q", c.in, got, c.want)
		}
		a, ok := u.RareIPv4()
		if c.ipv4 == "" {
			if ok {
				t.Errorf("%q: RareIPv4 = %v, want none", c.in, a)
			}
		} else if !ok || a != netip.MustParseAddr(c.ipv4) {
			t.Errorf("%q: RareIPv4 = %v %v, want %s", c.in, a, ok, c.ipv4)
		}
	}
}

func TestWarningNames(t *testing.T) {
	seen := map[string]bool{}
	for i := range NumWarnings {
		w := Warnings(1) << i
		n := w.Name()
		if n == "" || seen[n] {
			t.Errorf("bit %d: name %q", i, n)
		}
		seen[n] = true
		if w.String() != n {
			t.Errorf("bit %d: String %q, Name %q", i, w.String(), n)
		}
	}
	if (Password|RareIPv4).Name() != "" || (Password|RareIPv4).String() != "rare-ipv4,password" {
		t.Errorf("two bits: %q %q", (Password | RareIPv4).Name(), (Password | RareIPv4).String())
	}
}

func TestPasswordSpan(t *testing.T) {
	for _, c := range []struct{ in, pw string }{
		{"http://u:secret@h/", "secret"},
		{"http://u:a:b@h/", "a:b"},
		{"http://u:@h/", ""},
		{"http://u@h/", ""},
		{"http://h/:x@y", ""},
		{"mailto:u:x@h", ""},
	} {
		u, err := ParseString(c.in)
		if err != nil {
			t.Fatal(err)
		}
		s, e, ok := u.PasswordSpan()
		if ok != (c.pw != "") || ok && c.in[s:e] != c.pw {
			t.Errorf("%q: span %d:%d %v, want %q", c.in, s, e, ok, c.pw)
		}
	}
}

// TestPasswordSpan2396: an RFC 2396 registry-based authority has no
// userinfo component, but the password a reader sees before its last "@"
// is given, warned about and redacted like a userinfo's; a server-based
// one is read as under RFC 3986.
func TestPasswordSpan2396(t *testing.T) {
	for _, c := range []struct{ in, pw string }{
		{"//u:pw@a_b:80/p", "pw"},          // "a_b" is no hostname: a reg_name
		{"http://u:p@q@h/x", "p@q"},        // two "@": a reg_name; the last one ends the userinfo
		{"http://www.x.com:pw@a_b/", "pw"}, // and userinfo-like-host
		{"//u@a_b/", ""},
		{"//u:@a_b/", ""},
		{"//a_b:80/", ""},
		{"http://u:pw@h.example/", "pw"}, // server-based
	} {
		u, err := RFC2396.ParseString(c.in)
		if err != nil {
			t.Fatalf("%q: %v", c.in, err)
		}
		s, e, ok := u.PasswordSpan()
		if ok != (c.pw != "") || ok && c.in[s:e] != c.pw {
			t.Errorf("%q: span %d:%d %v, want %q", c.in, s, e, ok, c.pw)
		}
		if w := u.Warnings(); (w&Password != 0) != ok {
			t.Errorf("%q: warnings %v, password %v", c.in, w, ok)
		}
		if fs, fe, fok := FindPassword([]byte(c.in)); fok != ok || ok && (fs != s || fe != e) {
			t.Errorf("%q: FindPassword %d:%d %v, PasswordSpan %d:%d %v", c.in, fs, fe, fok, s, e, ok)
		}
	}
	u, _ := RFC2396.ParseString("http://www.x.com:pw@a_b/")
	if w := u.Warnings(); w&UserinfoLikeHost == 0 {
		t.Errorf("userinfo-like-host not raised in a reg_name: %v", w)
	}
}

func TestWarningsZeroAllocs(t *testing.T) {
	u, _ := ParseString("http://www.bank.com:pw@0x7f.1/%2E%2E/%00?q#f")
	v, _ := ParseString("http://p%D0%B0ypal.com/a%2Fb")
	if n := testing.AllocsPerRun(100, func() { _ = u.Warnings() | v.Warnings() }); n != 0 {
		t.Errorf("Warnings allocates %v times", n)
	}
}

func TestAppendRedacted(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"http://u:p@h/", "http://u:***@h/"},
		{"http://u:secret:more@h:80/x?y#z", "http://u:***@h:80/x?y#z"},
		{"http://u:p@q@h/x", "http://u:***@h/x"}, // the userinfo ends at the last "@"
		{"//u:p@h", "//u:***@h"},
		{"http://u@h/", "http://u@h/"},
		{"http://u:@h/", "http://u:@h/"},
		{"http://h/a:b@c", "http://h/a:b@c"}, // "@" in the path
		{"http://h?u:p@h", "http://h?u:p@h"},
		{"mailto:u:p@h", "mailto:u:p@h"}, // no authority
		{"a?//u:p@h", "a?//u:p@h"},
		// What a reader takes for the userinfo, whatever it holds: up to
		// the last "@" before the first "/", "?" or "#".
		{"http://us er:p@h/", "http://us er:***@h/"},
		{"http://u:S3cr3t PW@h/", "http://u:***@h/"},
		{"http://u:a\\b@h/", "http://u:***@h/"},
		{"http://u:a\"b@h/", "http://u:***@h/"},
		{"http://u:a%b@h/", "http://u:***@h/"},
		{"http://u:a\tb@h/", "http://u:***@h/"},
		{"http://u:a\xff\xfeb@h/", "http://u:***@h/"},
		{"http://u:a@b@h/", "http://u:***@h/"},
		{"http://u@v:pw@h/", "http://u@v:***@h/"},  // the userinfo's first ":"
		{"http://u:pw@h\\x@y/", "http://u:***@y/"}, // a backslash ends no authority
		{"http://h/u:pw@x", "http://h/u:pw@x"},     // an "@" after the first "/"
		{"http://h p/x:y@z", "http://h p/x:y@z"},
		{"GET http://u:S3 PW@h/ HTTP/1.1", "GET http://u:***@h/ HTTP/1.1"}, // the first "://"
		{"[1/Oct/2000:13:55] \"GET http://u:p@h/\"", "[1/Oct/2000:13:55] \"GET http://u:***@h/\""},
		{"x?y://u:p@h", "x?y://u:p@h"},               // "://" in a query
		{"http://h/x://u:p@y", "http://h/x://u:p@y"}, // only the first "://"
		{"//u:p w@h", "//u:***@h"},
		{" //u:p@h", " //u:p@h"},
		{"ht tp://u:pw@h/%zz", "ht tp://u:***@h/%zz"}, // invalid text is redacted too
		{"a:b//u:p@h", "a:b//u:p@h"},                  // a path, not an authority: "//" not after a ":"
		{"a:b://u:p@h", "a:b://u:***@h"},              // a path that embeds "://": redacted all the same
		{"Referer: http://u:p@h/", "Referer: http://u:***@h/"},
		{"x/y//u:p@h", "x/y//u:p@h"},       // nor at the start
		{"HTTP://u:p@h", "HTTP://u:***@h"}, // any scheme
		{"ht%tp://u:pw@h", "ht%tp://u:***@h"},
		{"", ""},
	} {
		if got := string(AppendRedacted([]byte("<"), []byte(c.in))); got != "<"+c.want {
			t.Errorf("AppendRedacted(%q) = %q, want %q", c.in, got[1:], c.want)
		}
		if s, e, ok := FindPassword([]byte(c.in)); ok != (c.in != c.want) || ok && c.in[:s]+Redacted+c.in[e:] != c.want {
			t.Errorf("FindPassword(%q) = %d, %d, %v", c.in, s, e, ok)
		}
	}
	// Neither allocates (AppendRedacted once dst has room).
	text, dst := []byte("GET http://u:S3 PW@h/ HTTP/1.1"), make([]byte, 0, 64)
	if n := testing.AllocsPerRun(100, func() { _, _, _ = FindPassword(text); dst = AppendRedacted(dst[:0], text) }); n != 0 {
		t.Errorf("FindPassword and AppendRedacted allocate %v times", n)
	}
}
