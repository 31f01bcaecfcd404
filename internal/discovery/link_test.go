package discovery_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// sendDiscoveryLink emails a discovery magic link and returns its token.
func sendDiscoveryLink(e *apptest.Env, email string, extra map[string]any) string {
	e.T.Helper()
	body := map[string]any{"email_address": email}
	for k, v := range extra {
		body[k] = v
	}
	if r := e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", body, ""); r.Status != 200 {
		e.T.Fatalf("discovery link send: %s", r.Raw)
	}
	links, _ := e.LastMail(email)
	return apptest.LinkToken(e.T, links[0], apptest.Page, "discovery")
}

func redeemDiscoveryLink(e *apptest.Env, token string, extra map[string]any) apptest.Resp {
	e.T.Helper()
	body := map[string]any{"discovery_magic_links_token": token}
	for k, v := range extra {
		body[k] = v
	}
	return e.SDK(http.MethodPost, "/b2b/magic_links/discovery/authenticate", body, "")
}

// A discovery link sent with a PKCE challenge is redeemed only with the
// verifier of the browser that asked for it: no verifier is
// pkce_expected_code_verifier, a wrong one pkce_mismatch, and neither spends
// the link for its owner.
func TestDiscoveryLinkPKCE(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		verifier := "0123456789abcdef0123456789abcdef0123456789abcdef"
		// A garbled challenge would make a link no verifier redeems: refused
		// at the start, as OAuth and SSO starts refuse it.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "ada@startup.test",
			"pkce_code_challenge": verifier}, ""), 400, "invalid_pkce_code_challenge")
		token := sendDiscoveryLink(e, "ada@startup.test", map[string]any{"pkce_code_challenge": flowtoken.S256(verifier)})
		apptest.Want(t, redeemDiscoveryLink(e, token, nil), 400, "pkce_expected_code_verifier")
		apptest.Want(t, redeemDiscoveryLink(e, token, map[string]any{"pkce_code_verifier": "wrong-verifier-wrong-verifier-wrong-verifier"}),
			400, "pkce_mismatch")
		if r := redeemDiscoveryLink(e, token, map[string]any{"pkce_code_verifier": verifier}); r.Status != 200 ||
			r.Data()["intermediate_session_token"] == "" {
			t.Fatalf("right verifier after wrong ones: %s", r.Raw)
		}
	})
}

// pkce_required_for_email_magic_links binds the SDK face only: a
// customer's server sending a discovery link has no browser verifier, so
// its send is not refused for lacking a challenge, and the link redeems
// without one.
func TestDiscoveryLinkPKCERequiredOnTheSDKFaceOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE projects SET pkce_required_for_email_magic_links = $1 WHERE project_id = $2`,
			true, e.Project.Project.ID); err != nil {
			t.Fatal(err)
		}
		body := map[string]any{"email_address": "ada@startup.test"}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", body, ""), 400, "invalid_pkce_code_challenge")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/discovery/send", body), 200, "")
		links, _ := e.LastMail("ada@startup.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/magic_links/discovery/authenticate",
			map[string]any{"discovery_magic_links_token": apptest.LinkToken(t, links[0], apptest.Page, "discovery")})
		if r.Status != 200 || r.Body["intermediate_session_token"] == "" {
			t.Fatalf("the backend's discovery link: %s", r.Raw)
		}
	})
}

// A discovery link stops working when its lifetime
// (discovery_expiration_minutes) is over, and works until then.
func TestDiscoveryLinkExpiry(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		token := sendDiscoveryLink(e, "ada@startup.test", map[string]any{"discovery_expiration_minutes": 5})
		e.Clock.Advance(5 * time.Minute)
		apptest.Want(t, redeemDiscoveryLink(e, token, nil), 401, "unable_to_auth_magic_link")

		token = sendDiscoveryLink(e, "bob@startup.test", map[string]any{"discovery_expiration_minutes": 5})
		e.Clock.Advance(5*time.Minute - time.Second)
		if r := redeemDiscoveryLink(e, token, nil); r.Status != 200 {
			t.Fatalf("link within its lifetime: %s", r.Raw)
		}
	})
}
