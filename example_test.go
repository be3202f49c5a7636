package uriscan_test

import (
	"errors"
	"fmt"

	"github.com/uriscan/uriscan"
)

func ExampleParseString() {
	u, err := uriscan.ParseString("foo://user@example.com:8042/over/there?name=ferret#nose")
	if err != nil {
		panic(err)
	}
	port, _ := u.PortNumber()
	fmt.Println(u.Scheme(), u.Userinfo(), u.Host(), u.HostType(), port, u.Path(), u.Query(), u.Fragment())
	// Output: foo user example.com reg-name 8042 /over/there name=ferret nose
}

func ExampleParse() {
	line := []byte("http://[2001:db8::7]/c=GB?")
	u, err := uriscan.Parse(line) // u refers to line: no copy, no allocation
	if err != nil {
		panic(err)
	}
	start, end, _ := u.Span(uriscan.Host)
	fmt.Printf("%s %v\n", line[start:end], u.HostType())
	fmt.Printf("query defined=%v %q, fragment defined=%v\n", u.Has(uriscan.Query), u.Query(), u.Has(uriscan.Fragment))
	// Output:
	// [2001:db8::7] ipv6
	// query defined=true "", fragment defined=false
}

func ExampleError() {
	_, err := uriscan.ParseString("http://[1:2:3:4:5:6:7:8:9]/")
	var e *uriscan.Error
	if errors.As(err, &e) {
		fmt.Println(e.Offset, e.Component, e.Reason())
	}
	fmt.Println(errors.Is(err, uriscan.ErrIPv6))
	fmt.Println(err)
	// Output:
	// 8 host IPv6 address has 9 groups
	// true
	// uriscan: "http://[1:2:3:4:5:6:7:8:9]/": IPv6 address has 9 groups at offset 8
}
