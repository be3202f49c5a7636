// Command rueidis is a hello world that links rueidis
// (github.com/redis/rueidis) and does nothing with it: its init work is the
// client's cost to a process that never talks to Redis.
package main

import (
	"fmt"

	_ "github.com/redis/rueidis"
)

func main() { fmt.Println("hello, world") }
