package rsasign

import "math/bits"

// Sizes of the fast path: 2048-bit keys of two 1024-bit primes.
const (
	limbs     = 20 // 52-bit digits of a number below R = 2^1040
	lanes     = 24 // limbs rounded up to three 8-lane registers
	mask52    = 1<<52 - 1
	words     = 16 // 64-bit words of a 1024-bit number
	wide      = words + 2
	window    = 5 // exponent bits per table lookup
	tableSize = 1 << window
	expBits   = 1025 // exponent bits processed, a multiple of window
	windows   = expBits / window
)

// nat is a number as 64-bit words, least significant first, with room
// for 1040 bits and a carry.
type nat [wide]uint64

// lanes52 is a number below 2^1040 as 52-bit digits, one per 64-bit lane.
type lanes52 [lanes]uint64

// pair is the P number's lanes, then the Q number's: amm2 and select2
// work on both halves at once.
type pair [2 * lanes]uint64

func (p *pair) set(h int, x *lanes52) { copy(p[h*lanes:(h+1)*lanes], x[:]) }

func (p *pair) half(h int) (x lanes52) {
	copy(x[:], p[h*lanes:(h+1)*lanes])
	return x
}

// natOf reads big-endian bytes (at most 8*wide of them).
func natOf(b []byte) (x nat) {
	for i, c := range b {
		pos := len(b) - 1 - i
		x[pos/8] |= uint64(c) << (8 * (pos % 8))
	}
	return x
}

// bytesOf writes the low len(out) bytes of the words of x big-endian.
func bytesOf(out []byte, x []uint64) {
	for i := range out {
		pos := len(out) - 1 - i
		out[i] = byte(x[pos/8] >> (8 * (pos % 8)))
	}
}

// to52 converts x, below 2^1040, to 52-bit digits. The branches depend
// on digit positions only, never on values.
func to52(x *nat) (out lanes52) {
	for j := range limbs {
		w, s := 52*j/64, uint(52*j%64)
		v := x[w] >> s
		if s > 12 {
			v |= x[w+1] << (64 - s)
		}
		out[j] = v & mask52
	}
	return out
}

// from52 converts digits, each below 2^52, back to words.
func from52(x *lanes52) (out nat) {
	for j := range limbs {
		w, s := 52*j/64, uint(52*j%64)
		out[w] |= x[j] << s
		if s > 12 {
			out[w+1] |= x[j] >> (64 - s)
		}
	}
	return out
}

// subIfGE sets x to x-m when x ≥ m, in constant time.
func subIfGE(x, m *nat) {
	var z nat
	var borrow uint64
	for i := range x {
		z[i], borrow = bits.Sub64(x[i], m[i], borrow)
	}
	keep := -borrow // all ones when x < m
	for i := range x {
		x[i] = x[i]&keep | z[i]&^keep
	}
}

// subMod sets x to x-y mod m, for x, y < m, in constant time.
func subMod(x, y, m *nat) {
	var borrow uint64
	for i := range x {
		x[i], borrow = bits.Sub64(x[i], y[i], borrow)
	}
	add := -borrow // all ones when x < y: add m back
	var carry uint64
	for i := range x {
		x[i], carry = bits.Add64(x[i], m[i]&add, carry)
	}
}

// double sets x to 2x mod m, for x < m < 2^1024.
func double(x, m *nat) {
	var carry uint64
	for i := range x {
		x[i], carry = x[i]<<1|carry, x[i]>>63
	}
	subIfGE(x, m)
}

// mulAdd returns h·q + a as 32 words, for h, q, a below 2^1024 with the
// result below 2^2048 (an RSA signature from its CRT halves).
func mulAdd(h, q, a *nat) (out [2 * words]uint64) {
	copy(out[:words], a[:words])
	for i := range words {
		var carry uint64
		for j := range words {
			hi, lo := bits.Mul64(h[i], q[j])
			var c uint64
			lo, c = bits.Add64(lo, out[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			out[i+j], carry = lo, hi
		}
		out[i+words] = carry
	}
	return out
}

// normalize carries every lane of both halves of p back below 2^52
// (lanes summed by add may exceed it).
func normalize(p *pair) {
	for h := range 2 {
		var carry uint64
		for j := h * lanes; j < (h+1)*lanes; j++ {
			v := p[j] + carry
			p[j], carry = v&mask52, v>>52
		}
	}
}

// windowOf returns the w-th window of e's expBits bits, from the top. The
// branch depends on the position only.
func windowOf(e *nat, w int) uint64 {
	s := expBits - window*(w+1)
	i, o := s/64, uint(s%64)
	v := e[i] >> o
	if o > 64-window {
		v |= e[i+1] << (64 - o)
	}
	return v & (tableSize - 1)
}
