package project

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzOrigin feeds origins, as administrators register them and as Origin
// headers arrive, to NormalizeOrigin and serializedOrigin (the CORS check
// compares a header with the stored origins only when serializedOrigin
// passes it). Properties: a normalized origin is a fixed point, and one a
// header can match (serializedOrigin holds for it); an origin passed as a
// header is scheme://host[:port] exactly, lower case, http or https,
// without user info, path, query or fragment, the port not the scheme's
// default, and the host as Go parses it.
func FuzzOrigin(f *testing.F) {
	for _, s := range []string{"https://app.example.com", "HTTPS://App.Example.com:443/", "http://localhost:3000",
		"https://user@app.example.com", "https://app.example.com.evil.test", "https://[::1]:8443", "null",
		"https://app.example.com#x", "https://app.example.com/?", "https://%41pp.example.com", "https://app.example.com:0443",
		"http://app.example.com:80", "https://app.example.com:", " https://app.example.com "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := NormalizeOrigin(s); err == nil {
			if again, err := NormalizeOrigin(n); err != nil || again != n {
				t.Fatalf("NormalizeOrigin(%q) = %q, then %q, %v", s, n, again, err)
			}
			if !serializedOrigin(n) {
				t.Fatalf("NormalizeOrigin(%q) = %q, which no Origin header can match", s, n)
			}
		}
		if !serializedOrigin(s) {
			return
		}
		u, err := url.Parse(s)
		if err != nil {
			t.Fatalf("serializedOrigin passed %q, which does not parse: %v", s, err)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.Opaque != "" || u.Path != "" || u.RawPath != "" ||
			u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.ToLower(s) != s || u.Scheme+"://"+u.Host != s ||
			u.Port() == defaultPorts[u.Scheme] || (u.Port() == "" && strings.HasSuffix(u.Host, ":")) {
			t.Fatalf("serializedOrigin passed %q (%#v)", s, u)
		}
	})
}
