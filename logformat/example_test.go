package logformat_test

import (
	"fmt"

	"github.com/uriscan/uriscan/logformat"
)

// The URI fields of a Combined Log Format line: the request target, the
// referer and the user agent (which may hold a bot's URL), with their
// offsets in the line, escapes decoded.
func ExampleParseCombined() {
	line := []byte(`1.2.3.4 - - [02/Dec/2026:10:00:00 +0000] "GET /a?b=1 HTTP/1.1" 200 512 "https://r.example/x" "Bot/1.0 (+http://bot.example/)"`)
	fields, _, err := logformat.ParseCombined(nil, nil, line)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range fields {
		fmt.Printf("%s at %d: %s\n", f.Name, f.Offset, f.Value)
	}
	// Output:
	// request at 46: /a?b=1
	// referer at 72: https://r.example/x
	// user_agent at 94: Bot/1.0 (+http://bot.example/)
}

// A field of JSON Lines (Caddy, Traefik, Envoy logs), by its dotted path.
func ExampleJSONField() {
	line := []byte(`{"ts":1,"request":{"uri":"/a?b=1","host":"example.com","headers":{"Referer":["https://r.example/"]}}}`)
	fields, _, err := logformat.JSONField(nil, nil, line, "request.uri")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: %s\n", fields[0].Name, fields[0].Value)
	// Output:
	// request.uri: /a?b=1
}
