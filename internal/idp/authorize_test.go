package idp_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

// PKCE is S256 only (RFC 9700 2.1.1): code_challenge_method plain, or a
// challenge that is not a base64url SHA-256, is refused at authorize.
func TestCodeChallengeMustBeS256(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party", nil)
		req := authReq(id, "openid")
		req["code_challenge_method"] = "plain"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "invalid_request")
		req = authReq(id, "openid")
		req["code_challenge"] = "too-short"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "invalid_request")
	})
}

// prompt takes none, login and consent only, and none alone (OIDC Core
// 3.1.2.1); without a session, prompt=none still checks the client and
// redirect URI before answering login_required.
func TestPromptRules(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("third_party", nil)
		for _, prompt := range []string{"select_account", "none login"} {
			req := authReq(id, "openid")
			req["prompt"] = prompt
			apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "invalid_request")
		}
		req := authReq(id, "openid")
		req["prompt"], req["redirect_uri"] = "none", "https://evil.test/cb"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, ""), 400, "invalid_redirect_uri")
	})
}

// Codes are flow tickets, issued under flowtoken.IssueLimit per member:
// past it submit is refused with 429 instead of writing another row.
func TestCodesIssuedPerMemberAreLimited(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, _ := f.client("first_party", nil)
		for range flowtoken.IssueLimit.Limit {
			f.authorize(authReq(id, "openid"), true)
		}
		req := authReq(id, "openid")
		req["consent_granted"] = true
		if r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session); r.Status != http.StatusTooManyRequests {
			t.Fatalf("past the limit: %d %s", r.Status, r.Raw)
		}
	})
}
