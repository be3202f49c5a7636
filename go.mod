module github.com/uriscan/uriscan

go 1.26.0

require golang.org/x/sys v0.50.0

require github.com/klauspost/cpuid/v2 v2.4.2

require github.com/minio/highwayhash v1.0.4
