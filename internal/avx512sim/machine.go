package avx512sim

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
)

// Region is a range of the machine's memory: Data is its content at Addr.
// Every access must lie inside one region; a write needs Writable.
type Region struct {
	Name     string
	Addr     uint64
	Data     []byte
	Writable bool
}

// Flags of the arithmetic flags register that the interpreter tracks.
const (
	flagCF = 1 << iota
	flagZF
	flagSF
	flagOF
	allFlags = flagCF | flagZF | flagSF | flagOF
)

// Machine is the architectural state the interpreter models.
type Machine struct {
	R     [16]uint64   // rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, r8-r15
	Z     [32][64]byte // zmm0-zmm31 (xmm and ymm are their low bytes)
	K     [8]uint64    // k0-k7
	flags uint8        // values of CF, ZF, SF, OF
	valid uint8        // which of them are defined

	Regions []*Region
	rng     *rand.Rand // from Scramble: fills each call's stack
	// MaxSteps bounds one Call (0: 1 << 20 instructions).
	MaxSteps int
	// Steps counts the instructions the last Call executed.
	Steps int
	// Executed, when not nil, counts executions per instruction address.
	Executed map[uint64]int
}

// Error is an execution error: what went wrong at which instruction.
type Error struct {
	Inst *Inst
	Msg  string
}

func (e *Error) Error() string {
	if e.Inst == nil {
		return "avx512sim: " + e.Msg
	}
	return fmt.Sprintf("avx512sim: at %s: %s", e.Inst, e.Msg)
}

// returnSentinel is the return address Call pushes; RET to it ends the call.
const returnSentinel = 0x0bad_c0de_0bad_c0de

// stackBase is where Call puts its stack region.
const stackBase = 0x7fff_0000_0000

// Scramble fills every register with pseudo-random bytes from r and marks
// the flags undefined, so that a function which reads state it did not set
// (a register the ABI does not define, the old content of a merge-masked
// destination) gets garbage, as on a real CPU, instead of helpful zeros.
func (m *Machine) Scramble(r *rand.Rand) {
	for i := range m.R {
		m.R[i] = r.Uint64()
	}
	for i := range m.Z {
		for j := 0; j < 64; j += 8 {
			binary.LittleEndian.PutUint64(m.Z[i][j:], r.Uint64())
		}
	}
	for i := range m.K {
		m.K[i] = r.Uint64()
	}
	m.flags, m.valid = uint8(r.Uint32()), 0
	m.rng = r
}

// Call runs f as a Go ABI0 function: it pushes args on a fresh 4 KiB stack
// region (args[0] at 8(SP), as the Go assembler's arg+0(FP)), then the
// return address, and runs until f returns. Registers keep their state
// (see Scramble), except RSP; the rest of the stack holds random bytes
// after Scramble, so a wrong frame offset reads garbage. f must return
// with RBP (Go's frame pointer) as it found it.
func (m *Machine) Call(f *Func, args ...uint64) error {
	stack := &Region{Name: "stack", Addr: stackBase, Data: make([]byte, 4096), Writable: true}
	if m.rng != nil {
		for i := 0; i < len(stack.Data); i += 8 {
			binary.LittleEndian.PutUint64(stack.Data[i:], m.rng.Uint64())
		}
	}
	sp := stack.Addr + 2048
	binary.LittleEndian.PutUint64(stack.Data[sp-stack.Addr:], returnSentinel)
	for i, a := range args {
		binary.LittleEndian.PutUint64(stack.Data[sp-stack.Addr+8+8*uint64(i):], a)
	}
	m.Regions = append(m.Regions, stack)
	defer func() { m.Regions = m.Regions[:len(m.Regions)-1] }()
	m.R[rsp] = sp
	limit := m.MaxSteps
	if limit == 0 {
		limit = 1 << 20
	}
	m.Steps = 0
	bp := m.R[rbp]
	pc := f.Addr
	for {
		i, ok := f.at[pc]
		if !ok {
			return &Error{Msg: fmt.Sprintf("control reached %#x, not an instruction of %s", pc, f.Name)}
		}
		in := f.Insts[i]
		if m.Steps++; m.Steps > limit {
			return &Error{Inst: in, Msg: fmt.Sprintf("more than %d instructions", limit)}
		}
		if m.Executed != nil {
			m.Executed[in.Addr]++
		}
		next, err := in.exec(m, in)
		if err != nil {
			if e, ok := err.(*Error); ok {
				e.Inst = in
				return e
			}
			return &Error{Inst: in, Msg: err.Error()}
		}
		switch next {
		case 0:
			pc = in.Next
		case returnSentinel:
			if m.R[rbp] != bp {
				return &Error{Inst: in, Msg: fmt.Sprintf("returns with RBP %#x, called with %#x", m.R[rbp], bp)}
			}
			return nil
		default:
			pc = next
		}
	}
}

// find returns the region that holds [addr, addr+n), or an error naming
// the access.
func (m *Machine) find(addr uint64, n int, write bool) (*Region, uint64, error) {
	for _, r := range m.Regions {
		if addr >= r.Addr && addr-r.Addr < uint64(len(r.Data)) {
			off := addr - r.Addr
			if off+uint64(n) > uint64(len(r.Data)) {
				return nil, 0, &Error{Msg: fmt.Sprintf("%d-byte access at %#x runs %d bytes past the end of %s (%d bytes at %#x)",
					n, addr, off+uint64(n)-uint64(len(r.Data)), r.Name, len(r.Data), r.Addr)}
			}
			if write && !r.Writable {
				return nil, 0, &Error{Msg: fmt.Sprintf("write of %d bytes at %#x into read-only %s", n, addr, r.Name)}
			}
			return r, off, nil
		}
	}
	what := "read"
	if write {
		what = "write"
	}
	return nil, 0, &Error{Msg: fmt.Sprintf("%d-byte %s at %#x outside every region%s", n, what, addr, m.near(addr))}
}

// near describes the region closest to addr, for messages.
func (m *Machine) near(addr uint64) string {
	for _, r := range m.Regions {
		end := r.Addr + uint64(len(r.Data))
		if addr >= end && addr-end < 4096 {
			return fmt.Sprintf(" (%d bytes past the end of %s)", addr-end, r.Name)
		}
		if addr < r.Addr && r.Addr-addr < 4096 {
			return fmt.Sprintf(" (%d bytes before %s)", r.Addr-addr, r.Name)
		}
	}
	return ""
}

func (m *Machine) load(addr uint64, dst []byte) error {
	r, off, err := m.find(addr, len(dst), false)
	if err != nil {
		return err
	}
	copy(dst, r.Data[off:])
	return nil
}

func (m *Machine) store(addr uint64, src []byte) error {
	r, off, err := m.find(addr, len(src), true)
	if err != nil {
		return err
	}
	copy(r.Data[off:], src)
	return nil
}

// addr computes a memory operand's effective address.
func (m *Machine) addr(in *Inst, o *Operand) uint64 {
	var a uint64
	switch {
	case o.Base == ripReg:
		a = in.Next
	case o.Base >= 0:
		a = m.R[o.Base]
	}
	if o.Index >= 0 {
		a += m.R[o.Index] * uint64(o.Scale)
	}
	return a + uint64(o.Disp)
}

// Register numbers used by name.
const (
	rax = iota
	rcx
	rdx
	rbx
	rsp
	rbp
)

func sizeMask(size int) uint64 {
	if size >= 8 {
		return ^uint64(0)
	}
	return uint64(1)<<(8*size) - 1
}

// getGPR reads a general-purpose register operand, zero-extended.
func (m *Machine) getGPR(o *Operand) uint64 {
	if o.Hi8 {
		return m.R[o.Reg] >> 8 & 0xff
	}
	return m.R[o.Reg] & sizeMask(o.Size)
}

// setGPR writes a general-purpose register operand: a 32-bit write clears
// the upper half, 8- and 16-bit writes keep the other bits.
func (m *Machine) setGPR(o *Operand, v uint64) {
	switch {
	case o.Hi8:
		m.R[o.Reg] = m.R[o.Reg]&^0xff00 | (v&0xff)<<8
	case o.Size == 8:
		m.R[o.Reg] = v
	case o.Size == 4:
		m.R[o.Reg] = v & 0xffffffff
	default:
		k := sizeMask(o.Size)
		m.R[o.Reg] = m.R[o.Reg]&^k | v&k
	}
}

// setFlags sets the flags in which to the values in v (bit per flag) and
// marks them defined; undef marks others undefined.
func (m *Machine) setFlags(which, v, undef uint8) {
	m.flags = m.flags&^which | v&which
	m.valid = m.valid&^undef | which
}

// flag reads one flag, failing when an instruction left it undefined.
func (m *Machine) flag(f uint8) (bool, error) {
	if m.valid&f == 0 {
		names := map[uint8]string{flagCF: "CF", flagZF: "ZF", flagSF: "SF", flagOF: "OF"}
		return false, &Error{Msg: "reads " + names[f] + ", which is undefined here"}
	}
	return m.flags&f != 0, nil
}
