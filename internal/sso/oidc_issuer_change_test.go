package sso_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An OIDC connection moved to another issuer keeps no identity the previous
// issuer asserted: a sub is unique only within its issuer (OpenID Connect
// Core 2), so the new issuer's "1234" may be someone else than the old
// one's. Before the fix the new issuer's 1234, with his own verified
// address, logged in as the member the old issuer's 1234 was.
func TestOIDCNewIssuerDoesNotInheritRegistrations(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		authenticate := func(user mockoidc.User) map[string]any {
			t.Helper()
			token := apptest.LinkToken(t, s.login(user, nil).Header.Get("Location"), "", "sso")
			r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
			apptest.Want(t, r, 200, "")
			return r.Body["member"].(map[string]any)
		}
		ada := authenticate(&mockoidc.MockUser{Subject: "1234", Email: "ada@acme.test", EmailVerified: true})

		op, err := mockoidc.Run()
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = op.Shutdown() })
		cfg := op.Config()
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"issuer": op.Issuer(), "client_id": cfg.ClientID, "client_secret": cfg.ClientSecret}), 200, "")
		s.op = op
		bob := authenticate(&mockoidc.MockUser{Subject: "1234", Email: "bob@acme.test", EmailVerified: true})
		if bob["member_id"] == ada["member_id"] || bob["email_address"] != "bob@acme.test" {
			t.Fatalf("the new issuer's 1234 (bob@acme.test) logged in as %v (%v)", bob["email_address"], bob["member_id"])
		}
	})
}
