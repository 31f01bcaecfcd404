package app_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The server's own origin, trusted by every project, is the one a browser
// sends: lower case and without the default port, whatever the spelling
// of the base URL. A base URL under a path prefix has no origin of its
// own (the host serves other things outside the prefix), so its host's
// origin is trusted by no project that did not register it.
func TestOwnOriginIsTheBrowsersAndNeedsTheWholeHost(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		before := e.App.Config.BaseURL
		t.Cleanup(func() { e.App.Config.BaseURL = before })
		for _, tc := range []struct {
			base, origin string
			allowed      bool
		}{
			{"https://auth.example.com", "https://auth.example.com", true},
			{"https://Auth.Example.com", "https://auth.example.com", true},
			{"https://auth.example.com:443", "https://auth.example.com", true},
			{"http://localhost:8080", "http://localhost:8080", true},
			{"https://auth.example.com:8443", "https://auth.example.com", false},
			{"https://example.com/auth", "https://example.com", false},
			{"https://example.com/auth", "https://example.com/auth", false},
		} {
			e.App.Config.BaseURL = tc.base
			h := e.App.Handler() // the policy takes the base URL as the handler is built
			for _, preflight := range []bool{true, false} {
				req := httptest.NewRequest(http.MethodPost, "/sdk/v1/b2b/organizations/search", nil)
				if preflight {
					req.Method = http.MethodOptions
					req.Header.Set("Access-Control-Request-Method", http.MethodPost)
				} else {
					req.SetBasicAuth(e.Project.PublicToken, e.Project.PublicToken)
				}
				req.Header.Set("Origin", tc.origin)
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				if got := rec.Header().Get("Access-Control-Allow-Origin") == tc.origin; got != tc.allowed {
					t.Errorf("base URL %s, origin %s (preflight %t): allowed %t, want %t (%d)",
						tc.base, tc.origin, preflight, got, tc.allowed, rec.Code)
				}
			}
		}
	})
}
