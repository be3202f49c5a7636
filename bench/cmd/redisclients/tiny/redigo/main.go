// Command redigo is a hello world that links redigo
// (github.com/gomodule/redigo/redis) and does nothing with it: its init
// work is the client's cost to a process that never talks to Redis.
package main

import (
	"fmt"

	_ "github.com/gomodule/redigo/redis"
)

func main() { fmt.Println("hello, world") }
