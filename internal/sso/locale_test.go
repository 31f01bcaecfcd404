package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// sso/authenticate refuses a locale it cannot honour (the MFA code a login
// may text is written in en, es, fr and pt-br only) instead of accepting
// and ignoring it; a supported one passes through to the token check.
func TestAuthenticateRefusesUnsupportedLocale(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sso/authenticate",
			map[string]any{"sso_token": "sso-token-x", "locale": "de"}, ""), 400, "unsupported_parameter")
		for _, ok := range []string{"en-GB", "fr"} {
			r := e.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": "sso-token-x", "locale": ok}, "")
			if r.ErrType() == "unsupported_parameter" {
				t.Fatalf("%s refused: %s", ok, r.Raw)
			}
		}
	})
}
