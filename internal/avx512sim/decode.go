// Package avx512sim executes a Go assembly function's machine code in an
// interpreter, instruction by instruction, so that an AVX-512 kernel can be
// tested on a CPU that does not have AVX-512 (and on no emulator: QEMU's
// TCG and valgrind reject EVEX).
//
// The function's bytes come from the test binary itself (debug/elf), GNU
// objdump decodes them (Go's own disassembler cannot decode EVEX), and
// Machine interprets each decoded instruction with the semantics the Intel
// SDM gives it: sixteen general-purpose registers and the arithmetic
// flags, 32 vector registers of 64 bytes, eight opmask registers, masked
// (merging and zeroing) loads whose masked-off lanes are never accessed,
// and a memory of named regions outside which any access is an error.
//
// It is deliberately small and strict: it models the instructions the
// project's kernels use and a few neighbours, and a function that holds
// any other instruction, operand form or prefix is refused when it is
// decoded, so a kernel change can never pass by being skipped. Flags an
// instruction leaves undefined are tracked, and a jump that reads one is
// an error.
package avx512sim

import (
	"debug/elf"
	"debug/gosym"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// Func is a decoded function: its instructions in address order.
type Func struct {
	Name  string
	Addr  uint64
	Insts []*Inst
	at    map[uint64]int // address -> index in Insts
}

// Inst is one decoded instruction.
type Inst struct {
	Addr, Next uint64
	Text       string // as objdump printed it, for messages
	Op         string // the mnemonic
	Args       []Operand
	exec       handler
}

func (in *Inst) String() string { return fmt.Sprintf("%#x: %s", in.Addr, in.Text) }

// Kind is the kind of an operand.
type Kind uint8

const (
	GPR  Kind = iota + 1 // a general-purpose register
	Vec                  // xmm, ymm or zmm
	Mask                 // k0-k7
	Mem                  // a memory operand
	Imm                  // an immediate or a branch target
)

// Operand is one decoded operand.
type Operand struct {
	Kind Kind
	Reg  int  // register number (GPR: 0 rax ... 15 r15)
	Hi8  bool // ah, ch, dh, bh
	Size int  // bytes: GPR 1/2/4/8, Vec 16/32/64, Mem from its PTR size (0 if none), Mask 8
	// Decorations: {kN} write mask (0 = none) and {z}.
	WMask int
	Zero  bool
	// Memory: [Base + Index*Scale + Disp]; Base or Index -1 when absent,
	// ripReg for rip-relative.
	Base, Index, Scale int
	Disp               int64
	Imm                uint64
}

const ripReg = 16

var gprNames = func() map[string]Operand {
	m := map[string]Operand{}
	base := []string{"ax", "cx", "dx", "bx", "sp", "bp", "si", "di"}
	for i, b := range base {
		m["r"+b] = Operand{Kind: GPR, Reg: i, Size: 8}
		m["e"+b] = Operand{Kind: GPR, Reg: i, Size: 4}
		m[b] = Operand{Kind: GPR, Reg: i, Size: 2}
	}
	for i, b := range []string{"al", "cl", "dl", "bl", "spl", "bpl", "sil", "dil"} {
		m[b] = Operand{Kind: GPR, Reg: i, Size: 1}
	}
	for i, b := range []string{"ah", "ch", "dh", "bh"} {
		m[b] = Operand{Kind: GPR, Reg: i, Size: 1, Hi8: true}
	}
	for i := 8; i < 16; i++ {
		r := "r" + strconv.Itoa(i)
		m[r] = Operand{Kind: GPR, Reg: i, Size: 8}
		m[r+"d"] = Operand{Kind: GPR, Reg: i, Size: 4}
		m[r+"w"] = Operand{Kind: GPR, Reg: i, Size: 2}
		m[r+"b"] = Operand{Kind: GPR, Reg: i, Size: 1}
	}
	return m
}()

var ptrSizes = map[string]int{
	"BYTE": 1, "WORD": 2, "DWORD": 4, "QWORD": 8, "XMMWORD": 16, "YMMWORD": 32, "ZMMWORD": 64,
}

// rawLine is one instruction as objdump printed it.
type rawLine struct {
	addr uint64
	text string
}

// objdump decodes code, loaded at addr, with GNU objdump (Intel syntax).
func objdump(code []byte, addr uint64) ([]rawLine, error) {
	bin, err := exec.LookPath("objdump")
	if err != nil {
		return nil, fmt.Errorf("avx512sim: GNU objdump not found (Debian: apt-get install binutils): %w", err)
	}
	dir, err := os.MkdirTemp("", "avx512sim")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "code.bin")
	if err := os.WriteFile(file, code, 0o600); err != nil {
		return nil, err
	}
	// -z: decode runs of zero bytes too (by default objdump prints "..."
	// for them); -w: an instruction's bytes on one line, so that the
	// lengths can be checked to cover the code without a gap.
	out, err := exec.Command(bin, "-D", "-z", "-w", "-b", "binary", "-m", "i386:x86-64", "-M", "intel",
		fmt.Sprintf("--adjust-vma=%#x", addr), file).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("avx512sim: objdump: %v\n%s", err, out)
	}
	var lines []rawLine
	next := addr // where the next instruction must start
	body := false
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, "<.data>:") {
			body = true // the instructions follow
			continue
		}
		if !body || strings.TrimSpace(line) == "" {
			continue
		}
		// "  addr:\tbytes\tmnemonic operands"
		f := strings.SplitN(line, "\t", 3)
		a, aerr := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(f[0]), ":"), 16, 64)
		if aerr != nil || len(f) != 3 || !strings.HasSuffix(f[0], ":") {
			return nil, fmt.Errorf("avx512sim: objdump line %q not understood", line)
		}
		n := len(strings.Fields(f[1]))
		if a != next || n == 0 {
			return nil, fmt.Errorf("avx512sim: objdump's instructions do not cover the code: %#x, expected %#x", a, next)
		}
		next = a + uint64(n)
		text := strings.TrimSpace(f[2])
		if i := strings.Index(text, "#"); i >= 0 { // objdump's comment on rip-relative operands
			text = strings.TrimSpace(text[:i])
		}
		lines = append(lines, rawLine{a, text})
	}
	if next != addr+uint64(len(code)) {
		return nil, fmt.Errorf("avx512sim: objdump decoded %d of %d bytes", next-addr, len(code))
	}
	if len(lines) == 0 {
		return nil, errors.New("avx512sim: objdump decoded no instruction")
	}
	return lines, nil
}

// Disassemble decodes code, loaded at addr, with GNU objdump, and refuses
// it if any instruction or operand form is not modelled. Trailing int3
// bytes (the linker's padding between functions) are dropped: control that
// reaches them is an error anyway, as they are not part of the result.
func Disassemble(name string, code []byte, addr uint64) (*Func, error) {
	lines, err := objdump(code, addr)
	if err != nil {
		return nil, err
	}
	end := addr + uint64(len(code))
	for len(lines) > 0 && lines[len(lines)-1].text == "int3" {
		end = lines[len(lines)-1].addr
		lines = lines[:len(lines)-1]
	}
	f := &Func{Name: name, Addr: addr, at: map[uint64]int{}}
	for _, l := range lines {
		in, err := parseInst(l.addr, l.text)
		if err != nil {
			return nil, fmt.Errorf("avx512sim: %s: %w", name, err)
		}
		f.at[in.Addr] = len(f.Insts)
		f.Insts = append(f.Insts, in)
	}
	if len(f.Insts) == 0 {
		return nil, fmt.Errorf("avx512sim: %s: no instruction", name)
	}
	for i, in := range f.Insts {
		if i+1 < len(f.Insts) {
			in.Next = f.Insts[i+1].Addr
		} else {
			in.Next = end
		}
	}
	return f, nil
}

// parseInst decodes one instruction, "mnemonic operands".
func parseInst(addr uint64, text string) (*Inst, error) {
	in := &Inst{Addr: addr, Text: text}
	op, rest, _ := strings.Cut(text, " ")
	in.Op = op
	rest = strings.TrimSpace(rest)
	h, known := handlers[op]
	if !known {
		return nil, fmt.Errorf("%#x: %q: instruction not modelled", addr, text)
	}
	in.exec = h
	if rest != "" {
		for _, s := range splitOperands(rest) {
			o, err := parseOperand(s, isBranch(op))
			if err != nil {
				return nil, fmt.Errorf("%#x: %q: %w", addr, text, err)
			}
			in.Args = append(in.Args, o)
		}
	}
	if err := checkForm(in); err != nil {
		return nil, fmt.Errorf("%#x: %q: %w", addr, text, err)
	}
	return in, nil
}

func isBranch(op string) bool { return op == "jmp" || (op[0] == 'j' && conds[op[1:]] != nil) }

// splitOperands splits at the commas outside brackets and braces.
func splitOperands(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:]))
}

func parseOperand(s string, branch bool) (Operand, error) {
	// Decorations: {kN}, {z}; anything else ({sae}, {1to16}, rounding) is
	// not modelled.
	var o Operand
	wmask, zero := 0, false
	for strings.HasSuffix(s, "}") {
		i := strings.LastIndex(s, "{")
		if i < 0 {
			return o, fmt.Errorf("operand %q: unbalanced braces", s)
		}
		d := s[i+1 : len(s)-1]
		switch {
		case d == "z":
			zero = true
		case len(d) == 2 && d[0] == 'k' && d[1] >= '1' && d[1] <= '7':
			wmask = int(d[1] - '0')
		default:
			return o, fmt.Errorf("operand decoration {%s} not modelled", d)
		}
		s = strings.TrimSpace(s[:i])
	}
	switch {
	case branch:
		// "55d5d6 <sym+0x..>" or "0x55d5d6"
		f, _, _ := strings.Cut(s, " ")
		v, err := strconv.ParseUint(strings.TrimPrefix(f, "0x"), 16, 64)
		if err != nil {
			return o, fmt.Errorf("branch target %q not modelled", s)
		}
		o = Operand{Kind: Imm, Imm: v}
	case strings.Contains(s, "["):
		var err error
		if o, err = parseMem(s); err != nil {
			return o, err
		}
	case strings.HasPrefix(s, "0x") || (s != "" && s[0] >= '0' && s[0] <= '9') || strings.HasPrefix(s, "-0x"):
		neg := strings.HasPrefix(s, "-")
		v, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "0x"), 16, 64)
		if err != nil {
			return o, fmt.Errorf("immediate %q: %v", s, err)
		}
		if neg {
			v = -v
		}
		o = Operand{Kind: Imm, Imm: v}
	case len(s) == 2 && s[0] == 'k' && s[1] >= '0' && s[1] <= '7':
		o = Operand{Kind: Mask, Reg: int(s[1] - '0'), Size: 8}
	case len(s) > 3 && (s[:3] == "xmm" || s[:3] == "ymm" || s[:3] == "zmm"):
		n, err := strconv.Atoi(s[3:])
		if err != nil || n < 0 || n > 31 {
			return o, fmt.Errorf("vector register %q", s)
		}
		o = Operand{Kind: Vec, Reg: n, Size: map[byte]int{'x': 16, 'y': 32, 'z': 64}[s[0]]}
	default:
		r, ok := gprNames[s]
		if !ok {
			return o, fmt.Errorf("operand %q not modelled", s)
		}
		o = r
	}
	if wmask != 0 || zero {
		if o.Kind != Vec && o.Kind != Mask && o.Kind != Mem {
			return o, fmt.Errorf("decorations on %q", s)
		}
		if zero && wmask == 0 {
			return o, errors.New("{z} without a write mask")
		}
		o.WMask, o.Zero = wmask, zero
	}
	return o, nil
}

// parseMem parses "SIZE PTR [base+index*scale+disp]" (the size is optional,
// as in lea).
func parseMem(s string) (Operand, error) {
	o := Operand{Kind: Mem, Base: -1, Index: -1, Scale: 1}
	lb := strings.Index(s, "[")
	if !strings.HasSuffix(s, "]") {
		return o, fmt.Errorf("memory operand %q not modelled", s)
	}
	if pre := strings.TrimSpace(s[:lb]); pre != "" {
		size, ptr, _ := strings.Cut(pre, " ")
		n, ok := ptrSizes[size]
		if !ok || ptr != "PTR" {
			return o, fmt.Errorf("memory operand %q not modelled (segment, broadcast or size)", s)
		}
		o.Size = n
	}
	expr := s[lb+1 : len(s)-1]
	// Terms joined by + or -.
	for expr != "" {
		sign := int64(1)
		switch expr[0] {
		case '+':
			expr = expr[1:]
		case '-':
			sign, expr = -1, expr[1:]
		}
		end := strings.IndexAny(expr, "+-")
		if end < 0 {
			end = len(expr)
		}
		term := expr[:end]
		expr = expr[end:]
		switch {
		case strings.HasPrefix(term, "0x"):
			v, err := strconv.ParseUint(term[2:], 16, 64)
			if err != nil {
				return o, fmt.Errorf("displacement %q", term)
			}
			o.Disp += sign * int64(v)
		case strings.Contains(term, "*"):
			r, sc, _ := strings.Cut(term, "*")
			g, ok := gprNames[r]
			n, err := strconv.Atoi(sc)
			if !ok || g.Size != 8 || err != nil || sign < 0 || o.Index >= 0 || (n != 1 && n != 2 && n != 4 && n != 8) {
				return o, fmt.Errorf("index %q not modelled", term)
			}
			o.Index, o.Scale = g.Reg, n
		case term == "rip":
			o.Base = ripReg
		default:
			g, ok := gprNames[term]
			if !ok || g.Size != 8 || sign < 0 {
				return o, fmt.Errorf("address term %q not modelled", term)
			}
			if o.Base < 0 {
				o.Base = g.Reg
			} else if o.Index < 0 {
				o.Index = g.Reg
			} else {
				return o, fmt.Errorf("address %q not modelled", s)
			}
		}
	}
	return o, nil
}

// LoadFunc reads the machine code of the Go function name from the ELF
// executable path and decodes it. The function is found in the Go
// runtime's own function table (.gopclntab, which go test binaries keep
// even though they are linked without an ELF symbol table).
//
// An assembly function can appear twice under its name: its ABI0 body and,
// when Go code takes it as a func value, an ABIInternal wrapper that moves
// the register arguments to the stack and calls the body. The wrapper is
// followed to the body: the body is the one another calls.
func LoadFunc(path, name string) (*Func, error) {
	ef, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer ef.Close()
	pcln, text := ef.Section(".gopclntab"), ef.Section(".text")
	if pcln == nil || text == nil {
		return nil, fmt.Errorf("avx512sim: %s has no .gopclntab or .text", path)
	}
	data, err := pcln.Data()
	if err != nil {
		return nil, err
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, text.Addr))
	if err != nil {
		return nil, fmt.Errorf("avx512sim: %s: %w", path, err)
	}
	var cands []gosym.Func
	for _, fn := range tab.Funcs {
		if fn.Name == name {
			cands = append(cands, fn)
		}
	}
	code := func(fn gosym.Func) ([]byte, error) {
		if fn.Entry < text.Addr || fn.End > text.Addr+text.Size || fn.End <= fn.Entry {
			return nil, fmt.Errorf("avx512sim: %s [%#x, %#x) is not inside .text", name, fn.Entry, fn.End)
		}
		b := make([]byte, fn.End-fn.Entry)
		_, err := text.ReadAt(b, int64(fn.Entry-text.Addr))
		return b, err
	}
	body := -1
	switch len(cands) {
	case 0:
		return nil, fmt.Errorf("avx512sim: no function %s in %s", name, path)
	case 1:
		body = 0
	default:
		// The body is the candidate that another one calls.
		for i, w := range cands {
			b, err := code(w)
			if err != nil {
				return nil, err
			}
			lines, err := objdump(b, w.Entry)
			if err != nil {
				return nil, err
			}
			for _, l := range lines {
				f := strings.Fields(l.text)
				if len(f) < 2 || f[0] != "call" {
					continue
				}
				t, err := strconv.ParseUint(strings.TrimPrefix(f[1], "0x"), 16, 64)
				if err != nil {
					continue
				}
				for j, c := range cands {
					if j != i && c.Entry == t {
						body = j
					}
				}
			}
		}
		if body < 0 {
			return nil, fmt.Errorf("avx512sim: %d functions named %s and none calls another", len(cands), name)
		}
	}
	b, err := code(cands[body])
	if err != nil {
		return nil, err
	}
	return Disassemble(name, b, cands[body].Entry)
}
