package uriscan

import (
	"errors"
	"strconv"
	"strings"
)

// render writes a parse result in the compact form the table tests use:
// defined components only, in order, as name=value separated by spaces
// (values are raw input bytes; a valid URI holds no spaces), with the host
// type after the host; path is always present. An error renders as
// "err@OFFSET CAUSE" with CAUSE one of char, pct, scheme, ipv6, ipvfuture,
// ipliteral.
func render(u URI, err error) string {
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return "err " + err.Error()
		}
		return "err@" + strconv.Itoa(e.Offset) + " " + causeName(e.Err)
	}
	var b strings.Builder
	add := func(name, val string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(val)
	}
	if u.Has(Scheme) {
		add("scheme", u.Scheme())
	}
	if u.Has(Userinfo) {
		add("userinfo", u.Userinfo())
	}
	if u.Has(Host) {
		add("host", u.Host())
		add("type", u.HostType().String())
	}
	if u.Has(Port) {
		add("port", u.Port())
	}
	add("path", u.Path())
	if u.Has(Query) {
		add("query", u.Query())
	}
	if u.Has(Fragment) {
		add("fragment", u.Fragment())
	}
	return b.String()
}

func causeName(err error) string {
	switch err {
	case ErrInvalidChar:
		return "char"
	case ErrPercentEncoding:
		return "pct"
	case ErrScheme:
		return "scheme"
	case ErrIPv6:
		return "ipv6"
	case ErrIPvFuture:
		return "ipvfuture"
	case ErrIPLiteral:
		return "ipliteral"
	}
	return "?"
}
