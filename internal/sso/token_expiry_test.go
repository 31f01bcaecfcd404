package sso_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The SSO token a login hands to the customer's page lives ten minutes: it
// is redeemed within them, and is sso_token_not_found once they are over.
func TestSSOTokenExpires(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		s.idp.login("ada@acme.test", "okta-user-1", "Ada", "Lovelace")
		// Both logins finish now, while the IdP's assertions are fresh.
		acs, form := s.idp.follow(s.start(nil))
		early := tokenFrom(t, s.post(acs, form))
		acs, form = s.idp.follow(s.start(nil))
		late := tokenFrom(t, s.post(acs, form))
		authenticate := func(tok string) apptest.Resp {
			t.Helper()
			return s.SDK(http.MethodPost, "/b2b/sso/authenticate", map[string]any{"sso_token": tok, "session_duration_minutes": 60}, "")
		}

		e.Clock.Advance(10*time.Minute - time.Second)
		apptest.Want(t, authenticate(early), 200, "")
		e.Clock.Advance(time.Second)
		apptest.Want(t, authenticate(late), 404, "sso_token_not_found")
	})
}

// The state of an SSO login (the ticket carried through the identity
// provider) lives fifteen minutes: a provider that answers within them
// completes the login, one that answers after them is unsolicited_oidc_response.
func TestSSOStateExpires(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		user := &mockoidc.MockUser{Subject: "oidc-sub-1", Email: "lin@acme.test", EmailVerified: true}
		// login is a login started in a browser of its own (a browser has
		// one login's binding at a time), at provider, its URL not yet
		// visited.
		type login struct {
			browser  *apptest.Env
			provider string
		}
		// toProvider starts a login.
		toProvider := func() login {
			t.Helper()
			b := e.Browser()
			q := url.Values{"public_token": {s.Project.PublicToken}, "connection_id": {s.connID}}
			r := b.Get("/v1/public/sso/start?" + q.Encode())
			if r.Status != http.StatusFound {
				t.Fatalf("start: %d %s", r.Status, r.Raw)
			}
			return login{b, r.Header.Get("Location")}
		}
		// back has the provider answer (its tokens stamped at the fake
		// clock's time) and follows it to our callback.
		back := func(l login) apptest.Resp {
			t.Helper()
			s.op.QueueUser(user)
			r := l.browser.Get(l.provider)
			if r.Status != http.StatusFound {
				t.Fatalf("provider: %d %s", r.Status, r.Raw)
			}
			return l.browser.Get(r.Header.Get("Location"))
		}
		// advance moves our clock and the provider's together.
		advance := func(d time.Duration) { e.Clock.Advance(d); s.op.FastForward(d) }
		early, late := toProvider(), toProvider()

		advance(15*time.Minute - time.Second)
		tokenFrom(t, back(early))
		advance(time.Second)
		wantPage(t, back(late), 400, "unsolicited_oidc_response")
	})
}
