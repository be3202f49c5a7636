package avx512sim

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strings"
)

// handler executes one instruction. It returns 0 to go on with the next
// instruction, a branch target, or returnSentinel when the call returns.
type handler func(m *Machine, in *Inst) (next uint64, err error)

// spec is what the interpreter models of one mnemonic: its handler, the
// operand forms it accepts (one letter per operand: G register, V vector,
// K opmask, M memory, I immediate or branch target), and whether its
// destination may carry a {k} write mask ({z} where the form allows it).
type spec struct {
	h     handler
	forms []string
	mask  bool
}

var specs map[string]spec

// handlers maps each modelled mnemonic to its handler (filled from specs).
var handlers = map[string]handler{}

func init() {
	alu2 := []string{"GG", "GI", "GM", "MG", "MI"}
	specs = map[string]spec{
		"mov":    {h: mov, forms: alu2},
		"movabs": {h: mov, forms: []string{"GI"}},
		"lea":    {h: lea, forms: []string{"GM"}},
		"add":    {h: arith(opAdd), forms: alu2},
		"sub":    {h: arith(opSub), forms: alu2},
		"cmp":    {h: arith(opCmp), forms: alu2},
		"and":    {h: arith(opAnd), forms: alu2},
		"or":     {h: arith(opOr), forms: alu2},
		"xor":    {h: arith(opXor), forms: alu2},
		"test":   {h: arith(opTest), forms: []string{"GG", "GI", "MG", "MI"}},
		"inc":    {h: incdec(1), forms: []string{"G", "M"}},
		"dec":    {h: incdec(^uint64(0)), forms: []string{"G", "M"}},
		"neg":    {h: neg, forms: []string{"G", "M"}},
		"not":    {h: not, forms: []string{"G", "M"}},
		"shl":    {h: shift('l'), forms: []string{"GI", "GG", "G"}},
		"shr":    {h: shift('r'), forms: []string{"GI", "GG", "G"}},
		"sar":    {h: shift('a'), forms: []string{"GI", "GG", "G"}},
		"jmp":    {h: jmp, forms: []string{"I"}},
		"ret":    {h: ret, forms: []string{""}},
		"nop":    {h: nop, forms: []string{"", "M", "G"}},

		"vzeroupper": {h: vzeroupper, forms: []string{""}},

		"kmovq": {h: kmov(64), forms: []string{"KG", "GK", "KK", "KM", "MK"}},
		"kmovd": {h: kmov(32), forms: []string{"KG", "GK", "KK", "KM", "MK"}},
		"kmovw": {h: kmov(16), forms: []string{"KG", "GK", "KK", "KM", "MK"}},
		"kmovb": {h: kmov(8), forms: []string{"KG", "GK", "KK", "KM", "MK"}},

		"vmovdqu8":  {h: vmov(1, false), forms: []string{"VM", "MV", "VV"}, mask: true},
		"vmovdqu16": {h: vmov(2, false), forms: []string{"VM", "MV", "VV"}, mask: true},
		"vmovdqu32": {h: vmov(4, false), forms: []string{"VM", "MV", "VV"}, mask: true},
		"vmovdqu64": {h: vmov(8, false), forms: []string{"VM", "MV", "VV"}, mask: true},
		"vmovdqa32": {h: vmov(4, true), forms: []string{"VM", "MV", "VV"}, mask: true},
		"vmovdqa64": {h: vmov(8, true), forms: []string{"VM", "MV", "VV"}, mask: true},
		"vmovdqu":   {h: vmov(4, false), forms: []string{"VM", "MV", "VV"}},
		"vmovdqa":   {h: vmov(4, true), forms: []string{"VM", "MV", "VV"}},

		"vpbroadcastb": {h: vbroadcast(1), forms: []string{"VG", "VV", "VM"}, mask: true},
		"vpbroadcastw": {h: vbroadcast(2), forms: []string{"VG", "VV", "VM"}, mask: true},
		"vpbroadcastd": {h: vbroadcast(4), forms: []string{"VG", "VV", "VM"}, mask: true},
		"vpbroadcastq": {h: vbroadcast(8), forms: []string{"VG", "VV", "VM"}, mask: true},

		"vpmovb2m":  {h: vpmovb2m, forms: []string{"KV"}},
		"vptestmb":  {h: vptestb(false), forms: []string{"KVV", "KVM"}, mask: true},
		"vptestnmb": {h: vptestb(true), forms: []string{"KVV", "KVM"}, mask: true},
		"vpermi2b":  {h: vpermi2b, forms: []string{"VVV", "VVM"}, mask: true},
		"vpermb":    {h: vpermb, forms: []string{"VVV", "VVM"}, mask: true},
		"vpminub":   {h: vpminub, forms: []string{"VVV", "VVM"}, mask: true},

		"vgf2p8affineqb": {h: vgf2p8affineqb, forms: []string{"VVVI", "VVMI"}, mask: true},
	}
	for _, w := range []struct {
		sfx  string
		bits int
	}{{"q", 64}, {"d", 32}, {"w", 16}, {"b", 8}} {
		specs["knot"+w.sfx] = spec{h: klogic(w.bits, func(a, _ uint64) uint64 { return ^a }), forms: []string{"KK"}}
		specs["kor"+w.sfx] = spec{h: klogic(w.bits, func(a, b uint64) uint64 { return a | b }), forms: []string{"KKK"}}
		specs["kand"+w.sfx] = spec{h: klogic(w.bits, func(a, b uint64) uint64 { return a & b }), forms: []string{"KKK"}}
		// KANDN k1, k2, k3: k1 = NOT(k2) AND k3.
		specs["kandn"+w.sfx] = spec{h: klogic(w.bits, func(a, b uint64) uint64 { return ^a & b }), forms: []string{"KKK"}}
		specs["kxor"+w.sfx] = spec{h: klogic(w.bits, func(a, b uint64) uint64 { return a ^ b }), forms: []string{"KKK"}}
		specs["kxnor"+w.sfx] = spec{h: klogic(w.bits, func(a, b uint64) uint64 { return ^(a ^ b) }), forms: []string{"KKK"}}
		specs["kortest"+w.sfx] = spec{h: kortest(w.bits), forms: []string{"KK"}}
	}
	for cc := range conds {
		specs["j"+cc] = spec{h: jcc(cc), forms: []string{"I"}}
	}
	for op, s := range specs {
		handlers[op] = s.h
	}
}

// checkForm refuses an operand form the handlers do not model.
func checkForm(in *Inst) error {
	s := specs[in.Op]
	var sig strings.Builder
	for _, a := range in.Args {
		sig.WriteByte(" GVKMI"[a.Kind])
	}
	ok := false
	for _, f := range s.forms {
		if f == sig.String() {
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("operand form %q of %s not modelled (modelled: %q)", sig.String(), in.Op, s.forms)
	}
	vsize := 0
	for i, a := range in.Args {
		if (a.WMask != 0 || a.Zero) && (i != 0 || !s.mask) {
			return fmt.Errorf("write mask on operand %d of %s not modelled", i+1, in.Op)
		}
		if a.Zero && a.Kind != Vec {
			return fmt.Errorf("{z} on a %s destination", map[Kind]string{Mem: "memory", Mask: "mask"}[a.Kind])
		}
		if a.Kind == Vec {
			if vsize != 0 && a.Size != vsize && !strings.HasPrefix(in.Op, "vpbroadcast") {
				return fmt.Errorf("vector operands of different sizes")
			}
			vsize = a.Size
		}
	}
	return nil
}

// --- general-purpose instructions ---

// operand size of a two-operand GPR instruction: the register's, else the
// memory operand's PTR size.
func opSize(in *Inst) (int, error) {
	for _, a := range in.Args {
		if a.Kind == GPR {
			return a.Size, nil
		}
	}
	for _, a := range in.Args {
		if a.Kind == Mem && a.Size != 0 {
			return a.Size, nil
		}
	}
	return 0, fmt.Errorf("operand size unknown")
}

func (m *Machine) read(in *Inst, o *Operand, size int) (uint64, error) {
	switch o.Kind {
	case GPR:
		return m.getGPR(o), nil
	case Imm:
		return o.Imm & sizeMask(size), nil
	case Mem:
		var b [8]byte
		if err := m.load(m.addr(in, o), b[:size]); err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint64(b[:]), nil
	}
	return 0, fmt.Errorf("operand kind %d not readable here", o.Kind)
}

func (m *Machine) write(in *Inst, o *Operand, size int, v uint64) error {
	switch o.Kind {
	case GPR:
		m.setGPR(o, v)
		return nil
	case Mem:
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], v)
		return m.store(m.addr(in, o), b[:size])
	}
	return fmt.Errorf("operand kind %d not writable", o.Kind)
}

func mov(m *Machine, in *Inst) (uint64, error) {
	size, err := opSize(in)
	if err != nil {
		return 0, err
	}
	v, err := m.read(in, &in.Args[1], size)
	if err != nil {
		return 0, err
	}
	return 0, m.write(in, &in.Args[0], size, v)
}

func lea(m *Machine, in *Inst) (uint64, error) {
	m.setGPR(&in.Args[0], m.addr(in, &in.Args[1])&sizeMask(in.Args[0].Size))
	return 0, nil
}

const (
	opAdd = iota
	opSub
	opCmp
	opAnd
	opOr
	opXor
	opTest
)

// zs returns the ZF and SF bits of result r of size bytes.
func zs(r uint64, size int) uint8 {
	var f uint8
	if r&sizeMask(size) == 0 {
		f |= flagZF
	}
	if r>>(8*size-1)&1 != 0 {
		f |= flagSF
	}
	return f
}

// dest returns the operand size of in and the value of its first operand.
func (m *Machine) dest(in *Inst) (int, uint64, error) {
	size, err := opSize(in)
	if err != nil {
		return 0, 0, err
	}
	x, err := m.read(in, &in.Args[0], size)
	return size, x, err
}

func arith(op int) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		size, x, err := m.dest(in)
		if err != nil {
			return 0, err
		}
		y, err := m.read(in, &in.Args[1], size)
		if err != nil {
			return 0, err
		}
		mask, sign := sizeMask(size), uint64(1)<<(8*size-1)
		var r uint64
		var f uint8
		switch op {
		case opAdd:
			r = (x + y) & mask
			if r < x {
				f |= flagCF
			}
			if (x^r)&(y^r)&sign != 0 {
				f |= flagOF
			}
		case opSub, opCmp:
			r = (x - y) & mask
			if x < y {
				f |= flagCF
			}
			if (x^y)&(x^r)&sign != 0 {
				f |= flagOF
			}
		case opAnd, opTest:
			r = x & y
		case opOr:
			r = x | y
		case opXor:
			r = x ^ y
		}
		m.setFlags(allFlags, f|zs(r, size), 0)
		if op == opCmp || op == opTest {
			return 0, nil
		}
		return 0, m.write(in, &in.Args[0], size, r)
	}
}

// incdec adds d (1 or -1); CF is left as it was.
func incdec(d uint64) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		size, x, err := m.dest(in)
		if err != nil {
			return 0, err
		}
		mask, sign := sizeMask(size), uint64(1)<<(8*size-1)
		r := (x + d) & mask
		f := zs(r, size)
		if (d == 1 && r == sign) || (d != 1 && x == sign) {
			f |= flagOF
		}
		m.setFlags(flagZF|flagSF|flagOF, f, 0)
		return 0, m.write(in, &in.Args[0], size, r)
	}
}

func neg(m *Machine, in *Inst) (uint64, error) {
	size, x, err := m.dest(in)
	if err != nil {
		return 0, err
	}
	r := -x & sizeMask(size)
	f := zs(r, size)
	if x != 0 {
		f |= flagCF
	}
	if x == uint64(1)<<(8*size-1) {
		f |= flagOF
	}
	m.setFlags(allFlags, f, 0)
	return 0, m.write(in, &in.Args[0], size, r)
}

func not(m *Machine, in *Inst) (uint64, error) {
	size, x, err := m.dest(in)
	if err != nil {
		return 0, err
	}
	return 0, m.write(in, &in.Args[0], size, ^x&sizeMask(size))
}

// shift: SHL, SHR, SAR by an immediate, CL, or 1. The count is masked to
// 6 bits (64-bit operands) or 5. A zero count changes no flag (a 32-bit
// destination is still written, so its upper half is cleared); OF is
// defined only for a count of 1; for SHL and SHR, CF is undefined when the
// count is at least the operand's width (SAR's CF is then the sign bit).
func shift(kind byte) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		d := &in.Args[0]
		size := d.Size
		var c uint64 = 1
		if len(in.Args) == 2 {
			s := &in.Args[1]
			if s.Kind == GPR && (s.Reg != rcx || s.Size != 1 || s.Hi8) {
				return 0, fmt.Errorf("shift count in %v not modelled (only cl)", s)
			}
			c, _ = m.read(in, s, 1)
		}
		nbits := uint64(8 * size)
		if size == 8 {
			c &= 63
		} else {
			c &= 31
		}
		x := m.getGPR(d)
		if c == 0 {
			m.setGPR(d, x)
			return 0, nil
		}
		mask, sign := sizeMask(size), uint64(1)<<(nbits-1)
		var r uint64
		var cf bool
		var of uint8
		switch kind {
		case 'l':
			r = x << c & mask
			cf = c <= nbits && x>>(nbits-c)&1 != 0
			if r&sign != 0 != cf {
				of = flagOF
			}
		case 'r':
			r = x >> c
			cf = c <= nbits && x>>(c-1)&1 != 0
			if x&sign != 0 {
				of = flagOF
			}
		case 'a':
			sx := int64(x<<(64-nbits)) >> (64 - nbits)
			r = uint64(sx>>min(c, 63)) & mask
			cf = uint64(sx>>min(c-1, 63))&1 != 0
		}
		f := zs(r, size) | of
		if cf {
			f |= flagCF
		}
		which, undef := uint8(flagCF|flagZF|flagSF|flagOF), uint8(0)
		if c != 1 {
			which, undef = which&^flagOF, flagOF
		}
		if c >= nbits && kind != 'a' {
			which, undef = which&^flagCF, undef|flagCF
		}
		m.setFlags(which, f, undef)
		m.setGPR(d, r)
		return 0, nil
	}
}

func jmp(m *Machine, in *Inst) (uint64, error) { return in.Args[0].Imm, nil }

// conds are the jcc conditions over CF, ZF, SF and OF.
var conds = map[string]func(m *Machine) (bool, error){
	"b": cf, "c": cf, "nae": cf,
	"ae": not1(cf), "nb": not1(cf), "nc": not1(cf),
	"e": zf, "z": zf,
	"ne": not1(zf), "nz": not1(zf),
	"be": or2(cf, zf), "na": or2(cf, zf),
	"a": not1(or2(cf, zf)), "nbe": not1(or2(cf, zf)),
	"s": sf, "ns": not1(sf),
	"o": of, "no": not1(of),
	"l": lt, "nge": lt, "ge": not1(lt), "nl": not1(lt),
	"le": or2(zf, lt), "ng": or2(zf, lt), "g": not1(or2(zf, lt)), "nle": not1(or2(zf, lt)),
}

func cf(m *Machine) (bool, error) { return m.flag(flagCF) }
func zf(m *Machine) (bool, error) { return m.flag(flagZF) }
func sf(m *Machine) (bool, error) { return m.flag(flagSF) }
func of(m *Machine) (bool, error) { return m.flag(flagOF) }
func lt(m *Machine) (bool, error) {
	s, err := sf(m)
	if err != nil {
		return false, err
	}
	o, err := of(m)
	return s != o, err
}
func not1(f func(*Machine) (bool, error)) func(*Machine) (bool, error) {
	return func(m *Machine) (bool, error) { v, err := f(m); return !v, err }
}
func or2(f, g func(*Machine) (bool, error)) func(*Machine) (bool, error) {
	return func(m *Machine) (bool, error) {
		a, err := f(m)
		if err != nil {
			return false, err
		}
		b, err := g(m)
		return a || b, err
	}
}

func jcc(cc string) handler {
	cond := conds[cc]
	return func(m *Machine, in *Inst) (uint64, error) {
		taken, err := cond(m)
		if err != nil || !taken {
			return 0, err
		}
		return in.Args[0].Imm, nil
	}
}

func ret(m *Machine, in *Inst) (uint64, error) {
	var b [8]byte
	if err := m.load(m.R[rsp], b[:]); err != nil {
		return 0, err
	}
	m.R[rsp] += 8
	to := binary.LittleEndian.Uint64(b[:])
	if to != returnSentinel {
		return 0, fmt.Errorf("returns to %#x, not to the caller (the return address was overwritten)", to)
	}
	return returnSentinel, nil
}

func nop(*Machine, *Inst) (uint64, error) { return 0, nil }

// --- opmask instructions ---

func widthMask(nbits int) uint64 {
	if nbits >= 64 {
		return ^uint64(0)
	}
	return uint64(1)<<nbits - 1
}

// kmov moves nbits between opmask registers, general-purpose registers
// and memory; the rest of a destination register is zeroed.
func kmov(nbits int) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		d, s := &in.Args[0], &in.Args[1]
		wm := widthMask(nbits)
		var v uint64
		switch s.Kind {
		case Mask:
			v = m.K[s.Reg]
		case GPR:
			v = m.R[s.Reg]
		case Mem:
			var b [8]byte
			if err := m.load(m.addr(in, s), b[:nbits/8]); err != nil {
				return 0, err
			}
			v = binary.LittleEndian.Uint64(b[:])
		}
		v &= wm
		switch d.Kind {
		case Mask:
			m.K[d.Reg] = v
		case GPR:
			m.R[d.Reg] = v
		case Mem:
			var b [8]byte
			binary.LittleEndian.PutUint64(b[:], v)
			return 0, m.store(m.addr(in, d), b[:nbits/8])
		}
		return 0, nil
	}
}

// klogic: k1 = f(k2, k3) (or f(k2) for KNOT) over nbits, upper bits zeroed.
func klogic(nbits int, f func(a, b uint64) uint64) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		a := m.K[in.Args[1].Reg]
		var b uint64
		if len(in.Args) == 3 {
			b = m.K[in.Args[2].Reg]
		}
		m.K[in.Args[0].Reg] = f(a, b) & widthMask(nbits)
		return 0, nil
	}
}

// kortest: ZF when k1|k2 is all zeros, CF when it is all ones; OF and SF
// cleared.
func kortest(nbits int) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		wm := widthMask(nbits)
		v := (m.K[in.Args[0].Reg] | m.K[in.Args[1].Reg]) & wm
		var f uint8
		if v == 0 {
			f |= flagZF
		}
		if v == wm {
			f |= flagCF
		}
		m.setFlags(allFlags, f, 0)
		return 0, nil
	}
}

// --- vector instructions ---

func vzeroupper(m *Machine, in *Inst) (uint64, error) {
	for i := 0; i < 16; i++ {
		clear(m.Z[i][16:])
	}
	return 0, nil
}

// active reports whether element e is written under o's write mask.
func (m *Machine) active(o *Operand, e int) bool {
	return o.WMask == 0 || m.K[o.WMask]>>e&1 != 0
}

// writeVec writes val (o.Size bytes) to vector register operand o under
// its write mask, elem bytes per mask bit: a masked-off element is zeroed
// with {z} and kept without. Bytes past o.Size are zeroed (VEX and EVEX
// writes clear the register up to its maximum length).
func (m *Machine) writeVec(o *Operand, val []byte, elem int) {
	z := &m.Z[o.Reg]
	for e := 0; e*elem < o.Size; e++ {
		lane := z[e*elem : (e+1)*elem]
		switch {
		case m.active(o, e):
			copy(lane, val[e*elem:])
		case o.Zero:
			clear(lane)
		}
	}
	clear(z[o.Size:])
}

// vmov: VMOVDQU8/16/32/64, VMOVDQA32/64 and the VEX VMOVDQU/VMOVDQA.
// A masked load or store accesses only the elements its mask selects
// (fault suppression: the others may lie outside every region); an
// unmasked one accesses the whole vector. The aligned forms fault (#GP)
// on an address that is not a multiple of the vector's size.
func vmov(elem int, aligned bool) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		d, s := &in.Args[0], &in.Args[1]
		size := d.Size
		if d.Kind == Mem {
			size = s.Size
		}
		var val [64]byte
		switch s.Kind {
		case Vec:
			copy(val[:], m.Z[s.Reg][:size])
		case Mem:
			if s.Size != 0 && s.Size != size {
				return 0, fmt.Errorf("memory operand of %d bytes for a %d-byte vector", s.Size, size)
			}
			a := m.addr(in, s)
			if aligned && a%uint64(size) != 0 {
				return 0, fmt.Errorf("#GP: aligned load from %#x", a)
			}
			if d.WMask == 0 {
				if err := m.load(a, val[:size]); err != nil {
					return 0, err
				}
			} else {
				for e := 0; e*elem < size; e++ {
					if m.active(d, e) {
						if err := m.load(a+uint64(e*elem), val[e*elem:(e+1)*elem]); err != nil {
							return 0, fmt.Errorf("masked load, element %d: %s", e, msgOf(err))
						}
					}
				}
			}
		}
		if d.Kind == Vec {
			m.writeVec(d, val[:], elem)
			return 0, nil
		}
		a := m.addr(in, d)
		if d.Size != 0 && d.Size != size {
			return 0, fmt.Errorf("memory operand of %d bytes for a %d-byte vector", d.Size, size)
		}
		if aligned && a%uint64(size) != 0 {
			return 0, fmt.Errorf("#GP: aligned store to %#x", a)
		}
		if d.WMask == 0 {
			return 0, m.store(a, val[:size])
		}
		for e := 0; e*elem < size; e++ {
			if m.active(d, e) {
				if err := m.store(a+uint64(e*elem), val[e*elem:(e+1)*elem]); err != nil {
					return 0, fmt.Errorf("masked store, element %d: %s", e, msgOf(err))
				}
			}
		}
		return 0, nil
	}
}

// msgOf is err's message without the package prefix of an *Error.
func msgOf(err error) string {
	if e, ok := err.(*Error); ok {
		return e.Msg
	}
	return err.Error()
}

// vbroadcast: every element of the destination gets the low element of
// the source (a general-purpose register, a vector register or memory).
func vbroadcast(elem int) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		d, s := &in.Args[0], &in.Args[1]
		var src [8]byte
		switch s.Kind {
		case GPR:
			binary.LittleEndian.PutUint64(src[:], m.R[s.Reg])
		case Vec:
			copy(src[:], m.Z[s.Reg][:elem])
		case Mem:
			if err := m.load(m.addr(in, s), src[:elem]); err != nil {
				return 0, err
			}
		}
		var val [64]byte
		for i := 0; i < d.Size; i += elem {
			copy(val[i:i+elem], src[:elem])
		}
		m.writeVec(d, val[:], elem)
		return 0, nil
	}
}

// vecSrc returns the bytes of a vector register or memory source of size
// bytes (a memory source is read whole).
func (m *Machine) vecSrc(in *Inst, o *Operand, size int) ([]byte, error) {
	if o.Kind == Vec {
		return m.Z[o.Reg][:size], nil
	}
	if o.Size != 0 && o.Size != size {
		return nil, fmt.Errorf("memory operand of %d bytes for a %d-byte vector", o.Size, size)
	}
	b := make([]byte, size)
	return b, m.load(m.addr(in, o), b)
}

// vpmovb2m: bit i of k is the sign bit of byte i; the upper bits are zeroed.
func vpmovb2m(m *Machine, in *Inst) (uint64, error) {
	s := &in.Args[1]
	var k uint64
	for i := 0; i < s.Size; i++ {
		k |= uint64(m.Z[s.Reg][i]>>7) << i
	}
	m.K[in.Args[0].Reg] = k
	return 0, nil
}

// vptestb: VPTESTMB (VPTESTNMB with neg) k1{k2}, a, b: bit i is set when
// k2 selects lane i (or there is no k2) and a[i] AND b[i] is non-zero
// (zero for NM); bits past the vector's lanes are zeroed.
func vptestb(neg bool) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		d, a := &in.Args[0], &in.Args[1]
		b, err := m.vecSrc(in, &in.Args[2], a.Size)
		if err != nil {
			return 0, err
		}
		var k uint64
		for i := 0; i < a.Size; i++ {
			if m.active(d, i) && (m.Z[a.Reg][i]&b[i] != 0) != neg {
				k |= 1 << i
			}
		}
		m.K[d.Reg] = k
		return 0, nil
	}
}

// vpermi2b: VPERMI2B dst{k}{z}, t1, t2: each byte of dst is an index; for
// a vector of n bytes its low log2(n) bits pick a byte of a table and the
// next bit picks the table (t2 when set, t1 when clear); higher bits are
// ignored. The result overwrites the indices under the write mask.
func vpermi2b(m *Machine, in *Inst) (uint64, error) {
	d, t1 := &in.Args[0], &in.Args[1]
	n := d.Size
	t2, err := m.vecSrc(in, &in.Args[2], n)
	if err != nil {
		return 0, err
	}
	var val [64]byte
	idx := m.Z[d.Reg]
	for i := 0; i < n; i++ {
		j := int(idx[i]) & (2*n - 1)
		if j&n != 0 {
			val[i] = t2[j&(n-1)]
		} else {
			val[i] = m.Z[t1.Reg][j&(n-1)]
		}
	}
	m.writeVec(d, val[:], 1)
	return 0, nil
}

// byteOp is a byte-wise instruction OP dst{k}{z}, a, b (b a register or
// memory): byte i of dst is f(a, b, i), a and b of the vector's length.
func byteOp(f func(a, b []byte, i int) byte) handler {
	return func(m *Machine, in *Inst) (uint64, error) {
		d, a := &in.Args[0], &in.Args[1]
		b, err := m.vecSrc(in, &in.Args[2], d.Size)
		if err != nil {
			return 0, err
		}
		var val [64]byte
		for i := 0; i < d.Size; i++ {
			val[i] = f(m.Z[a.Reg][:d.Size], b, i)
		}
		m.writeVec(d, val[:], 1)
		return 0, nil
	}
}

// vpermb: VPERMB dst{k}{z}, idx, table: byte i of dst is byte idx[i] mod
// n of the table (n the vector's bytes; higher index bits are ignored).
var vpermb = byteOp(func(idx, table []byte, i int) byte { return table[int(idx[i])&(len(table)-1)] })

// vpminub: VPMINUB dst{k}{z}, a, b: the unsigned minimum of each byte.
var vpminub = byteOp(func(a, b []byte, i int) byte { return min(a[i], b[i]) })

// vgf2p8affineqb: VGF2P8AFFINEQB dst{k}{z}, x, A, imm8 (Intel SDM): for
// every byte b of x in qword q, bit i of the result is the parity of
// (byte 7-i of qword q of A) AND b, XOR bit i of imm8. A is the matrix,
// one qword per eight bytes of x.
func vgf2p8affineqb(m *Machine, in *Inst) (uint64, error) {
	d, x := &in.Args[0], &in.Args[1]
	a, err := m.vecSrc(in, &in.Args[2], d.Size)
	if err != nil {
		return 0, err
	}
	imm := byte(in.Args[3].Imm)
	var val [64]byte
	for i := 0; i < d.Size; i++ {
		q := i &^ 7
		b := m.Z[x.Reg][i]
		var r byte
		for bit := 0; bit < 8; bit++ {
			p := bits.OnesCount8(a[q+7-bit]&b) & 1
			r |= byte(p) << bit
		}
		val[i] = r ^ imm
	}
	m.writeVec(d, val[:], 1)
	return 0, nil
}
