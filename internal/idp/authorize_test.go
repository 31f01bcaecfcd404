package idp_test

import (
	"net/http"
	"testing"
	"time"

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

// auth_time (OIDC Core 2) is when the member last authenticated: a member
// who steps up by SMS code twenty minutes after logging in carries the
// step-up's time in the ID token, not the login's, and so meets a max_age
// of ten minutes. (A step-up starts a new session, so the session's start
// and its latest factor agree here.)
func TestAuthTimeIsTheLatestFactor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("third_party", nil)
		// An SMS code proves the member's number at login time (a new number
		// needs a fresh session), and another one twenty minutes later steps
		// the session up.
		const phone = "+14155552671"
		smsFactor := func(enroll bool) {
			t.Helper()
			body := map[string]any{"organization_id": f.org, "member_id": f.member, "session_token": f.session}
			if enroll {
				body["mfa_phone_number"] = phone
			}
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/sms/send", body), 200, "")
			delete(body, "mfa_phone_number")
			_, codes := e.LastMail(phone)
			body["code"] = codes[0]
			r := e.Backend(http.MethodPost, "/v1/b2b/otps/sms/authenticate", body)
			apptest.Want(t, r, 200, "")
			f.session = r.Body["session_token"].(string) // a step-up issues a new token
		}
		smsFactor(true)
		e.Clock.Advance(20 * time.Minute)
		smsFactor(false)

		req := authReq(id, "openid")
		req["max_age"] = 600
		start, back := f.authorize(req, true)
		apptest.Want(t, start, 200, "")
		tokens := f.exchange(id, secret, back.Get("code"), verifier)
		apptest.Want(t, tokens, 200, "")
		got, _ := f.claims(tokens.Body["id_token"].(string))["auth_time"].(float64)
		if int64(got) != e.Clock.Now().Unix() {
			t.Fatalf("auth_time %v, want the step-up's %d", got, e.Clock.Now().Unix())
		}
	})
}
