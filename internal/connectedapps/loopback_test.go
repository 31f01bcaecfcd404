package connectedapps_test

import (
	"testing"

	"github.com/latchkey/latchkey/internal/connectedapps"
)

// A native app's loopback IP redirect URI matches with any port (RFC 8252
// 7.3); nothing else about it, and nothing about any other URI, may differ.
func TestRedirectURLLoopbackPortOnly(t *testing.T) {
	app := &connectedapps.App{RedirectURLs: []string{"http://127.0.0.1/cb?x=1", "http://[::1]:8080/cb",
		"http://localhost/cb", "https://rp.test/cb", "com.example.app:/cb"}}
	for u, want := range map[string]bool{
		"http://127.0.0.1/cb?x=1":           true,
		"http://127.0.0.1:51234/cb?x=1":     true,
		"http://[::1]:8080/cb":              true,
		"http://[::1]:49152/cb":             true,
		"http://[::1]/cb":                   true,
		"http://127.0.0.1:51234/cb?x=2":     false, // the query is not the port
		"http://127.0.0.1:51234/cb/":        false,
		"http://127.0.0.1:51234/CB?x=1":     false,
		"http://127.0.0.2:51234/cb?x=1":     false, // another host, loopback or not
		"http://127.0.0.1:0/cb?x=1":         false,
		"http://127.0.0.1:65536/cb?x=1":     false,
		"http://127.0.0.1:+80/cb?x=1":       false,
		"http://127.0.0.1:80@evil.test/cb":  false,
		"http://evil.test@127.0.0.1/cb?x=1": false,
		"https://127.0.0.1:51234/cb?x=1":    false,
		"http://[::1]:49152/cb?":            false,
		"http://localhost:3000/cb":          false, // a name, not a loopback literal (RFC 8252 8.3)
		"https://rp.test:8443/cb":           false, // exact everywhere else
		"http://rp.test/cb":                 false,
		"":                                  false,
	} {
		if got := app.HasRedirectURL(u); got != want {
			t.Errorf("HasRedirectURL(%q) = %v, want %v", u, got, want)
		}
	}
}
