package netlist

import (
	"net/netip"
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	got, err := Parse(" 10.0.0.0/8, 127.0.0.1 ,::1, ::ffff:192.168.0.0/112,")
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("127.0.0.1/32"),
		netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("192.168.0.0/16")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("got %v %v, want %v", got, err, want)
	}
	// A mapped prefix shorter than /96 names more than IPv4 (the trusted
	// proxies' parser made it an invalid prefix that matched nothing), and a
	// zone names an interface.
	for _, bad := range []string{"::ffff:0.0.0.0/80", "fe80::1%eth0", "10.0.0.0/33", "nope"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
