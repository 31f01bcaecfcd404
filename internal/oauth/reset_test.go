package oauth_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/oauth2-proxy/mockoidc"
)

// sessionCheck checks a session token on the backend face.
func sessionCheck(e *apptest.Env, token string) apptest.Resp {
	return e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
}

// backendOAuth redeems the token a successful callback carried on the
// backend face (whose answer has reset_sessions); extra adds fields.
func backendOAuth(t *testing.T, e *apptest.Env, cb apptest.Resp, extra map[string]any) apptest.Resp {
	t.Helper()
	if cb.Status != http.StatusFound {
		t.Fatalf("callback: %d %s", cb.Status, cb.Raw)
	}
	u, err := url.Parse(cb.Header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	body := map[string]any{"oauth_token": u.Query().Get("token")}
	for k, v := range extra {
		body[k] = v
	}
	return e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", body)
}

// backendMagicLink logs email in to org by a magic link on the backend
// face (whose answer has reset_sessions).
func backendMagicLink(t *testing.T, e *apptest.Env, org, email string) apptest.Resp {
	t.Helper()
	apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup",
		map[string]any{"organization_id": org, "email_address": email}), 200, "")
	links, _ := e.LastMail(email)
	if len(links) == 0 {
		t.Fatalf("no link mailed to %s", email)
	}
	return e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate",
		map[string]any{"magic_links_token": apptest.MagicLinkToken(t, links[0])})
}

// The squatter of the pre-account takeover (see
// TestUnprovenTenantRegistrationEndsWhenTheOwnerProvesTheAddress) keeps
// nothing when the CFO proves the address: deleting his registration
// stops his next GitHub login, and his live session and his login stopped
// at MFA end in the same transaction, before the CFO's session starts. The
// CFO's login says so where its answer has the field (reset_sessions on
// the backend's OAuth and magic-link answers), and the CFO's own session
// is not among those ended.
func TestOwnersProofEndsTheSquattersSessions(t *testing.T) {
	for _, proof := range []string{"google", "magic link", "email code"} {
		t.Run(proof, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				m := startGoogle(t, e)
				org, r := squatterLogin(t, e)
				memberID := r.Data()["member_id"].(string)
				squatter := str(r.Data(), "session_token")
				// A second login stopped at MFA, the squatter's phone
				// sent a code: an IST naming the member.
				e.SetMFA(org, "REQUIRED_FOR_ALL")
				r = gitHubLogin(t, e, org)
				ist := str(r.Data(), "intermediate_session_token")
				if ist == "" {
					t.Fatalf("no IST: %s", r.Raw)
				}
				apptest.Want(t, e.SMSSend(org, memberID, ist, "+14155550123"), 200, "")
				code := e.LastSMS("+14155550123")
				e.SetMFA(org, "OPTIONAL")
				apptest.Want(t, sessionCheck(e, squatter), 200, "")

				var owner apptest.Resp
				switch proof {
				case "google":
					owner = backendOAuth(t, e, callbackOf(t, e, m, "google", org,
						&mockoidc.MockUser{Subject: "g-cfo", Email: "cfo@acme.test", EmailVerified: true}), nil)
				case "magic link":
					owner = backendMagicLink(t, e, org, "cfo@acme.test")
				case "email code":
					tok, _ := e.LoginByEmailOTP(org, "cfo@acme.test")
					owner = sessionCheck(e, tok)
				}
				apptest.Want(t, owner, 200, "")
				// member: the backend session check has no top-level member_id.
				if owner.Body["member"].(map[string]any)["member_id"] != memberID {
					t.Fatalf("the CFO's login: %s", owner.Raw)
				}
				if proof != "email code" && owner.Body["reset_sessions"] != true {
					t.Errorf("reset_sessions %v, want true", owner.Body["reset_sessions"])
				}
				apptest.Want(t, sessionCheck(e, squatter), 404, "session_not_found")
				apptest.Want(t, e.SMSAuth(org, memberID, ist, code, nil), 404, "intermediate_session_not_found")
				apptest.Want(t, sessionCheck(e, owner.Body["session_token"].(string)), 200, "")
			})
		})
	}
}

// A first proof that ends nothing resets nothing: an account admitted
// with an unverified address whose provider later verifies it proves the
// address itself, and the session its first login started lives on.
func TestFirstProofWithoutUnprovenAccessKeepsSessions(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, r := squatterLogin(t, e)
		first := str(r.Data(), "session_token")
		useGitHub(t, e, "cfo@acme.test", true)
		u := browse(t, e, startPath(e, "github", url.Values{"organization_id": {org}}))
		r = e.Backend(http.MethodPost, "/v1/b2b/oauth/authenticate", map[string]any{"oauth_token": u.Query().Get("token")})
		apptest.Want(t, r, 200, "")
		if r.Body["reset_sessions"] != false || r.Body["member"].(map[string]any)["email_address_verified"] != true {
			t.Fatalf("verifying login: %s", r.Raw)
		}
		apptest.Want(t, sessionCheck(e, first), 200, "")
	})
}

// A login that ends the member's sessions may be sent with one of them
// (session.Held): the person who admitted themselves with an unverified
// address, now proving it by a verified Google login. That session was
// ended with the others, so the login goes on as if none had been sent:
// it neither fails as a stale session would nor carries that session's
// factors into the new one.
func TestOwnersProofWithAHeldSessionOfTheMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		org, r := squatterLogin(t, e)
		held := str(r.Data(), "session_token")
		r = backendOAuth(t, e, callbackOf(t, e, m, "google", org,
			&mockoidc.MockUser{Subject: "g-cfo", Email: "cfo@acme.test", EmailVerified: true}), map[string]any{"session_token": held})
		apptest.Want(t, r, 200, "")
		if r.Body["reset_sessions"] != true {
			t.Errorf("reset_sessions %v, want true", r.Body["reset_sessions"])
		}
		if got := apptest.FactorTypes(r); !slices.Equal(got, []string{"oauth"}) {
			t.Errorf("factors %v, want the Google login's alone", got)
		}
		if f := r.Body["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any); f["delivery_method"] != "oauth_google" {
			t.Errorf("factor %v", f)
		}
		apptest.Want(t, sessionCheck(e, held), 404, "session_not_found")
		apptest.Want(t, sessionCheck(e, r.Body["session_token"].(string)), 200, "")
	})
}
