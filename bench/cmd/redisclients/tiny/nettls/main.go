// Command nettls is a hello world that also links net and crypto/tls, which
// every Redis client needs: the floor under the clients' init cost.
package main

import (
	_ "crypto/tls"
	"fmt"
	_ "net"
)

func main() { fmt.Println("hello, world") }
