// Command goredis is a hello world that links go-redis
// (github.com/redis/go-redis/v9) and does nothing with it: its init work is
// the client's cost to a process that never talks to Redis.
package main

import (
	"fmt"

	_ "github.com/redis/go-redis/v9"
)

func main() { fmt.Println("hello, world") }
