package format_test

import (
	"fmt"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/domain"
	"github.com/uriscan/uriscan/format"
)

func Example() {
	icann := func() format.SplitFunc { return domain.NewSplitFunc(domain.ICANN) }
	f, err := format.Compile(`{rdn}\t{path:-1}\t{query:id}\t{default:port}`, icann)
	if err != nil {
		panic(err)
	}
	u, _ := uriscan.ParseString("https://shop.example.co.uk/items/blue%20cup?id=42&ref=home")
	fmt.Printf("%s\n", f.Append(nil, &u))
	// Output:
	// example.co.uk	blue cup	42	443
}
