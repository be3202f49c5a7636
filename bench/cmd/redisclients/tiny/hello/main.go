// Command hello is the baseline of redisclients init: a Go hello world.
package main

import "fmt"

func main() { fmt.Println("hello, world") }
