package oauth_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// The OAuth token a login hands to the customer's page lives ten minutes:
// it is redeemed within them, and is oauth_token_not_found once they are
// over.
func TestOAuthTokenExpires(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		login := func() string {
			t.Helper()
			m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
			tok := browse(t, e, startPath(e, "google", url.Values{"organization_id": {org}})).Query().Get("token")
			if tok == "" {
				t.Fatal("no oauth token in the redirect")
			}
			return tok
		}
		authenticate := func(tok string) apptest.Resp {
			t.Helper()
			return e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": tok, "session_duration_minutes": 60}, "")
		}

		tok := login()
		e.Clock.Advance(10*time.Minute - time.Second)
		apptest.Want(t, authenticate(tok), 200, "")

		tok = login()
		e.Clock.Advance(10 * time.Minute)
		apptest.Want(t, authenticate(tok), 404, "oauth_token_not_found")
	})
}

// The state of an OAuth login (the ticket carried through the provider)
// lives ten minutes: a provider's callback within them completes the login,
// and one after them is refused.
func TestOAuthStateExpires(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		// toCallback starts a login in browser b and visits the provider,
		// returning the provider's redirect back to our callback, not yet
		// followed. A browser holds one login's state binding at a time.
		toCallback := func(b *apptest.Env) string {
			t.Helper()
			m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
			start := b.Get(startPath(e, "google", url.Values{"organization_id": {org}}))
			if start.Status != http.StatusFound {
				t.Fatalf("start: %d %s", start.Status, start.Raw)
			}
			_, cb := follow(t, start.Header.Get("Location"))
			return cb
		}
		other := e.Browser()
		early, late := toCallback(e), toCallback(other)

		e.Clock.Advance(10*time.Minute - time.Second)
		if r := e.Get(early); r.Status != http.StatusFound {
			t.Fatalf("callback within the state's lifetime: %d %s", r.Status, r.Raw)
		}
		e.Clock.Advance(time.Second)
		apptest.Want(t, other.Get(late), 400, "oauth_flow_callback_error")
	})
}
