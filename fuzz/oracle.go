// Package fuzz holds the cross-package differential tests and fuzz targets
// of uriscan: the production scanner against the independent Appendix A
// transcription in internal/abnf, and corpus loaders for both.
package fuzz

import (
	"errors"
	"fmt"

	"github.com/uriscan/uriscan"
	"github.com/uriscan/uriscan/internal/abnf"
)

// Diff parses s with uriscan and with the ABNF oracle and describes the
// first disagreement on validity, error offset, any component (defined or
// not, and its text) or the host type. It returns "" when they agree.
func Diff(s string) string {
	want := abnf.Parse(s)
	u, err := uriscan.ParseString(s)
	if err != nil {
		var e *uriscan.Error
		if !errors.As(err, &e) {
			return fmt.Sprintf("uriscan returned %T %v", err, err)
		}
		if want.Valid {
			return fmt.Sprintf("uriscan rejects (%v), oracle accepts", err)
		}
		if e.Offset != want.ErrOffset {
			return fmt.Sprintf("error offset %d (%s), oracle %d", e.Offset, e.Reason(), want.ErrOffset)
		}
		return ""
	}
	if !want.Valid {
		return fmt.Sprintf("uriscan accepts, oracle rejects at %d", want.ErrOffset)
	}
	type comp struct {
		c        uriscan.Component
		has      bool
		val      string
		wantHas  bool
		wantText string
	}
	for _, c := range []comp{
		{uriscan.Scheme, u.Has(uriscan.Scheme), u.Scheme(), want.HasScheme, want.Scheme},
		{uriscan.Userinfo, u.Has(uriscan.Userinfo), u.Userinfo(), want.HasUserinfo, want.Userinfo},
		{uriscan.Host, u.Has(uriscan.Host), u.Host(), want.HasHost, want.Host},
		{uriscan.Port, u.Has(uriscan.Port), u.Port(), want.HasPort, want.Port},
		{uriscan.Path, u.Has(uriscan.Path), u.Path(), true, want.Path},
		{uriscan.Query, u.Has(uriscan.Query), u.Query(), want.HasQuery, want.Query},
		{uriscan.Fragment, u.Has(uriscan.Fragment), u.Fragment(), want.HasFragment, want.Fragment},
	} {
		if c.has != c.wantHas || c.val != c.wantText {
			return fmt.Sprintf("%v: uriscan %v %q, oracle %v %q", c.c, c.has, c.val, c.wantHas, c.wantText)
		}
	}
	ht := ""
	if u.HasAuthority() {
		ht = u.HostType().String()
	}
	if ht != want.HostType {
		return fmt.Sprintf("host type %q, oracle %q", ht, want.HostType)
	}
	return ""
}
