package httpapi_test

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/httpapi"
)

type anyOrigin struct{}

func (anyOrigin) AllowOrigin(*http.Request, string, bool) bool { return true }

// A preflight is answered with exactly the requested headers the SDK is
// known to send, matched by whole name regardless of case: a fragment of
// one ("auth", "x-sdk", "o") is a different header and is not allowed.
func TestPreflightAllowsOnlyKnownHeaderNames(t *testing.T) {
	t.Parallel()
	h := httpapi.Chain(http.NotFoundHandler(), httpapi.WithCORS(anyOrigin{}))
	for _, c := range []struct{ requested, want string }{
		{"authorization, Content-Type", "authorization, Content-Type"},
		{"X-SDK-Client,x-sdk-parent-host", "X-SDK-Client, x-sdk-parent-host"},
		{"Authorization, auth, x-sdk, o, Content-Type, X-Other", "Authorization, Content-Type"},
		{"", "Authorization, Content-Type, X-SDK-Client, X-SDK-Parent-Host"},
	} {
		req := httptest.NewRequest(http.MethodOptions, "/sdk/v1/b2b/sessions/authenticate", nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", http.MethodPost)
		if c.requested != "" {
			req.Header.Set("Access-Control-Request-Headers", c.requested)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Access-Control-Allow-Headers"); got != c.want {
			t.Errorf("requested %q: allowed %q, want %q", c.requested, got, c.want)
		}
	}
	// Only fragments requested: none of them is allowed.
	for _, frag := range []string{"auth", "x-sdk", "o", "type"} {
		req := httptest.NewRequest(http.MethodOptions, "/sdk/v1/b2b/sessions/authenticate", nil)
		req.Header.Set("Origin", "https://app.example")
		req.Header.Set("Access-Control-Request-Method", http.MethodPost)
		req.Header.Set("Access-Control-Request-Headers", frag)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		allowed := strings.Split(rec.Header().Get("Access-Control-Allow-Headers"), ", ")
		if slices.ContainsFunc(allowed, func(s string) bool { return strings.EqualFold(s, frag) }) {
			t.Errorf("fragment %q allowed: %q", frag, allowed)
		}
	}
}
