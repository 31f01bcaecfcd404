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
