package app_test

import (
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// sendDiscoveryLink emails a discovery magic link and returns its token.
func (e *env) sendDiscoveryLink(email string, extra map[string]any) string {
	e.t.Helper()
	body := map[string]any{"email_address": email}
	for k, v := range extra {
		body[k] = v
	}
	if r := e.sdk("/b2b/magic_links/email/discovery/send", body, ""); r.Status != 200 {
		e.t.Fatalf("discovery link send: %s", r.Raw)
	}
	links, _ := e.lastMail(email)
	return apptest.LinkToken(e.t, links[0], e.page, "discovery")
}

func (e *env) redeemDiscoveryLink(token string, extra map[string]any) resp {
	e.t.Helper()
	body := map[string]any{"discovery_magic_links_token": token}
	for k, v := range extra {
		body[k] = v
	}
	return e.sdk("/b2b/magic_links/discovery/authenticate", body, "")
}

// A discovery link sent with a PKCE challenge is redeemed only with the
// verifier of the browser that asked for it: no verifier and a wrong one are
// both pkce_mismatch, and neither spends the link for its owner.
func TestDiscoveryLinkPKCE(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		verifier := "0123456789abcdef0123456789abcdef0123456789abcdef"
		token := e.sendDiscoveryLink("ada@startup.test", map[string]any{"pkce_code_challenge": flowtoken.S256(verifier)})
		want(t, e.redeemDiscoveryLink(token, nil), 400, "pkce_mismatch")
		want(t, e.redeemDiscoveryLink(token, map[string]any{"pkce_code_verifier": "wrong-verifier-wrong-verifier-wrong-verifier"}),
			400, "pkce_mismatch")
		if r := e.redeemDiscoveryLink(token, map[string]any{"pkce_code_verifier": verifier}); r.Status != 200 ||
			r.data()["intermediate_session_token"] == "" {
			t.Fatalf("right verifier after wrong ones: %s", r.Raw)
		}
	})
}

// A discovery link stops working when its lifetime
// (discovery_expiration_minutes) is over, and works until then.
func TestDiscoveryLinkExpiry(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		token := e.sendDiscoveryLink("ada@startup.test", map[string]any{"discovery_expiration_minutes": 5})
		e.clock.Advance(5 * time.Minute)
		want(t, e.redeemDiscoveryLink(token, nil), 401, "unable_to_auth_magic_link")

		token = e.sendDiscoveryLink("bob@startup.test", map[string]any{"discovery_expiration_minutes": 5})
		e.clock.Advance(5*time.Minute - time.Second)
		if r := e.redeemDiscoveryLink(token, nil); r.Status != 200 {
			t.Fatalf("link within its lifetime: %s", r.Raw)
		}
	})
}
