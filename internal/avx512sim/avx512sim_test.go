//go:build amd64

// GNU as and objdump for x86-64: the host binutils of an amd64 machine.

package avx512sim

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// assemble turns Intel-syntax source into machine code with GNU as (from
// binutils, like objdump) and decodes it at addr.
func assemble(t *testing.T, src string) *Func {
	t.Helper()
	f, err := tryAssemble(t, src)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

const codeAddr = 0x40_0000

func tryAssemble(t *testing.T, src string) (*Func, error) {
	t.Helper()
	dir := t.TempDir()
	s, o, bin := filepath.Join(dir, "t.s"), filepath.Join(dir, "t.o"), filepath.Join(dir, "t.bin")
	if err := os.WriteFile(s, []byte(".intel_syntax noprefix\n"+src+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{{"as", "--64", "-o", o, s}, {"objcopy", "-O", "binary", "-j", ".text", o, bin}} {
		if out, err := exec.Command(c[0], c[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", c[0], err, out)
		}
	}
	code, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	return Disassemble("test", code, codeAddr)
}

func vec(b ...byte) [64]byte {
	var v [64]byte
	copy(v[:], b)
	return v
}

func newMachine(seed uint64) *Machine {
	m := &Machine{}
	m.Scramble(rand.New(rand.NewPCG(seed, seed)))
	return m
}

func run(t *testing.T, m *Machine, f *Func, args ...uint64) {
	t.Helper()
	if err := m.Call(f, args...); err != nil {
		t.Fatal(err)
	}
}

// VPERMI2B: bit 6 of an index picks the second table, bits 0-5 the byte,
// bit 7 is ignored; {k}{z} zeroes unselected lanes, {k} alone keeps the
// index there.
func TestVPERMI2B(t *testing.T) {
	for _, zero := range []bool{false, true} {
		deco := "{k1}"
		if zero {
			deco = "{k1}{z}"
		}
		f := assemble(t, "vpermi2b zmm0"+deco+", zmm1, zmm2\nret")
		m := newMachine(1)
		for i := 0; i < 64; i++ {
			m.Z[1][i] = byte(i)       // table 1: i
			m.Z[2][i] = byte(100 + i) // table 2: 100+i
		}
		m.Z[0] = vec(0, 63, 64, 127, 0x80|5, 0xC0|5, 7)
		m.K[1] = 0b0111111 // lane 6 not selected
		run(t, m, f)
		want := []byte{0, 63, 100, 163, 5, 105, 7}
		if zero {
			want[6] = 0
		}
		if got := m.Z[0][:7]; string(got) != string(want) {
			t.Errorf("%s: got %v, want %v", deco, got, want)
		}
	}
}

// VPERMB picks table bytes by the low 6 bits of each index; VPMINUB is an
// unsigned byte minimum; both take {k}{z} and a memory table.
func TestVPERMBAndVPMINUB(t *testing.T) {
	f := assemble(t, "mov rsi, QWORD PTR [rsp+0x8]\nvpermb zmm0{k1}{z}, zmm1, zmm2\nvpminub zmm3, zmm1, ZMMWORD PTR [rsi]\nret")
	m := newMachine(3)
	for i := 0; i < 64; i++ {
		m.Z[2][i] = byte(200 - i)
	}
	m.Z[1] = vec(0, 63, 64|5, 0xC0|7, 0x7f, 9)
	m.K[1] = 0b011111 // lane 5 not selected
	mem := vec(1, 62, 0x7f, 0x80, 0xff, 9)
	m.Regions = []*Region{{Name: "mem", Addr: 0x1000, Data: mem[:]}}
	run(t, m, f, 0x1000)
	if got, want := m.Z[0][:6], []byte{200, 137, 195, 193, 137, 0}; string(got) != string(want) {
		t.Errorf("vpermb: got %v, want %v", got, want)
	}
	if got, want := m.Z[3][:6], []byte{0, 62, 0x40 | 5, 0x80, 0x7f, 9}; string(got) != string(want) {
		t.Errorf("vpminub: got %v, want %v", got, want)
	}
}

// VGF2P8AFFINEQB with the SDM's identity matrix 0x0102040810204080 keeps
// every byte, with 0x8040201008040201 reverses its bits, XORs imm8 in, and
// with bytes as the matrix and 1<<j as the vector transposes a qword as an
// 8x8 bit matrix (bit i of byte j is bit j of byte 7-i).
func TestVGF2P8AFFINEQB(t *testing.T) {
	f := assemble(t, `vgf2p8affineqb zmm0, zmm1, zmm2, 0
vgf2p8affineqb zmm3, zmm1, zmm4, 0x0f
vgf2p8affineqb zmm5, zmm6, zmm1, 0
ret`)
	m := newMachine(4)
	for i := 0; i < 64; i++ {
		m.Z[1][i] = byte(i*37 + 1)
	}
	for q := 0; q < 8; q++ {
		binary.LittleEndian.PutUint64(m.Z[2][8*q:], 0x0102040810204080)
		binary.LittleEndian.PutUint64(m.Z[4][8*q:], 0x8040201008040201)
		binary.LittleEndian.PutUint64(m.Z[6][8*q:], 0x8040201008040201)
	}
	run(t, m, f)
	for i := 0; i < 64; i++ {
		x := byte(i*37 + 1)
		if m.Z[0][i] != x {
			t.Fatalf("identity, byte %d: %#x, want %#x", i, m.Z[0][i], x)
		}
		if want := bits.Reverse8(x) ^ 0x0f; m.Z[3][i] != want {
			t.Fatalf("reverse ^ 0x0f, byte %d: %#x, want %#x", i, m.Z[3][i], want)
		}
		q, j := i/8, i%8
		var want byte
		for bit := 0; bit < 8; bit++ {
			want |= (m.Z[1][8*q+7-bit] >> j & 1) << bit
		}
		if m.Z[5][i] != want {
			t.Fatalf("transpose, byte %d: %#x, want %#x", i, m.Z[5][i], want)
		}
	}
}

// VPTESTMB k{k}: AND of the lanes non-zero, only in lanes the mask selects;
// VPTESTNMB the opposite; VPMOVB2M the sign bits.
func TestVPTESTMBAndVPMOVB2M(t *testing.T) {
	f := assemble(t, "vptestmb k2{k3}, zmm4, zmm5\nvptestnmb k6, zmm4, zmm5\nvpmovb2m k7, zmm4\nret")
	m := newMachine(2)
	m.Z[4] = vec(1, 2, 0x80, 0xff, 0)
	m.Z[5] = vec(1, 1, 0x81, 0x01, 0xff)
	m.K[3] = 0b1101 // lane 1 not selected
	run(t, m, f)
	if m.K[2] != 0b1101 {
		t.Errorf("vptestmb: %b, want 1101", m.K[2])
	}
	// NM: lanes 1 (2&1==0), 4 and every zero lane from 5 on.
	if want := ^uint64(0) &^ 0b01101; m.K[6] != want {
		t.Errorf("vptestnmb: %b, want %b", m.K[6], want)
	}
	if m.K[7] != 0b1100 {
		t.Errorf("vpmovb2m: %b, want 1100", m.K[7])
	}
}

// A zeroing masked load touches only the selected bytes: the others may
// lie outside memory; a merging one keeps the register's old bytes.
func TestMaskedLoad(t *testing.T) {
	f := assemble(t, "vmovdqu8 zmm0{k5}{z}, ZMMWORD PTR [rsi]\nvmovdqu8 zmm1{k5}, ZMMWORD PTR [rsi]\nret")
	m := newMachine(3)
	m.Regions = []*Region{{Name: "src", Addr: 0x1000, Data: []byte("abc")}}
	m.R[6] = 0x1000
	m.K[5] = 0b111
	old := m.Z[1]
	run(t, m, f)
	if string(m.Z[0][:4]) != "abc\x00" || m.Z[0][63] != 0 {
		t.Errorf("zeroing: %q", m.Z[0][:8])
	}
	if string(m.Z[1][:3]) != "abc" || string(m.Z[1][3:]) != string(old[3:]) {
		t.Errorf("merging: %q, old %q", m.Z[1][:8], old[:8])
	}
	// One lane more is a read past the region.
	m.K[5] = 0b1111
	if err := m.Call(f); err == nil || !strings.Contains(err.Error(), "outside every region") {
		t.Errorf("a 4-lane load of 3 bytes: %v", err)
	}
	// Unmasked, the whole vector is read.
	g := assemble(t, "vmovdqu8 zmm0, ZMMWORD PTR [rsi]\nret")
	if err := m.Call(g); err == nil || !strings.Contains(err.Error(), "past the end of src") {
		t.Errorf("an unmasked load of 3 bytes: %v", err)
	}
}

// KANDNQ k1, k2, k3 is NOT(k2) AND k3; KNOTQ, KORQ; KMOVQ both ways.
func TestOpmaskOps(t *testing.T) {
	f := assemble(t, "kandnq k6, k1, k5\nknotq k2, k1\nkorq k3, k1, k5\nkmovq rax, k6\nkmovq k7, rbx\nret")
	m := newMachine(4)
	m.K[1], m.K[5], m.R[3] = 0b1100, 0b1010, 0xdead
	run(t, m, f)
	if m.K[6] != 0b0010 || m.K[2] != ^uint64(0b1100) || m.K[3] != 0b1110 || m.R[0] != 0b0010 || m.K[7] != 0xdead {
		t.Errorf("kandn %b knot %x kor %b rax %b k7 %x", m.K[6], m.K[2], m.K[3], m.R[0], m.K[7])
	}
}

// The loop of a kernel: CMP/SUB/JAE and TEST/JZ; a 32-bit MOV clears the
// upper half; VPBROADCASTD from a register.
func TestFlagsAndLoop(t *testing.T) {
	f := assemble(t, `
	xor  edx, edx
	mov  rcx, 200
loop:
	cmp  rcx, 64
	jb   done
	add  rdx, 1
	sub  rcx, 64
	jmp  loop
done:
	test rcx, rcx
	jz   zero
	mov  eax, 0x1010101
	vpbroadcastd zmm9, eax
zero:
	ret`)
	m := newMachine(5)
	run(t, m, f)
	if m.R[2] != 3 || m.R[1] != 8 || m.R[0] != 0x1010101 || m.Z[9][63] != 1 || m.Z[9][62] != 1 {
		t.Errorf("rdx %d rcx %d rax %#x zmm9[62:] %v", m.R[2], m.R[1], m.R[0], m.Z[9][62:])
	}
}

// A jump on a flag an instruction left undefined is an error: SHL by more
// than one leaves OF undefined.
func TestUndefinedFlag(t *testing.T) {
	f := assemble(t, "shl rax, cl\njo over\nover: ret")
	m := newMachine(6)
	m.R[1] = 3
	if err := m.Call(f); err == nil || !strings.Contains(err.Error(), "OF, which is undefined") {
		t.Errorf("jo after shl by 3: %v", err)
	}
	g := assemble(t, "jb over\nover: ret") // flags never set: Scramble leaves them undefined
	if err := newMachine(7).Call(g); err == nil || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("jb on scrambled flags: %v", err)
	}
}

// VZEROUPPER clears bits 128 and up of zmm0-15 only.
func TestVZEROUPPER(t *testing.T) {
	f := assemble(t, "vzeroupper\nret")
	m := newMachine(8)
	z16 := m.Z[16]
	lo := m.Z[3]
	run(t, m, f)
	if string(m.Z[3][:16]) != string(lo[:16]) || m.Z[3][16] != 0 || m.Z[15][63] != 0 || m.Z[16] != z16 {
		t.Error("vzeroupper")
	}
}

// Stores go only to writable regions; the ABI0 arguments are at 8(SP).
func TestMemoryAndArgs(t *testing.T) {
	f := assemble(t, "mov rdi, QWORD PTR [rsp+0x8]\nmov rax, QWORD PTR [rsp+0x10]\nmov QWORD PTR [rdi+0x8], rax\nret")
	m := newMachine(9)
	dst := make([]byte, 16)
	m.Regions = []*Region{{Name: "dst", Addr: 0x5000, Data: dst, Writable: true}}
	run(t, m, f, 0x5000, 0x1122334455667788)
	if binary.LittleEndian.Uint64(dst[8:]) != 0x1122334455667788 {
		t.Errorf("dst %x", dst)
	}
	m.Regions[0].Writable = false
	if err := m.Call(f, 0x5000, 1); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("store to a read-only region: %v", err)
	}
	if err := m.Call(f, 0x5009, 1); err == nil || !strings.Contains(err.Error(), "past the end of dst") {
		t.Errorf("store straddling the region's end: %v", err)
	}
}

// Anything not modelled is refused when decoded, never skipped.
func TestUnmodelledRefused(t *testing.T) {
	for _, src := range []string{
		"vpaddb zmm0, zmm1, zmm2\nret",           // instruction
		"vpternlogd zmm0, zmm1, zmm2, 0x96\nret", // instruction
		"kmovq k1, k2\nkshiftlq k1, k2, 3\nret",  // instruction after a modelled one
		"cmovb rax, rbx\nret",                    // instruction
		"rep movsb\nret",                         // prefix
		"mov rax, QWORD PTR fs:[rax]\nret",       // segment
		"lea rax, [eax+0x4]\nret",                // 32-bit address
	} {
		f, err := tryAssembleLenient(t, src)
		switch {
		case f == nil && err == nil:
			t.Errorf("%q: GNU as refuses it: not a test of the decoder", strings.SplitN(src, "\n", 2)[0])
		case err == nil:
			t.Errorf("%q decoded, want a refusal", src)
		default:
			t.Logf("refused: %v", err)
		}
	}
}

// tryAssembleLenient is tryAssemble that reports (nil, nil) when GNU as
// rejects the source.
func tryAssembleLenient(t *testing.T, src string) (*Func, error) {
	dir := t.TempDir()
	s, o := filepath.Join(dir, "t.s"), filepath.Join(dir, "t.o")
	os.WriteFile(s, []byte(".intel_syntax noprefix\n"+src+"\n"), 0o600)
	if exec.Command("as", "--64", "-o", o, s).Run() != nil {
		return nil, nil
	}
	return tryAssemble(t, src)
}

// A loop that never ends, and a return to an overwritten address, are
// errors.
func TestRunawayAndBadReturn(t *testing.T) {
	f := assemble(t, "l: jmp l")
	m := newMachine(10)
	m.MaxSteps = 1000
	if err := m.Call(f); err == nil || !strings.Contains(err.Error(), "more than 1000") {
		t.Errorf("endless loop: %v", err)
	}
	g := assemble(t, "mov QWORD PTR [rsp], rax\nret")
	if err := newMachine(11).Call(g); err == nil || !strings.Contains(err.Error(), "not to the caller") {
		t.Errorf("overwritten return address: %v", err)
	}
	h := assemble(t, "xor ebp, ebp\nret")
	if err := newMachine(12).Call(h); err == nil || !strings.Contains(err.Error(), "RBP") {
		t.Errorf("clobbered RBP: %v", err)
	}
}

// Runs of zero bytes are decoded (objdump elides them by default), and the
// instructions must cover the code without a gap.
func TestZeroBytesDecoded(t *testing.T) {
	code := []byte{0xb8, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x48, 0x83, 0xc0, 0x01, 0xc3}
	f, err := Disassemble("zeros", code, codeAddr)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Insts) != 7 { // mov, 4 x add BYTE PTR [rax],al, add, ret
		t.Fatalf("%d instructions, want 7: %v", len(f.Insts), f.Insts)
	}
	// They execute: the add to [rax] is a write outside every region.
	m := newMachine(13)
	if err := m.Call(f); err == nil || !strings.Contains(err.Error(), "outside every region") {
		t.Errorf("add BYTE PTR [rax], al at address 1: %v", err)
	}
}

// TestGPRInstructions runs each modelled general-purpose instruction on
// known inputs and checks the result and the flags it defines (values as
// the SDM gives them).
func TestGPRInstructions(t *testing.T) {
	const C, Z, S, O = flagCF, flagZF, flagSF, flagOF
	for _, c := range []struct {
		asm       string
		rax, rbx  uint64
		want      uint64 // rax afterwards
		defined   uint8  // flags that must be defined
		flags     uint8  // their values
		undefined uint8  // flags that must be undefined
	}{
		{"add rax, rbx", 1<<63 | 5, 1 << 63, 5, C | Z | S | O, C | O, 0},
		{"add eax, ebx", 0xffffffff_ffffffff, 1, 0, C | Z | S | O, C | Z, 0}, // 32-bit: wraps, clears the upper half
		{"sub rax, rbx", 3, 5, ^uint64(1), C | Z | S | O, C | S, 0},
		{"sub rax, rbx", 1 << 63, 1, 1<<63 - 1, C | Z | S | O, O, 0},
		{"cmp rax, rbx", 7, 7, 7, C | Z | S | O, Z, 0},
		{"and rax, rbx", 0b1100, 0b1010, 0b1000, C | Z | S | O, 0, 0},
		{"or rax, rbx", 0b1100, 0b1010, 0b1110, C | Z | S | O, 0, 0},
		{"xor rax, rbx", 0b1100, 0b1100, 0, C | Z | S | O, Z, 0},
		{"test rax, rbx", 1 << 63, 1 << 63, 1 << 63, C | Z | S | O, S, 0},
		{"inc rax", 1<<63 - 1, 0, 1 << 63, Z | S | O, S | O, 0},
		{"dec rax", 1, 0, 0, Z | S | O, Z, 0},
		{"neg rax", 5, 0, ^uint64(4), C | Z | S | O, C | S, 0},
		{"not rax", 0, 0, ^uint64(0), 0, 0, 0},
		{"lea rax, [rax+rbx*8+0x10]", 1, 2, 1 + 16 + 16, 0, 0, 0},
		{"mov al, bl", 0x1234, 0xff, 0x12ff, 0, 0, 0},
		{"mov ah, bl", 0x1234, 0xff, 0xff34, 0, 0, 0},
		{"mov eax, ebx", 0xffffffff_00000000, 7, 7, 0, 0, 0},
		{"movabs rax, 0x123456789abcdef0", 0, 0, 0x123456789abcdef0, 0, 0, 0},
		{"shl rax, 1", 1 << 63, 0, 0, C | Z | S | O, C | Z | O, 0},
		{"shl rax, 4", 0x1f << 59, 0, 0xf << 63 & (1 << 63), C | Z | S, C | S, O},
		{"shr rax, 1", 3, 0, 1, C | Z | S | O, C, 0},
		{"sar rax, 2", 1<<63 | 2, 0, 0xe000000000000000, C | Z | S, C | S, O},
		{"shr rax, 0", 3, 0, 3, 0, 0, 0},
		{"shl eax, 0", ^uint64(0), 0, 0xffffffff, 0, 0, 0}, // a 32-bit write, even by 0
		{"shl eax, cl", 1<<32 | 1, 0, 1, 0, 0, 0},          // cl is scrambled: set below
		{"shl al, 8", 0x1ff, 0, 0x100, Z | S, Z, C | O},    // CF undefined at the width
		{"sar al, 9", 0x80, 0, 0xff, C | Z | S, C | S, O},  // SAR's CF is the sign bit
		{"sar rax, 63", 1 << 63, 0, ^uint64(0), C | Z | S, S, O},
	} {
		f := assemble(t, c.asm+"\nret")
		m := newMachine(20)
		m.R[rax], m.R[rbx], m.R[rcx] = c.rax, c.rbx, 0
		m.valid = 0
		run(t, m, f)
		if m.R[rax] != c.want {
			t.Errorf("%s: rax %#x, want %#x", c.asm, m.R[rax], c.want)
		}
		if m.valid&c.defined != c.defined || m.flags&c.defined != c.flags {
			t.Errorf("%s: flags %04b (defined %04b), want %04b of %04b", c.asm, m.flags, m.valid, c.flags, c.defined)
		}
		if m.valid&c.undefined != 0 {
			t.Errorf("%s: flags %04b defined, want undefined", c.asm, m.valid&c.undefined)
		}
	}
}

// Every condition code on the flags a CMP leaves, against Go's own
// comparisons.
func TestConditions(t *testing.T) {
	vals := []uint64{0, 1, 2, 1 << 63, 1<<63 - 1, ^uint64(0)}
	conds := []struct {
		cc string
		f  func(a, b uint64) bool
	}{
		{"b", func(a, b uint64) bool { return a < b }},
		{"ae", func(a, b uint64) bool { return a >= b }},
		{"e", func(a, b uint64) bool { return a == b }},
		{"ne", func(a, b uint64) bool { return a != b }},
		{"be", func(a, b uint64) bool { return a <= b }},
		{"a", func(a, b uint64) bool { return a > b }},
		{"l", func(a, b uint64) bool { return int64(a) < int64(b) }},
		{"ge", func(a, b uint64) bool { return int64(a) >= int64(b) }},
		{"le", func(a, b uint64) bool { return int64(a) <= int64(b) }},
		{"g", func(a, b uint64) bool { return int64(a) > int64(b) }},
		{"s", func(a, b uint64) bool { return int64(a-b) < 0 }},
		{"ns", func(a, b uint64) bool { return int64(a-b) >= 0 }},
		{"o", func(a, b uint64) bool {
			d := int64(a) - int64(b)
			return (int64(a) < 0) != (int64(b) < 0) && (d < 0) != (int64(a) < 0)
		}},
		{"no", func(a, b uint64) bool {
			d := int64(a) - int64(b)
			return !((int64(a) < 0) != (int64(b) < 0) && (d < 0) != (int64(a) < 0))
		}},
	}
	for _, c := range conds {
		f := assemble(t, "xor ecx, ecx\ncmp rax, rbx\nj"+c.cc+" yes\nret\nyes: mov ecx, 1\nret")
		for _, a := range vals {
			for _, b := range vals {
				m := newMachine(21)
				m.R[rax], m.R[rbx] = a, b
				run(t, m, f)
				if got := m.R[rcx] == 1; got != c.f(a, b) {
					t.Errorf("cmp %#x, %#x; j%s: taken %v", a, b, c.cc, got)
				}
			}
		}
	}
}

// The remaining opmask and vector forms: KXOR/KXNOR/KANDQ, the narrow
// widths, KORTEST's flags, masked stores, the aligned moves' #GP, the
// broadcasts' widths and sources, VPTESTMB with a memory operand and
// VPERMI2B on ymm.
func TestVectorForms(t *testing.T) {
	f := assemble(t, `
	kxorq k1, k2, k3
	kxnord k4, k2, k3
	kandw k5, k2, k3
	knotb k6, k2
	kmovd eax, k2
	kmovq QWORD PTR [rdi], k3
	kmovw k7, WORD PTR [rdi]
	kortestq k0, k0
	ret`)
	m := newMachine(22)
	m.K[0], m.K[2], m.K[3] = 0, 0xffff_0000_ff00_f0f0, 0x0f0f_0ff0_f0f0_ff00
	mem := make([]byte, 8)
	m.Regions = []*Region{{Name: "mem", Addr: 0x9000, Data: mem, Writable: true}}
	m.R[7] = 0x9000
	run(t, m, f)
	if m.K[1] != m.K[2]^m.K[3] || m.K[4] != ^(m.K[2]^m.K[3])&0xffffffff || m.K[5] != m.K[2]&m.K[3]&0xffff ||
		m.K[6] != ^m.K[2]&0xff || m.R[rax] != m.K[2]&0xffffffff || m.K[7] != m.K[3]&0xffff {
		t.Errorf("k1 %x k4 %x k5 %x k6 %x eax %x k7 %x", m.K[1], m.K[4], m.K[5], m.K[6], m.R[rax], m.K[7])
	}
	if m.flags&(flagZF|flagCF) != flagZF || m.valid&allFlags != allFlags {
		t.Errorf("kortestq k0, k0 (zero): flags %04b", m.flags)
	}

	g := assemble(t, `
	vpbroadcastb zmm1, BYTE PTR [rsi]
	vpbroadcastq ymm2, rax
	vpbroadcastw xmm3{k1}{z}, xmm1
	vmovdqu64 ZMMWORD PTR [rdi]{k1}, zmm1
	vptestmb k2, zmm1, ZMMWORD PTR [rdi]
	vpermi2b ymm4, ymm5, ymm6
	vmovdqa64 zmm7, ZMMWORD PTR [rsi]
	ret`)
	m = newMachine(23)
	src := make([]byte, 64)
	src[0] = 0x5a
	dst := make([]byte, 64)
	m.Regions = []*Region{{Name: "src", Addr: 0xa000, Data: src}, {Name: "dst", Addr: 0xb000, Data: dst, Writable: true}}
	m.R[6], m.R[7], m.R[rax], m.K[1] = 0xa000, 0xb000, 0x0102030405060708, 0b101
	for i := 0; i < 32; i++ {
		m.Z[4][i], m.Z[5][i], m.Z[6][i] = byte(i*9), byte(i), byte(100+i)
	}
	run(t, m, g)
	if m.Z[1][0] != 0x5a || m.Z[1][63] != 0x5a {
		t.Error("vpbroadcastb from memory")
	}
	if binary.LittleEndian.Uint64(m.Z[2][24:]) != 0x0102030405060708 || m.Z[2][32] != 0 {
		t.Error("vpbroadcastq ymm from a register: the value in every qword, zero above 32 bytes")
	}
	if m.Z[3][0] != 0x5a || m.Z[3][2] != 0 || m.Z[3][4] != 0x5a || m.Z[3][6] != 0 {
		t.Errorf("vpbroadcastw xmm{k1}{z}: %x", m.Z[3][:8])
	}
	// Qwords 0 and 2 stored, 1 and 3-7 untouched (zero).
	if dst[0] != 0x5a || dst[8] != 0 || dst[16] != 0x5a || dst[24] != 0 {
		t.Errorf("masked store: %x", dst[:32])
	}
	if want := uint64(0xff) | 0xff<<16; m.K[2] != want {
		t.Errorf("vptestmb with memory: %x, want %x", m.K[2], want)
	}
	for i := 0; i < 32; i++ {
		j := i * 9 & 63
		want := byte(j)
		if j&32 != 0 {
			want = byte(100 + j&31)
		}
		if m.Z[4][i] != want {
			t.Fatalf("vpermi2b ymm lane %d: %d, want %d", i, m.Z[4][i], want)
		}
	}
	if m.Z[7][0] != 0x5a {
		t.Error("vmovdqa64 aligned load")
	}
	m.R[6] = 0xa001
	h := assemble(t, "vmovdqa64 zmm7, ZMMWORD PTR [rsi]\nret")
	if err := m.Call(h); err == nil || !strings.Contains(err.Error(), "#GP") {
		t.Errorf("unaligned vmovdqa64: %v", err)
	}
}
