#include "textflag.h"

// Two almost-Montgomery multiplications side by side, in radix 2^52 with
// AVX-512 IFMA (see amm_amd64.go). Each operand is a pair: 24 lanes of the
// P problem, then 24 of the Q problem; lanes 20-23 are zero. The two
// problems are independent, so the CPU overlaps their dependency chains.
//
// Registers:
//   Z0-Z2  a (P)      Z9-Z11  a (Q)
//   Z3-Z5  m (P)      Z12-Z14 m (Q)
//   Z6-Z8  acc (P)    Z15-Z17 acc (Q)
//   Z18 b[i] (P)      Z20 b[i] (Q)
//   Z19 y (P)         Z21 y (Q)
//   Z22 zero          Z23, Z24 carries
//   Z25-Z27 t (P)     Z28-Z30 t (Q): the high halves of an iteration
//   R14 the 52-bit mask

// func amm2(out, a, b, m *pair, k0 *[2]uint64)
TEXT ·amm2(SB), NOSPLIT, $0-40
	MOVQ out+0(FP), BX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ m+24(FP), DX
	MOVQ k0+32(FP), R13
	MOVQ $0xfffffffffffff, R14

	VMOVDQU64 0(SI), Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z9
	VMOVDQU64 256(SI), Z10
	VMOVDQU64 320(SI), Z11
	VMOVDQU64 0(DX), Z3
	VMOVDQU64 64(DX), Z4
	VMOVDQU64 128(DX), Z5
	VMOVDQU64 192(DX), Z12
	VMOVDQU64 256(DX), Z13
	VMOVDQU64 320(DX), Z14
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z22, Z22, Z22

	XORQ CX, CX

loop:
	VPBROADCASTQ 0(DI)(CX*8), Z18
	VPBROADCASTQ 192(DI)(CX*8), Z20

	// acc += lo(a * b[i])
	VPMADD52LUQ Z18, Z0, Z6
	VPMADD52LUQ Z18, Z1, Z7
	VPMADD52LUQ Z18, Z2, Z8
	VPMADD52LUQ Z20, Z9, Z15
	VPMADD52LUQ Z20, Z10, Z16
	VPMADD52LUQ Z20, Z11, Z17

	// t = hi(a * b[i]), kept apart from acc: it is added after the shift
	// below with one addition, off the chain through lane 0.
	VPXORQ Z25, Z25, Z25
	VPXORQ Z26, Z26, Z26
	VPXORQ Z27, Z27, Z27
	VPXORQ Z28, Z28, Z28
	VPXORQ Z29, Z29, Z29
	VPXORQ Z30, Z30, Z30
	VPMADD52HUQ Z18, Z0, Z25
	VPMADD52HUQ Z18, Z1, Z26
	VPMADD52HUQ Z18, Z2, Z27
	VPMADD52HUQ Z20, Z9, Z28
	VPMADD52HUQ Z20, Z10, Z29
	VPMADD52HUQ Z20, Z11, Z30

	// y = acc[0] * k0 mod 2^52, in every lane (computed in the vector unit:
	// a round trip through a general register is slower); carry =
	// (acc[0] + lo(m[0] * y)) >> 52, the bits that leave lane 0 when it is
	// shifted out below, computed from the same y in general registers,
	// off the chain through lane 0.
	VPXORQ Z19, Z19, Z19
	VPMADD52LUQ.BCST 0(R13), Z6, Z19
	VPBROADCASTQ X19, Z19
	VMOVQ X6, AX
	MOVQ AX, R8
	IMULQ 0(R13), R8
	ANDQ R14, R8
	MOVQ 0(DX), R9
	IMULQ R8, R9
	ANDQ R14, R9
	ADDQ AX, R9
	SHRQ $52, R9

	VPXORQ Z21, Z21, Z21
	VPMADD52LUQ.BCST 8(R13), Z15, Z21
	VPBROADCASTQ X21, Z21
	VMOVQ X15, R10
	MOVQ R10, R11
	IMULQ 8(R13), R11
	ANDQ R14, R11
	MOVQ 192(DX), R12
	IMULQ R11, R12
	ANDQ R14, R12
	ADDQ R10, R12
	SHRQ $52, R12

	// acc += lo(m * y): lane 0 is now a multiple of 2^52. t += hi(m * y).
	VPMADD52LUQ Z19, Z3, Z6
	VPMADD52LUQ Z19, Z4, Z7
	VPMADD52LUQ Z19, Z5, Z8
	VPMADD52LUQ Z21, Z12, Z15
	VPMADD52LUQ Z21, Z13, Z16
	VPMADD52LUQ Z21, Z14, Z17
	VPMADD52HUQ Z19, Z3, Z25
	VPMADD52HUQ Z19, Z4, Z26
	VPMADD52HUQ Z19, Z5, Z27
	VPMADD52HUQ Z21, Z12, Z28
	VPMADD52HUQ Z21, Z13, Z29
	VPMADD52HUQ Z21, Z14, Z30
	VMOVQ R9, X23
	VMOVQ R12, X24
	VPADDQ Z23, Z25, Z25
	VPADDQ Z24, Z28, Z28

	// acc = (acc >> 52, one lane) + t: the high halves belong one lane up,
	// which after the shift is the same lane, and lane 0's carry joins
	// the new lane 0.
	VALIGNQ $1, Z6, Z7, Z6
	VALIGNQ $1, Z7, Z8, Z7
	VALIGNQ $1, Z8, Z22, Z8
	VALIGNQ $1, Z15, Z16, Z15
	VALIGNQ $1, Z16, Z17, Z16
	VALIGNQ $1, Z17, Z22, Z17
	VPADDQ Z25, Z6, Z6
	VPADDQ Z26, Z7, Z7
	VPADDQ Z27, Z8, Z8
	VPADDQ Z28, Z15, Z15
	VPADDQ Z29, Z16, Z16
	VPADDQ Z30, Z17, Z17

	INCQ CX
	CMPQ CX, $20
	JLT loop

	VMOVDQU64 Z6, 0(BX)
	VMOVDQU64 Z7, 64(BX)
	VMOVDQU64 Z8, 128(BX)
	VMOVDQU64 Z15, 192(BX)
	VMOVDQU64 Z16, 256(BX)
	VMOVDQU64 Z17, 320(BX)
	VZEROUPPER

	// Carry propagation: every lane back under 2^52. Both problems in one
	// loop, so their carry chains overlap.
	XORQ R9, R9
	XORQ R12, R12
	XORQ CX, CX

norm:
	MOVQ 0(BX)(CX*8), AX
	ADDQ R9, AX
	MOVQ AX, R9
	SHRQ $52, R9
	ANDQ R14, AX
	MOVQ AX, 0(BX)(CX*8)
	MOVQ 192(BX)(CX*8), R10
	ADDQ R12, R10
	MOVQ R10, R12
	SHRQ $52, R12
	ANDQ R14, R10
	MOVQ R10, 192(BX)(CX*8)
	INCQ CX
	CMPQ CX, $24
	JLT norm
	RET

// func select2(out *pair, tab *[tableSize]pair, iP, iQ uint64)
//
// out = (tab[iP]'s P half, tab[iQ]'s Q half), reading every entry whatever
// the indexes, so that the memory touched says nothing of the exponent.
TEXT ·select2(SB), NOSPLIT, $0-32
	MOVQ out+0(FP), BX
	MOVQ tab+8(FP), SI
	MOVQ iP+16(FP), R8
	MOVQ iQ+24(FP), R9
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	XORQ CX, CX

sel:
	// mask = -(CX == i): all ones for the wanted entry, else zero.
	XORQ AX, AX
	CMPQ CX, R8
	SETEQ AL
	NEGQ AX
	VPBROADCASTQ AX, Z16
	XORQ DX, DX
	CMPQ CX, R9
	SETEQ DL
	NEGQ DX
	VPBROADCASTQ DX, Z17

	VPANDQ 0(SI), Z16, Z6
	VPANDQ 64(SI), Z16, Z7
	VPANDQ 128(SI), Z16, Z8
	VPANDQ 192(SI), Z17, Z9
	VPANDQ 256(SI), Z17, Z10
	VPANDQ 320(SI), Z17, Z11
	VPORQ Z6, Z0, Z0
	VPORQ Z7, Z1, Z1
	VPORQ Z8, Z2, Z2
	VPORQ Z9, Z3, Z3
	VPORQ Z10, Z4, Z4
	VPORQ Z11, Z5, Z5

	ADDQ $384, SI
	INCQ CX
	CMPQ CX, $32
	JLT sel

	VMOVDQU64 Z0, 0(BX)
	VMOVDQU64 Z1, 64(BX)
	VMOVDQU64 Z2, 128(BX)
	VMOVDQU64 Z3, 192(BX)
	VMOVDQU64 Z4, 256(BX)
	VMOVDQU64 Z5, 320(BX)
	VZEROUPPER
	RET
