package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// sso/authenticate refuses a locale it cannot honour (codes are English
// only) instead of accepting and ignoring it; English passes through to
// the token check.
func TestAuthenticateRefusesUnsupportedLocale(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sso/authenticate",
			map[string]any{"sso_token": "sso-token-x", "locale": "fr"}, ""), 400, "unsupported_parameter")
		r := e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": "sso-token-x", "locale": "en-GB"}, "")
		if r.ErrType() == "unsupported_parameter" {
			t.Fatalf("English refused: %s", r.Raw)
		}
	})
}
