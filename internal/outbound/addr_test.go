package outbound

import (
	"net/netip"
	"testing"
)

func TestPublic(t *testing.T) {
	for _, c := range []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700:4700::1111", true},
		{"64:ff9b::808:808", true}, // NAT64 of 8.8.8.8

		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"0.0.0.0", false},
		{"0.1.2.3", false},
		{"10.0.0.1", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"169.254.169.254", false}, // cloud metadata
		{"100.64.0.1", false},
		{"100.127.255.254", false},
		{"192.0.0.1", false},
		{"192.0.2.1", false},
		{"198.18.0.1", false},
		{"198.51.100.7", false},
		{"203.0.113.9", false},
		{"224.0.0.1", false},
		{"239.255.255.250", false},
		{"240.0.0.1", false},
		{"255.255.255.255", false},

		{"::", false},
		{"::1", false},
		{"fe80::1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"fec0::1", false},
		{"ff02::1", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::127.0.0.1", false}, // IPv4-compatible
		{"::8.8.8.8", false},   // IPv4-compatible, deprecated: never
		{"64:ff9b::7f00:1", false},
		{"64:ff9b::a00:1", false},
		{"64:ff9b:1::1", false},
		{"2002:7f00:1::1", false}, // 6to4 of 127.0.0.1
		{"2001::1", false},        // Teredo
		{"2001:db8::1", false},
		{"3fff::1", false},
		{"100::1", false},
	} {
		a := netip.MustParseAddr(c.addr)
		if got := Public(a); got != c.public {
			t.Errorf("Public(%s) = %v, want %v", c.addr, got, c.public)
		}
	}
	if Public(netip.MustParseAddr("fe80::1%eth0")) || Public(netip.Addr{}) {
		t.Error("a zoned or invalid address counts as public")
	}
}

func TestAllowlist(t *testing.T) {
	a, err := ParseAllowlist(" 10.1.0.0/16, 192.168.5.7 ,::ffff:172.16.0.0/108,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"10.1.2.3", true},
		{"::ffff:10.1.2.3", true}, // the mapped form of an allowlisted address
		{"10.2.0.1", false},
		{"192.168.5.7", true},
		{"192.168.5.8", false},
		{"172.16.9.9", true}, // named in its mapped form
		{"fd00::5", true},
		{"127.0.0.1", false},
		{"8.8.8.8", true}, // public needs no listing
	} {
		if got := a.Permits(netip.MustParseAddr(c.addr)); got != c.ok {
			t.Errorf("Permits(%s) = %v, want %v", c.addr, got, c.ok)
		}
	}
	if a.permitsLoopback() {
		t.Error("loopback permitted without being listed")
	}
	lo, err := ParseAllowlist(Loopback)
	if err != nil || !lo.permitsLoopback() || !lo.Permits(netip.MustParseAddr("::1")) || lo.Permits(netip.MustParseAddr("0.0.0.0")) {
		t.Fatalf("Loopback: %v %v", lo, err)
	}
	empty, err := ParseAllowlist("")
	if err != nil || len(empty) != 0 {
		t.Fatalf("empty: %v %v", empty, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "not-an-address", "10.0.0.1%eth0", "::ffff:0:0/95", "example.com"} {
		if _, err := ParseAllowlist(bad); err == nil {
			t.Errorf("ParseAllowlist(%q) accepted", bad)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, c := range []struct {
		url      string
		ok       bool // CheckURL
		guardNil bool // a guard allowing public addresses only
	}{
		{"https://idp.example.com/metadata", true, true},
		{"https://10.0.0.5/x", true, true}, // the address is the dialer's to judge
		{"http://idp.example.com/metadata", false, false},
		{"http://8.8.8.8/", false, false},
		{"http://127.0.0.1:8080/x", true, false},
		{"http://localhost:8080/x", true, false},
		{"http://[::1]:8080/x", true, false},
		{"http://[::ffff:127.0.0.1]:8080/x", true, false},
		{"http://localhost.example.com/x", false, false},
		{"ftp://idp.example.com/x", false, false},
		{"/relative", false, false},
		{"https://", false, false},
	} {
		if err := CheckURL(c.url); (err == nil) != c.ok {
			t.Errorf("CheckURL(%q) = %v", c.url, err)
		}
		if err := New(nil).CheckURL(c.url); (err == nil) != c.guardNil {
			t.Errorf("New(nil).CheckURL(%q) = %v", c.url, err)
		}
	}
	lo, _ := ParseAllowlist(Loopback)
	if err := New(lo).CheckURL("http://127.0.0.1:8080/x"); err != nil {
		t.Errorf("http to allowlisted loopback: %v", err)
	}
}
