package sso_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The callback's redirect carries the one-time SSO token in its Location,
// so neither it nor the error page is stored by the browser or a shared
// cache (Cache-Control: no-store), for SAML and OIDC alike: the OAuth
// callback, the SSO start and the SSO error page say the same.
func TestSSOCallbackIsNotStored(t *testing.T) {
	noStore := func(t *testing.T, what string, r apptest.Resp) {
		t.Helper()
		if cc := r.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("%s: Cache-Control %q, want no-store", what, cc)
		}
	}
	t.Run("saml", func(t *testing.T) {
		apptest.Each(t, func(t *testing.T, e *apptest.Env) {
			s := newSAMLEnv(t, e, nil)
			s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
			acs, form := s.idp.follow(s.start(nil))
			r := s.post(acs, form)
			tokenFrom(t, r)
			noStore(t, "the redirect with the token", r)
			r = s.post(acs, form) // a replay: the error page
			if r.Status == http.StatusFound {
				t.Fatalf("a replayed response was accepted: %s", r.Header.Get("Location"))
			}
			noStore(t, "the error page", r)
		})
	})
	t.Run("oidc", func(t *testing.T) {
		apptest.Each(t, func(t *testing.T, e *apptest.Env) {
			s := newOIDCEnv(t, e)
			r := s.login(&mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}, nil)
			tokenFrom(t, r)
			noStore(t, "the redirect with the token", r)
			r = e.Get("/v1/b2b/sso/callback/" + s.connID + "?error=access_denied")
			if r.Status < 400 || r.Header.Get("X-Latchkey-Error-Type") == "" {
				t.Fatalf("an identity provider's error: %d %s", r.Status, r.Raw)
			}
			noStore(t, "the error page", r)
		})
	})
}
