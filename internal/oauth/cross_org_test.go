package oauth_test

import (
	"net/http"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An organization's OAuth tenant JIT admits its tenant's accounts with the
// address the provider gives, verified or not, and the tenant's admin
// chooses that address. sessions/exchange must not carry such a login into
// another organization, where the same address names someone else.
func TestTenantJITLoginDoesNotCarryIntoAnotherOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		evil := e.CreateOrg("evil", "NOT_ALLOWED", map[string]any{"oauth_tenant_jit_provisioning": "RESTRICTED",
			"allowed_oauth_tenants": map[string]any{"google": []string{"evil.test"}}})
		victim := e.CreateOrg("victimco", "NOT_ALLOWED", nil)
		victimID := e.CreateMember(victim, "ceo@victim.test")
		forged := &editedUser{MockUser: &mockoidc.MockUser{Subject: "eve", Email: "ceo@victim.test", EmailVerified: false}, HD: "evil.test"}
		r := authenticateAfter(t, e, callbackOf(t, e, m, "google", evil, forged))
		apptest.Want(t, r, 200, "")
		token := r.Data()["session_token"].(string)

		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": victim, "session_duration_minutes": 60}, token)
		apptest.Want(t, r, 200, "")
		if d := r.Data(); d["member_session"] != nil || d["primary_required"] == nil || d["member_id"] != victimID {
			t.Fatalf("exchange into the other organization: %s", r.Raw)
		}
	})
}
