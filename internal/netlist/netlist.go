// Package netlist parses the comma-separated network lists operators set
// (LATCHKEY_TRUSTED_PROXIES, LATCHKEY_SSO_ALLOWED_NETWORKS): one parser, so
// both settings read "10.0.0.0/8, 127.0.0.1, ::ffff:10.0.0.0/104" alike.
package netlist

import (
	"fmt"
	"net/netip"
	"strings"
)

// Parse reads a comma-separated list of CIDRs; a bare address means just
// that address. IPv4-mapped IPv6 forms are read as the IPv4 they carry, as
// a connection's address is compared unmapped; a mapped prefix shorter
// than the mapped range (/96) is refused, since it names more than IPv4.
// Addresses with a zone are refused: a zone names an interface, not a
// network.
func Parse(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is neither a CIDR nor an address", f)
			}
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR", f)
		}
		if p.Addr().Is4In6() {
			if p.Bits() < 96 {
				return nil, fmt.Errorf("%q reaches beyond the IPv4-mapped range: name the IPv4 network instead", f)
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
