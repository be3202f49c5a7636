module github.com/uriscan/uriscan/bench

go 1.26.0

replace github.com/uriscan/uriscan => ../

require (
	github.com/PuerkitoBio/purell v1.2.1
	github.com/fredbi/uri v1.1.1
	github.com/gomodule/redigo v1.9.3
	github.com/klauspost/cpuid/v2 v2.4.2
	github.com/minio/highwayhash v1.0.4
	github.com/nlnwa/whatwg-url v0.6.2
	github.com/redis/go-redis/v9 v9.23.0
	github.com/redis/rueidis v1.0.80
	github.com/uriscan/uriscan v0.0.0-00010101000000-000000000000
	golang.org/x/sys v0.50.0
	mvdan.cc/xurls/v2 v2.6.0
)

require (
	github.com/bits-and-blooms/bitset v1.24.2 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	golang.org/x/net v0.62.0 // indirect
	golang.org/x/text v0.44.0 // indirect
)
