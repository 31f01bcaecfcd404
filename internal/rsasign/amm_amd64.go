package rsasign

import "golang.org/x/sys/cpu"

// The fast path needs AVX-512 Foundation (the 512-bit registers and
// VALIGNQ) and IFMA (VPMADD52LUQ/HUQ: 52-bit multiply-adds, eight lanes at
// a time). x/sys/cpu reports them only when the OS saves the registers.
var supported = cpu.X86.HasAVX512F && cpu.X86.HasAVX512IFMA

// amm2 sets out to the almost-Montgomery products a·b·R⁻¹ mod m of both
// halves of the pairs (P with P, Q with Q), R = 2^1040: the result, which
// is less than a·b/R + m, is congruent to that product and less than 2m
// when a·b < m·R. Every operand here is below 4m < 2^1026, so a·b is
// below 2^2052, far under m·R (at least 2^2063). Every lane of a, b and m
// must be below 2^52; every lane of out is. out may alias a or b.
//
//go:noescape
func amm2(out, a, b, m *pair, k0 *[2]uint64)

// select2 sets out to tab[iP]'s P half and tab[iQ]'s Q half, reading every
// entry of tab whatever the indexes.
//
//go:noescape
func select2(out *pair, tab *[tableSize]pair, iP, iQ uint64)
