package oauth_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/oauth"
)

// from is the header of a request from client address ip, behind the
// trusted proxy.
func from(ip string) http.Header { return http.Header{"X-Forwarded-For": {ip}} }

// badCallback starts a login from address i (one of many) and sends its
// callback from the address at, with a code the provider never issued:
// the exchange fails, but the callback has been counted by then. The
// states come from starts at other addresses (behind a trusted proxy), so
// the start limit is not what refuses it.
func badCallback(t *testing.T, e *apptest.Env, org string, i int, at string) apptest.Resp {
	t.Helper()
	ip := fmt.Sprintf("10.0.%d.%d", i/200, i%200+1)
	r := e.Do(http.MethodGet, startPath(e, "google", url.Values{"organization_id": {org}}), nil, from(ip), "", "")
	if r.Status != http.StatusFound {
		t.Fatalf("start %d: %d %s", i, r.Status, r.Raw)
	}
	authz, err := url.Parse(r.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	q := url.Values{"state": {authz.Query().Get("state")}, "code": {"not-a-code"}}
	return e.Do(http.MethodGet, "/v1/b2b/public/oauth/callback?"+q.Encode(), nil, from(at), "", "")
}

// OAuth callbacks are limited per client address: each one costs an
// outbound code exchange with the provider, so past CallbackPerIP
// callbacks in a window the next is refused before the exchange.
func TestOAuthCallbacksLimitedPerAddress(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		for i := range oauth.CallbackPerIP.Limit {
			apptest.Want(t, badCallback(t, e, org, i, "203.0.113.7"), 400, "oauth_flow_callback_error")
		}
		apptest.Want(t, badCallback(t, e, org, oauth.CallbackPerIP.Limit, "203.0.113.7"), 429, "too_many_requests")
	})
}

// A callback refused by CallbackPerIP does not spend its state: the
// person's login, refused at an address over the limit, completes when
// the same callback comes from another address, and the member gets a
// session.
func TestOAuthCallbackRefusedByLimitKeepsItsState(t *testing.T) {
	apptest.EachWith(t, func(c *config.Config) { c.TrustedProxies = "127.0.0.1" }, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		const busy, other = "203.0.113.7", "198.51.100.9"
		for i := range oauth.CallbackPerIP.Limit {
			apptest.Want(t, badCallback(t, e, org, i, busy), 400, "oauth_flow_callback_error")
		}

		m.QueueUser(&mockoidc.MockUser{Subject: "g-ada", Email: "ada@acme.test", EmailVerified: true})
		r := e.Do(http.MethodGet, startPath(e, "google", url.Values{"organization_id": {org}}), nil, from(other), "", "")
		if r.Status != http.StatusFound {
			t.Fatalf("start: %d %s", r.Status, r.Raw)
		}
		status, cb := follow(t, r.Header.Get("Location"))
		if status != http.StatusFound {
			t.Fatalf("provider answered %d %q", status, cb)
		}
		apptest.Want(t, e.Do(http.MethodGet, cb, nil, from(busy), "", ""), 429, "too_many_requests")

		r = e.Do(http.MethodGet, cb, nil, from(other), "", "")
		if r.Status != http.StatusFound {
			t.Fatalf("the same callback from another address: %d %s", r.Status, r.Raw)
		}
		token := apptest.LinkToken(t, r.Header.Get("Location"), apptest.Page, oauth.TokenType)
		r = e.SDK(http.MethodPost, "/b2b/oauth/authenticate", map[string]any{"oauth_token": token}, "")
		apptest.Want(t, r, 200, "")
		if apptest.MemberOf(r.Data())["email_address"] != "ada@acme.test" {
			t.Fatalf("member: %s", r.Raw)
		}
	})
}
