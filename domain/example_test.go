package domain_test

import (
	"fmt"

	"github.com/uriscan/uriscan/domain"
)

func Example() {
	for _, host := range []string{"www.example.co.uk", "user.github.io", "localhost"} {
		p, ok := domain.Split(host, domain.ICANN)
		fmt.Printf("%s: %q %q %q %v\n", host, p.Subdomain, p.Registrable, p.Suffix, ok)
	}
	p, _ := domain.Split("user.github.io", domain.Private)
	fmt.Printf("with private suffixes: %q\n", p.Registrable)
	// Output:
	// www.example.co.uk: "www" "example.co.uk" "co.uk" true
	// user.github.io: "user" "github.io" "io" true
	// localhost: "" "" "" false
	// with private suffixes: "user.github.io"
}
