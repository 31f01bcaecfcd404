package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An organization's IST holding only its own SSO identity provider's
// assertion (an SSO login stopped at MFA), exchanged through discovery,
// leaves the member's address asserted, not proven: the provider is the
// organization admin's and may assert any address, so its word must not
// make the member vouch for the domain to other people in discovery.
func TestDiscoveryExchangeOfAnSSOISTDoesNotProveTheAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		alpha := e.CreateOrg("alpha", "NOT_ALLOWED", map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"})
		mid := e.CreateMember(alpha, "ada@acme.test")
		ist := ssoLogin(t, e, alpha, mid).IntermediateSessionToken
		if ist == "" {
			t.Fatal("the SSO login did not stop at MFA")
		}
		r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": alpha, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE member_id = $1 AND email_address_proven`, mid); n != 0 {
			t.Fatal("an SSO assertion exchanged through discovery proved the address")
		}
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE member_id = $1 AND email_address_verified`, mid); n != 1 {
			t.Fatal("the exchange did not mark the address verified for its organization")
		}
	})
}
