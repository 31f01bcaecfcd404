//go:build !amd64

package rsasign

// Other architectures sign with crypto/rsa (see New).
var supported = false

func amm2(out, a, b, m *pair, k0 *[2]uint64) { panic("rsasign: no fast path on this architecture") }

func select2(out *pair, tab *[tableSize]pair, iP, iQ uint64) {
	panic("rsasign: no fast path on this architecture")
}
