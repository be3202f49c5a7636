module github.com/uriscan/uriscan

go 1.26
