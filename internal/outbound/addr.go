package outbound

import (
	"net/netip"

	"github.com/latchkey/latchkey/internal/netlist"
)

// Allowlist is the operator's list of networks a guarded fetch may reach
// although they are not public: an on-premises identity provider (ADFS,
// Keycloak) on 10.x, or loopback for tests and `latchkey dev`.
type Allowlist []netip.Prefix

// ParseAllowlist parses LATCHKEY_SSO_ALLOWED_NETWORKS (netlist.Parse).
func ParseAllowlist(list string) (Allowlist, error) {
	return netlist.Parse(list)
}

// Loopback is the allowlist entry for this machine's loopback addresses,
// what tests and `latchkey dev` (whose mock identity providers it serves
// itself) need.
const Loopback = "127.0.0.0/8,::1/128"

// Permits reports whether a guarded fetch may connect to addr: a public
// address, or one the allowlist names.
func (a Allowlist) Permits(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range a {
		if p.Contains(addr) {
			return true
		}
	}
	return Public(addr)
}

// permitsLoopback reports whether the allowlist lets a fetch reach this
// machine, which plain http is allowed to (CheckURL).
func (a Allowlist) permitsLoopback() bool {
	return a.Permits(netip.MustParseAddr("127.0.0.1")) || a.Permits(netip.IPv6Loopback())
}

// Blocks that are neither private nor loopback by net/netip's reckoning
// but are still not globally reachable destinations (IANA's special-purpose
// address registries): shared address space, documentation, benchmarking,
// protocol assignments, deprecated relays and the reserved class E.
var notPublic4 = prefixes(
	"0.0.0.0/8",       // "this network"; 0.0.0.0 reaches loopback on Linux
	"100.64.0.0/10",   // carrier-grade NAT (shared address space)
	"192.0.0.0/24",    // IETF protocol assignments
	"192.0.2.0/24",    // TEST-NET-1
	"192.88.99.0/24",  // 6to4 relay anycast (deprecated)
	"198.18.0.0/15",   // benchmarking
	"198.51.100.0/24", // TEST-NET-2
	"203.0.113.0/24",  // TEST-NET-3
	"240.0.0.0/4",     // reserved, and 255.255.255.255 broadcast
)

// globalUnicast6 is the IPv6 space allocated for global unicast; the rest
// (the IPv4-compatible ::/96 among it) is refused outright.
var globalUnicast6 = netip.MustParsePrefix("2000::/3")

var notPublic6 = prefixes(
	"2001::/23",     // IETF protocol assignments, Teredo (carries any IPv4) among them
	"2001:db8::/32", // documentation
	"2002::/16",     // 6to4, which carries any IPv4 (deprecated)
	"3fff::/20",     // documentation
)

// nat64 is the well-known NAT64 prefix: what it carries is an IPv4
// address, judged as such (an IPv6-only network reaches IPv4 identity
// providers through it).
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Public reports whether addr is a globally routable unicast address:
// not loopback, private (RFC 1918, ULA fc00::/7), link-local, unspecified,
// multicast or broadcast, nor carrier-grade NAT, documentation or reserved
// space, in IPv4 or in any IPv6 form that carries IPv4 (mapped,
// compatible, NAT64, 6to4, Teredo).
func Public(addr netip.Addr) bool {
	if !addr.IsValid() || addr.Zone() != "" {
		return false
	}
	addr = addr.Unmap()
	if addr.Is6() && nat64.Contains(addr) {
		b := addr.As16()
		return Public(netip.AddrFrom4([4]byte(b[12:])))
	}
	if !addr.IsGlobalUnicast() || addr.IsPrivate() {
		return false
	}
	if addr.Is4() {
		return !containsAny(notPublic4, addr)
	}
	return globalUnicast6.Contains(addr) && !containsAny(notPublic6, addr)
}

func containsAny(ps []netip.Prefix, addr netip.Addr) bool {
	for _, p := range ps {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

func prefixes(list ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(list))
	for i, s := range list {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}
