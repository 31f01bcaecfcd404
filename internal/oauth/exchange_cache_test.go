package oauth_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// A session exchange hands the held session's factors to the new
// session, and the login that began in discovery registers the provider
// account in the new organization (registerDiscovered names the
// registration on the factor). The held session may have been read from
// the hot cache, whose rows every concurrent check of that session shares:
// the new session's factor must be its own copy, or naming the
// registration writes into the cached row under other readers (a data
// race) and changes what the old session says about itself.
func TestSessionExchangeLeavesTheCachedSessionsFactorsAlone(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.CreateMember(org, "bob@acme.test")
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		bobOther := e.CreateMember(other, "bob@acme.test")
		// Google account g-1 registers to ada in acme, so bob's discovery
		// login with it names no registration there.
		apptest.Want(t, authenticateAfter(t, e, callbackOf(t, e, m, "google", org,
			&mockoidc.MockUser{Subject: "g-1", Email: "ada@acme.test", EmailVerified: true})), 200, "")
		m.QueueUser(&mockoidc.MockUser{Subject: "g-1", Email: "bob@acme.test", EmailVerified: true})
		u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
		r := e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")}, "")
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": org,
			"intermediate_session_token": r.Data()["intermediate_session_token"], "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		token := r.Data()["session_token"].(string)

		check := func() *session.OAuthFactor {
			t.Helper()
			sr, err := e.App.Sessions.Check(t.Context(), e.Project.Project, "127.0.0.1", session.Credential{Token: token}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fs := sr.MemberSession.AuthenticationFactors; len(fs) != 1 || fs[0].GoogleOAuthFactor == nil {
				t.Fatalf("bob's factors: %+v", fs)
			}
			return sr.MemberSession.AuthenticationFactors[0].GoogleOAuthFactor
		}
		held := check()
		if again := check(); again != held {
			t.Fatal("the session was not answered from the hot cache: this test would prove nothing")
		}
		if held.ID != "" {
			t.Fatalf("bob's factor in acme names registration %q", held.ID)
		}

		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": other, "session_duration_minutes": 60}, token)
		apptest.Want(t, r, 200, "")
		if r.Data()["member_id"] != bobOther {
			t.Fatalf("exchange: %s", r.Raw)
		}
		fs, _ := r.Data()["member_session"].(map[string]any)["authentication_factors"].([]any)
		if len(fs) != 1 || str(fs[0].(map[string]any), "google_oauth_factor", "id") == "" {
			t.Fatalf("the new session's factor names no registration in other: %s", r.Raw)
		}
		if held.ID != "" {
			t.Fatalf("the exchange wrote registration %q into the cached session's factor", held.ID)
		}
	})
}
