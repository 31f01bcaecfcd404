package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An intermediate session of one organization (a login there that still
// needs MFA) is that organization's alone: the discovery exchange refuses
// it for another organization, even one where the same address is a
// member, and no session is created there. Otherwise a login that only
// half-succeeded in one organization would open every other organization
// of the address.
func TestDiscoveryExchangeRefusesAnotherOrganizationsIST(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		alpha := e.CreateOrg("alpha", "NOT_ALLOWED", map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"})
		beta := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		e.CreateVerifiedMember(alpha, "ada@acme.test")
		inBeta := e.CreateVerifiedMember(beta, "ada@acme.test")
		if r := e.SendCode(alpha, "ada@acme.test"); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		_, codes := e.LastMail("ada@acme.test")
		r := e.CheckCode(alpha, "ada@acme.test", codes[0])
		ist, _ := r.Data()["intermediate_session_token"].(string)
		if r.Status != 200 || ist == "" || r.Data()["member_session"] != nil {
			t.Fatalf("login into the MFA organization: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": beta, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 404, "intermediate_session_not_found")
		if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, inBeta); n != 0 {
			t.Fatalf("%d sessions in the other organization", n)
		}
	})
}
