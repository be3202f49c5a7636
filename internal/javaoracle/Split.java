// Split prints, for each line of each FILE, what java.net.URI makes of it,
// as one JSON object a line with the fields "uriscan split" prints:
//
//   {"valid":true,"scheme":…,"userinfo":…,"host":…,"port":…,"path":…,"query":…,"fragment":…,"registry":…}
//   {"valid":false,"error":{"index":N,"reason":"…"}}
//
// Run it as a single-file source program (Java 11 or later):
//
//   java internal/javaoracle/Split.java FILE...
//
// Lines end at "\n"; one "\r" before it is dropped, and there is no line
// after a final "\n". Each line is decoded as UTF-8 (a malformed sequence
// becomes U+FFFD, as java.nio does) and given to new URI(String), which
// follows RFC 2396 and RFC 2732.
//
// The components are the raw (still escaped) getters, null when undefined:
// scheme getScheme; for an opaque URI the path is getRawSchemeSpecificPart
// and nothing else but the fragment is defined; for a server-based authority
// userinfo getRawUserInfo, host getHost (an IPv6 literal with its
// brackets), port the text after the host's ":" in getRawAuthority ("" for
// "h:", which getPort reports as -1 like no port at all); for a
// registry-based authority ("registry":true) host getRawAuthority, with
// no userinfo or port; path getRawPath, query getRawQuery, fragment
// getRawFragment. An error gives URISyntaxException's getIndex (in UTF-16
// units) and getReason. Non-ASCII characters are written as \\uXXXX.
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

public class Split {
    public static void main(String[] args) throws IOException {
        BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.US_ASCII), 1 << 16);
        StringBuilder b = new StringBuilder();
        for (String file : args) {
            byte[] data = Files.readAllBytes(Paths.get(file));
            int start = 0;
            for (int i = 0; i <= data.length; i++) {
                if (i < data.length && data[i] != '\n') {
                    continue;
                }
                if (i == data.length && start == i) {
                    break; // nothing after the final "\n"
                }
                int end = i;
                if (end > start && data[end - 1] == '\r') {
                    end--;
                }
                b.setLength(0);
                split(b, new String(data, start, end - start, StandardCharsets.UTF_8));
                b.append('\n');
                out.append(b);
                start = i + 1;
            }
        }
        out.flush();
    }

    static void split(StringBuilder b, String line) {
        URI u;
        try {
            u = new URI(line);
        } catch (URISyntaxException e) {
            b.append("{\"valid\":false,\"error\":{\"index\":").append(e.getIndex()).append(",\"reason\":");
            string(b, e.getReason());
            b.append("}}");
            return;
        }
        String userinfo = null, host = null, port = null, path, query = null;
        boolean registry = false;
        if (u.isOpaque()) {
            path = u.getRawSchemeSpecificPart();
        } else {
            path = u.getRawPath();
            query = u.getRawQuery();
            String authority = u.getRawAuthority();
            if (u.getHost() != null) {
                host = u.getHost();
                userinfo = u.getRawUserInfo();
                int off = (userinfo != null ? userinfo.length() + 1 : 0) + host.length();
                if (off < authority.length() && authority.charAt(off) == ':') {
                    port = authority.substring(off + 1);
                }
            } else if (authority != null) {
                host = authority;
                registry = true;
            }
        }
        b.append("{\"valid\":true,\"scheme\":");
        string(b, u.getScheme());
        b.append(",\"userinfo\":");
        string(b, userinfo);
        b.append(",\"host\":");
        string(b, host);
        b.append(",\"port\":");
        string(b, port);
        b.append(",\"path\":");
        string(b, path);
        b.append(",\"query\":");
        string(b, query);
        b.append(",\"fragment\":");
        string(b, u.getRawFragment());
        b.append(",\"registry\":").append(registry).append('}');
    }

    // string appends s as a JSON string (RFC 8259 §7), or null.
    static void string(StringBuilder b, String s) {
        if (s == null) {
            b.append("null");
            return;
        }
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c >= 0x7f) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        b.append('"');
    }
}
