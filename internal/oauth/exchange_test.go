package oauth_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
)

// The tests of sessions/exchange with OAuth logins (session.Factor.Carries):
// a login carries into another organization of the member's address when,
// and only when, the provider verified that address at the login.

const adaEmail = "ada@acme.test"

// verifiedAda is Google vouching for Ada's address.
func verifiedAda() *mockoidc.MockUser {
	return &mockoidc.MockUser{Subject: "g-ada", Email: adaEmail, EmailVerified: true}
}

// twoOrgs makes {prefix}alpha and {prefix}beta with Ada a member of both
// (neither admits anyone by email JIT) and returns their ids and Ada's
// member id in beta.
func twoOrgs(e *apptest.Env, prefix string) (alpha, beta, inBeta string) {
	alpha = e.CreateOrg(prefix+"alpha", "NOT_ALLOWED", nil)
	beta = e.CreateOrg(prefix+"beta", "NOT_ALLOWED", nil)
	e.CreateMember(alpha, adaEmail)
	return alpha, beta, e.CreateMember(beta, adaEmail)
}

// googleSession logs user in to org with Google and returns the session
// token.
func googleSession(t *testing.T, e *apptest.Env, m *mockoidc.MockOIDC, org string, user mockoidc.User) string {
	t.Helper()
	r := authenticateAfter(t, e, callbackOf(t, e, m, "google", org, user))
	apptest.Want(t, r, http.StatusOK, "")
	token, _ := r.Data()["session_token"].(string)
	if token == "" {
		t.Fatalf("no session: %s", r.Raw)
	}
	return token
}

func exchange(e *apptest.Env, org, token string) apptest.Resp {
	return e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": org, "session_duration_minutes": 60}, token)
}

// wantCarried fails unless r is a session of member in org whose only
// factor is Google's login as g-ada, and the session token old has ended.
func wantCarried(t *testing.T, e *apptest.Env, r apptest.Resp, org, member, old string) {
	t.Helper()
	apptest.Want(t, r, http.StatusOK, "")
	d := r.Data()
	if d["member_session"] == nil || d["member_id"] != member || str(d, "organization", "organization_id") != org {
		t.Fatalf("exchange: %s", r.Raw)
	}
	apptest.WantFactors(t, d, "oauth/oauth_google/PRIMARY")
	f := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
	if str(f, "google_oauth_factor", "provider_subject") != "g-ada" {
		t.Fatalf("factor: %v", f)
	}
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, old), http.StatusNotFound, "session_not_found")
}

// wantPrimaryRequired fails unless r asks member for a primary factor (an
// IST, no session) and the session token held still works.
func wantPrimaryRequired(t *testing.T, e *apptest.Env, r apptest.Resp, member, held string) map[string]any {
	t.Helper()
	apptest.Want(t, r, http.StatusOK, "")
	d := r.Data()
	pr, _ := d["primary_required"].(map[string]any)
	if d["member_session"] != nil || d["session_token"] != "" || pr == nil || d["intermediate_session_token"] == "" || d["member_id"] != member {
		t.Fatalf("exchange: %s", r.Raw)
	}
	apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, held), http.StatusOK, "")
	return pr
}

// A Google login whose provider verified the member's address moves with
// the session to another organization where that address is a member,
// and the session lists that organization beforehand. The answer's factor
// is the wire object the SDKs read, without the provenance behind it.
func TestVerifiedOAuthLoginCarriesIntoAnotherOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		alpha, beta, inBeta := twoOrgs(e, "")
		token := googleSession(t, e, m, alpha, verifiedAda())

		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{}, token)
		apptest.Want(t, r, http.StatusOK, "")
		if got := apptest.Memberships(r.Data()); got["alpha"] != "active_member" || got["beta"] != "active_member" {
			t.Fatalf("organizations listed to the session: %v", got)
		}

		r = exchange(e, beta, token)
		wantCarried(t, e, r, beta, inBeta, token)
		b := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": r.Data()["session_token"]})
		apptest.Want(t, b, http.StatusOK, "")
		f := b.Body["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		var keys []string
		for k := range f["google_oauth_factor"].(map[string]any) {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, []string{"email_id", "id", "provider_subject"}) {
			t.Fatalf("google_oauth_factor fields %v", keys)
		}
	})
}

// A login the provider did not vouch for as the member's current address
// does not carry: a registered account logging in with its address
// unverified, or with another (verified) address, and a session stored
// before the provenance was recorded. The exchange asks for a primary
// factor and creates no session; where the address is no member, it is
// refused and nobody is admitted.
func TestOAuthLoginWithoutAVerifiedAddressDoesNotCarry(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		for i, c := range []struct {
			name  string
			login func(alpha string) string
		}{
			{"registered account, address unverified", func(alpha string) string {
				return googleSession(t, e, m, alpha, &mockoidc.MockUser{Subject: "g-ada", Email: adaEmail})
			}},
			{"registered account, another verified address", func(alpha string) string {
				return googleSession(t, e, m, alpha, &mockoidc.MockUser{Subject: "g-ada", Email: "ada@gmail.test", EmailVerified: true})
			}},
			{"session stored before provenance", func(alpha string) string {
				token := googleSession(t, e, m, alpha, verifiedAda())
				if _, err := e.App.DB.ExecContext(context.Background(), `UPDATE member_sessions SET factor_proofs = '[]'
					WHERE token_hash = $1`, ids.Hash(token)); err != nil {
					t.Fatal(err)
				}
				return token
			}},
		} {
			t.Run(c.name, func(t *testing.T) {
				prefix := fmt.Sprintf("c%d-", i)
				alpha, beta, inBeta := twoOrgs(e, prefix)
				open := e.CreateOrg(prefix+"open", "ALL_ALLOWED", nil)
				googleSession(t, e, m, alpha, verifiedAda()) // registers g-ada to Ada in alpha
				token := c.login(alpha)
				wantPrimaryRequired(t, e, exchange(e, beta, token), inBeta, token)
				if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, inBeta); n != 0 {
					t.Fatalf("%d sessions in beta", n)
				}
				// sessions/exchange admits no one new, whatever the factors.
				apptest.Want(t, exchange(e, open, token), http.StatusNotFound, "member_not_found")
				if got, _ := e.EmailsOf(map[string]any{"organization_ids": []string{open}}); len(got) != 0 {
					t.Fatalf("members of %s: %v", open, got)
				}
			})
		}
	})
}

// A carried OAuth factor meets the target organization's auth policy like
// any other login: it satisfies an organization that restricts its
// methods only when the provider's method is among them.
func TestCarriedOAuthLoginMeetsTheTargetsAuthMethods(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		alpha := e.CreateOrg("alpha", "NOT_ALLOWED", nil)
		e.CreateMember(alpha, adaEmail)
		restricted := func(slug string, methods ...string) (string, string) {
			org := e.CreateOrg(slug, "NOT_ALLOWED", map[string]any{"auth_methods": "RESTRICTED", "allowed_auth_methods": methods})
			return org, e.CreateMember(org, adaEmail)
		}
		links, linksMember := restricted("links-only", "magic_link")
		microsoft, microsoftMember := restricted("microsoft-only", "microsoft_oauth")
		google, googleMember := restricted("google-only", "google_oauth", "sso")
		token := googleSession(t, e, m, alpha, verifiedAda())

		pr := wantPrimaryRequired(t, e, exchange(e, links, token), linksMember, token)
		if got := pr["allowed_auth_methods"].([]any); len(got) != 1 || got[0] != "magic_link" {
			t.Fatalf("primary_required: %v", pr)
		}
		wantPrimaryRequired(t, e, exchange(e, microsoft, token), microsoftMember, token)
		wantCarried(t, e, exchange(e, google, token), google, googleMember, token)
	})
}

// The provenance follows the factor through every path a login takes to a
// session: an IST and MFA, a session stepped up with a second factor, and
// discovery (an IST before any member exists, then its exchange). Only the
// primary factor carries.
func TestOAuthProvenanceSurvivesMFAStepUpAndDiscovery(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		m := startGoogle(t, e)
		t.Run("mfa", func(t *testing.T) {
			alpha, beta, inBeta := twoOrgs(e, "mfa-")
			e.SetMFA(alpha, "REQUIRED_FOR_ALL")
			r := authenticateAfter(t, e, callbackOf(t, e, m, "google", alpha, verifiedAda()))
			apptest.Want(t, r, http.StatusOK, "")
			ist, _ := r.Data()["intermediate_session_token"].(string)
			if ist == "" || r.Data()["mfa_required"] == nil {
				t.Fatalf("login did not stop at mfa_required: %s", r.Raw)
			}
			member := r.Data()["member_id"].(string)
			const phone = "+14155550101"
			apptest.Want(t, e.SMSSend(alpha, member, ist, phone), http.StatusOK, "")
			r = e.SMSAuth(alpha, member, ist, e.LastSMS(phone), nil)
			apptest.Want(t, r, http.StatusOK, "")
			apptest.WantFactors(t, r.Data(), "oauth/oauth_google/PRIMARY", "otp/sms/SECONDARY")
			token := r.Data()["session_token"].(string)
			wantCarried(t, e, exchange(e, beta, token), beta, inBeta, token)
		})
		t.Run("step-up", func(t *testing.T) {
			alpha, beta, inBeta := twoOrgs(e, "step-")
			r := authenticateAfter(t, e, callbackOf(t, e, m, "google", alpha, verifiedAda()))
			apptest.Want(t, r, http.StatusOK, "")
			token := e.SessionSMS(alpha, r.Data()["member_id"].(string), r.Data()["session_token"].(string), "+14155550102", nil)
			wantCarried(t, e, exchange(e, beta, token), beta, inBeta, token)
		})
		t.Run("discovery", func(t *testing.T) {
			alpha, beta, inBeta := twoOrgs(e, "disc-")
			m.QueueUser(verifiedAda())
			u := browse(t, e, "/v1/b2b/public/oauth/google/discovery/start?"+url.Values{"public_token": {e.Project.PublicToken}}.Encode())
			r := e.SDK(http.MethodPost, "/b2b/oauth/discovery/authenticate", map[string]any{"discovery_oauth_token": u.Query().Get("token")}, "")
			apptest.Want(t, r, http.StatusOK, "")
			r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": alpha,
				"intermediate_session_token": r.Data()["intermediate_session_token"], "session_duration_minutes": 60}, "")
			apptest.Want(t, r, http.StatusOK, "")
			token := r.Data()["session_token"].(string)
			wantCarried(t, e, exchange(e, beta, token), beta, inBeta, token)
		})
	})
}
