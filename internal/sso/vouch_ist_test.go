package sso_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An SSO login only asserts its address (organization.MarkEmailAsserted):
// the organization's admin runs the identity provider. When MFA leaves
// the login an intermediate session, exchanging it by discovery into the
// same organization must not turn the assertion into a proof, or an admin
// who runs her own provider makes her organization vouch for any domain
// (discovery then offers it to everyone there).
func TestSSOIntermediateSessionExchangeDoesNotProveTheAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+s.orgID, map[string]any{
			"mfa_policy": "REQUIRED_FOR_ALL", "email_allowed_domains": []string{"bigcorp.test"},
			"email_jit_provisioning": "RESTRICTED", "sso_jit_provisioning": "ALL_ALLOWED"}), 200, "")
		token := tokenFrom(t, s.login(&mockoidc.MockUser{Subject: "oidc-cto", Email: "cto@bigcorp.test", EmailVerified: true}, nil))
		r := s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		ist, _ := r.Data()["intermediate_session_token"].(string)
		if ist == "" || r.Data()["member_authenticated"] != false {
			t.Fatalf("the SSO login should leave an intermediate session for MFA: %s", r.Raw)
		}
		r = s.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": s.orgID, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if got := apptest.Memberships(e.Discover("victim@bigcorp.test")); len(got) != 0 {
			t.Fatalf("an organization vouched for a domain on its own provider's word: %v", got)
		}
	})
}
