package httpapi_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/httpapi"
)

func TestCSPString(t *testing.T) {
	t.Parallel()
	c := httpapi.CSP{Nonce: "abc", FormAction: []string{"https://idp.test"}, FrameAncestors: []string{"https://app.test"}}
	got := c.String()
	for _, want := range []string{"script-src 'self' 'nonce-abc'", "form-action 'self' https://idp.test",
		"frame-ancestors https://app.test", "object-src 'none'", "base-uri 'none'", "style-src 'self';"} {
		if !strings.Contains(got, want) {
			t.Errorf("CSP %q lacks %q", got, want)
		}
	}
	if z := (httpapi.CSP{}).String(); strings.Contains(z, "unsafe") || !strings.Contains(z, "frame-ancestors 'none'") {
		t.Errorf("zero CSP = %q", z)
	}
	if httpapi.NewNonce() == httpapi.NewNonce() {
		t.Error("nonces repeat")
	}
}

func header(t *testing.T, r apptest.Resp, name, pattern string) {
	t.Helper()
	if v := r.Header.Get(name); !regexp.MustCompile(pattern).MatchString(v) {
		t.Errorf("%s = %q, want %s", name, v, pattern)
	}
}

// Every HTML, widget and API response carries the security headers; pages
// with inline script run it by a nonce named in their own policy.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	t.Parallel()
	apptest.EachWith(t, func(c *config.Config) { c.BaseURL = "https://auth.example.test" }, func(t *testing.T, e *apptest.Env) {
		if _, err := devmode.Seed(context.Background(), e.App.Projects, e.App.Orgs, e.Srv.URL); err != nil {
			t.Fatal(err)
		}
		all := map[string]apptest.Resp{
			"api":     e.SDK(http.MethodPost, "/b2b/organizations/search", map[string]any{"organization_slug": "x"}, ""),
			"error":   e.Get("/v1/nope"),
			"widget":  e.Get("/widget/latchkey.js"),
			"demo":    e.Get("/"),
			"mailbox": e.Get("/dev/mailbox"),
			"health":  e.Get("/healthz"),
		}
		for name, r := range all {
			header(t, r, "X-Content-Type-Options", "^nosniff$")
			header(t, r, "Referrer-Policy", "^no-referrer$")
			header(t, r, "Content-Security-Policy", "frame-ancestors 'none'")
			if name != "demo" && name != "mailbox" {
				header(t, r, "Content-Security-Policy", "^default-src 'none'")
			}
		}
		for _, name := range []string{"demo", "mailbox"} {
			header(t, all[name], "X-Frame-Options", "^DENY$")
			header(t, all[name], "Content-Type", "^text/html")
		}
		header(t, all["widget"], "Content-Type", "javascript")
		header(t, all["health"], "Strict-Transport-Security", "max-age=")

		// The demo's inline script carries the nonce its policy names.
		csp := all["demo"].Header.Get("Content-Security-Policy")
		m := regexp.MustCompile(`'nonce-([A-Za-z0-9_-]+)'`).FindStringSubmatch(csp)
		if m == nil || !strings.Contains(string(all["demo"].Raw), `<script nonce="`+m[1]+`">`) {
			t.Fatalf("demo page: CSP %q does not allow its inline script", csp)
		}
		if strings.Contains(csp, "'unsafe-inline'") && strings.Contains(csp, "script-src 'self' 'unsafe-inline'") {
			t.Fatal("demo page allows any inline script")
		}
		if again := e.Get("/").Header.Get("Content-Security-Policy"); again == csp {
			t.Fatal("the demo nonce is reused across responses")
		}
	})
}

// HSTS follows the base URL's scheme, which is case-insensitive: a base
// URL written HTTPS://, which the configuration accepts as https, gets it
// too, and a plain http one does not.
func TestHSTSFollowsTheBaseURLScheme(t *testing.T) {
	t.Parallel()
	for base, want := range map[string]string{"HTTPS://auth.example.test": "^max-age=", "http://localhost:8080": "^$"} {
		apptest.EachWith(t, func(c *config.Config) { c.BaseURL = base }, func(t *testing.T, e *apptest.Env) {
			header(t, e.Get("/healthz"), "Strict-Transport-Security", want)
		})
	}
	for base, want := range map[string]bool{"https://a.test": true, "HTTPS://a.test": true, "Https://a.test/x": true,
		"http://a.test": false, "HTTP://a.test": false, "": false, "a.test": false, "://https": false} {
		if got := httpapi.HTTPSBase(base); got != want {
			t.Errorf("HTTPSBase(%q) = %t, want %t", base, got, want)
		}
	}
}
