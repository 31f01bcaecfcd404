package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestClientIPHonoursOnlyTrustedProxies(t *testing.T) {
	trusted, err := ParseTrustedProxies("10.0.0.0/8, 192.168.1.7, ::ffff:172.16.0.0/108")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no proxy", "203.0.113.9:5555", nil, "203.0.113.9"},
		{"untrusted peer forging the header", "203.0.113.9:5555", []string{"1.2.3.4"}, "203.0.113.9"},
		{"trusted load balancer", "10.1.2.3:443", []string{"198.51.100.7"}, "198.51.100.7"},
		{"client-written entries to the left are ignored", "10.1.2.3:443", []string{"6.6.6.6, 198.51.100.7"}, "198.51.100.7"},
		{"chain of trusted proxies", "10.1.2.3:443", []string{"198.51.100.7, 192.168.1.7", "10.9.9.9"}, "198.51.100.7"},
		{"mapped prefix", "172.16.3.4:443", []string{"198.51.100.8"}, "198.51.100.8"},
		{"all hops trusted", "10.1.2.3:443", []string{"10.0.0.5"}, "10.0.0.5"},
		{"malformed hop", "10.1.2.3:443", []string{"198.51.100.7, garbage"}, "10.1.2.3"},
		{"trusted peer without header", "10.1.2.3:443", nil, "10.1.2.3"},
		// Some proxies write the client's port too: it is not a malformed
		// hop, or everyone behind that proxy would count as the proxy.
		{"hop with a port", "10.1.2.3:443", []string{"198.51.100.7:5678"}, "198.51.100.7"},
		{"IPv6 hop with a port", "10.1.2.3:443", []string{"[2001:db8:1:2::7]:443"}, "2001:db8:1:2::/64"},
		{"trusted hop with a port", "10.1.2.3:443", []string{"198.51.100.7, 10.0.0.5:80"}, "198.51.100.7"},
	}
	for _, c := range cases {
		var got string
		h := WithClientIP(trusted)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) { got = ClientIP(r) }))
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got != c.want {
			t.Errorf("%s: client %q, want %q", c.name, got, c.want)
		}
	}
	if _, err := ParseTrustedProxies("10.0.0.0/33"); err == nil {
		t.Error("a bad CIDR was accepted")
	}
}

// Rate limits count an IPv6 client by its /64 (a host may take a fresh
// address of it per request) and an IPv4-mapped address as IPv4; the
// records of Client keep the full address.
func TestClientIPMasksIPv6ForLimitsOnly(t *testing.T) {
	var limit, fromCtx, full string
	h := WithClientIP(nil)(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		limit, fromCtx = ClientIP(r), ClientIPFrom(r.Context())
		full, _ = Client(r.Context())
	}))
	for _, c := range []struct{ peer, limit, full string }{
		{"[2001:db8:1:2::7]:443", "2001:db8:1:2::/64", "2001:db8:1:2::7"},
		{"[2001:db8:1:2:ffff:ffff:ffff:ffff]:443", "2001:db8:1:2::/64", "2001:db8:1:2:ffff:ffff:ffff:ffff"},
		{"[2001:db8:1:3::7]:443", "2001:db8:1:3::/64", "2001:db8:1:3::7"},
		{"[::ffff:192.0.2.1]:443", "192.0.2.1", "::ffff:192.0.2.1"},
		{"192.0.2.1:443", "192.0.2.1", "192.0.2.1"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = c.peer
		h.ServeHTTP(httptest.NewRecorder(), r)
		if limit != c.limit || fromCtx != c.limit || full != c.full {
			t.Errorf("peer %s: ClientIP %q, ClientIPFrom %q, Client %q; want %q, %q", c.peer, limit, fromCtx, full, c.limit, c.full)
		}
		// Without WithClientIP the peer is masked the same way.
		if got := ClientIP(r); got != c.limit {
			t.Errorf("peer %s without the middleware: ClientIP %q, want %q", c.peer, got, c.limit)
		}
	}
}

// The User-Agent kept for a session is storable as it is: valid UTF-8, no
// NUL, bounded.
func TestClientUserAgentIsStorable(t *testing.T) {
	var gotIP, gotUA string
	h := WithClientIP(nil)(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gotIP, gotUA = Client(r.Context())
	}))
	for in, want := range map[string]string{
		"Mozilla/5.0":            "Mozilla/5.0",
		"a\x00b\xffc":            "ab\uFFFDc",
		strings.Repeat("é", 400): strings.Repeat("é", 256),
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.RemoteAddr = "192.0.2.1:1234"
		req.Header.Set("User-Agent", in)
		h.ServeHTTP(httptest.NewRecorder(), req)
		if gotIP != "192.0.2.1" || gotUA != want {
			t.Errorf("Client for %q = %q, %q", in, gotIP, gotUA)
		}
	}
}
