package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// A discovery login's OAuth factor is made before any member exists, so it
// names no email; the session it becomes is a member's, and its factor
// carries that member's email_id as an organization login's does (the
// browser SDK's B2BGoogleOAuthFactor requires it; api-reference 3). The
// same id, whether the session came from discovery or an email code.
func TestOAuthDiscoveryFactorNamesTheMembersEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateVerifiedMember(org, "ada@acme.test")
		byCode := e.EmailLogin(org, "ada@acme.test")
		factors, _ := byCode["member_session"].(map[string]any)["authentication_factors"].([]any)
		emailID := str(factors[0].(map[string]any), "email_factor", "email_id")
		if emailID == "" {
			t.Fatalf("email code login names no email_id: %v", byCode)
		}

		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
		r := e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": org,
			"intermediate_session_token": r.Data()["intermediate_session_token"], "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		factors, _ = r.Data()["member_session"].(map[string]any)["authentication_factors"].([]any)
		if len(factors) != 1 {
			t.Fatalf("exchange: %s", r.Raw)
		}
		if got := str(factors[0].(map[string]any), "google_oauth_factor", "email_id"); got != emailID {
			t.Fatalf("discovery factor's email_id = %q, want the member's %q: %s", got, emailID, r.Raw)
		}
	})
}
