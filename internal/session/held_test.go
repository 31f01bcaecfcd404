package session_test

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/session"
)

// A login sent with the session the caller holds (session_token or
// session_jwt in the body, as the backend SDKs send them) adds its factor
// to that session: the answer is one session with every factor, and the
// old one ends. The rules are the session package's (session.Held,
// CompleteParams.From); email codes and magic links drive them here, and
// each other method's package checks its own wiring.
func TestLoginJoinsHeldSession(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("held", "ALL_ALLOWED", nil)
		other := e.CreateOrg("held-other", "ALL_ALLOWED", nil)
		redeem := func(token string, extra map[string]any) apptest.Resp {
			body := map[string]any{"magic_links_token": token, "session_duration_minutes": 60}
			for k, v := range extra {
				body[k] = v
			}
			return e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate", body)
		}

		for _, by := range []string{"session_token", "session_jwt"} {
			t.Run("by "+by, func(t *testing.T) {
				email := by + "@example.com"
				token, jwt := e.LoginByEmailOTP(org, email)
				held := map[string]any{"session_token": token, "session_jwt": jwt}[by]
				r := redeem(mailedLink(t, e, org, email), map[string]any{by: held})
				e.WantJoined(t, r, token, "email_otp", "magic_link")
				apptest.Want(t, check(e, r.Body["session_token"].(string), ""), 200, "")
			})
		}

		t.Run("same kind replaced", func(t *testing.T) {
			const email = "again@example.com"
			token, _ := e.LoginByEmailOTP(org, email)
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup",
				map[string]any{"organization_id": org, "email_address": email}), 200, "")
			_, codes := e.LastMail(email)
			r := e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": org,
				"email_address": email, "code": codes[len(codes)-1], "session_token": token})
			e.WantJoined(t, r, token, "email_otp")
		})

		// When the organization wants a second factor the held session
		// lacks, the answer is an IST and the held session lives on; an
		// IST and a session together are refused, and the link is kept.
		t.Run("MFA still needed", func(t *testing.T) {
			mfaOrg := e.CreateOrg("held-mfa", "ALL_ALLOWED", nil)
			const email = "mfa@example.com"
			token, _ := e.LoginByEmailOTP(mfaOrg, email)
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+mfaOrg,
				map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"}), 200, "")
			r := redeem(mailedLink(t, e, mfaOrg, email), map[string]any{"session_token": token})
			apptest.Want(t, r, 200, "")
			if r.Body["member_authenticated"] != false || r.Body["intermediate_session_token"] == "" || r.Body["session_token"] != "" {
				t.Errorf("answer %s: want an IST and no session", r.Raw)
			}
			apptest.Want(t, check(e, token, ""), 200, "")
			ist := r.Body["intermediate_session_token"]
			tok := mailedLink(t, e, mfaOrg, email)
			apptest.Want(t, redeem(tok, map[string]any{"session_token": token, "intermediate_session_token": ist}), 400, "too_many_session_arguments")
			r = redeem(tok, map[string]any{"intermediate_session_token": ist})
			apptest.Want(t, r, 200, "")
			if r.Body["intermediate_session_token"] == "" {
				t.Errorf("answer %s: want an IST", r.Raw)
			}
		})

		// A session the login cannot join fails the call before the link
		// is spent: the same link then logs in without it.
		t.Run("refused sessions keep the link", func(t *testing.T) {
			const email = "refused@example.com"
			mine, myJWT := e.LoginByEmailOTP(org, email)
			theirs, _ := e.LoginByEmailOTP(org, "someone-else@example.com")
			elsewhere, _ := e.LoginByEmailOTP(other, email)
			revoked, _ := e.LoginByEmailOTP(org, email)
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/revoke", map[string]any{"session_token": revoked}), 200, "")
			tok := mailedLink(t, e, org, email)
			for _, c := range []struct {
				name    string
				extra   map[string]any
				status  int
				errType string
			}{
				{"another member's", map[string]any{"session_token": theirs}, 403, "unauthorized_action"},
				{"another organization's", map[string]any{"session_token": elsewhere}, 403, "unauthorized_action"},
				{"revoked", map[string]any{"session_token": revoked}, 404, "session_not_found"},
				{"unknown", map[string]any{"session_token": "no-such-token"}, 404, "session_not_found"},
				{"both", map[string]any{"session_token": mine, "session_jwt": myJWT}, 400, "too_many_session_arguments"},
			} {
				apptest.Want(t, redeem(tok, c.extra), c.status, c.errType)
				apptest.Want(t, check(e, theirs, ""), 200, "")
			}
			apptest.Want(t, check(e, mine, ""), 200, "")
			r := redeem(tok, nil)
			apptest.Want(t, r, 200, "")
			if got := apptest.FactorTypes(r); len(got) != 1 || got[0] != "magic_link" {
				t.Errorf("factors %v, want magic_link alone", got)
			}
		})
	})
}

// A stale session sent with a login counts against the client's address
// like a failed session check (session.FailuresPerIP), and a valid one
// still passes once the address is over the limit. The address is the
// end user's on the SDK face; on the backend face it is the customer's
// server, and nothing is counted against it (ratelimit.OnBehalf).
func TestHeldSessionFailuresCounted(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("held-limit", "ALL_ALLOWED", nil)
		held, _ := e.LoginByEmailOTP(org, "limit@example.com")
		token := mailedLink(t, e, org, "limit@example.com")
		redeemWith := func(field, value string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/magic_links/authenticate",
				map[string]any{"magic_links_token": token, field: value}, "")
		}
		redeem := func(session string) apptest.Resp { return redeemWith("session_token", session) }
		// Unknown tokens and forged JWTs alike count.
		for i := range session.FailuresPerIP.Limit {
			field, value, status := "session_token", fmt.Sprintf("stale-%d", i), 404
			if i%2 == 1 {
				field, value, status = "session_jwt", fmt.Sprintf("eyJhbGciOiJSUzI1NiJ9.e30.forged-%d", i), 401
			}
			r := redeemWith(field, value)
			if r.Status != status {
				t.Fatalf("failure %d: %d %s", i, r.Status, r.Raw)
			}
		}
		apptest.Want(t, redeem("stale-again"), 429, "too_many_requests")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate",
			map[string]any{"magic_links_token": token, "session_token": "stale-from-the-server"}), 404, "session_not_found")
		// (Not WantJoined: its check that the held session ended is itself
		// a failure, refused now with 429.)
		r := redeem(held)
		apptest.Want(t, r, 200, "")
		r.Body = r.Data()
		if got := apptest.FactorTypes(r); len(got) != 2 || got[1] != "magic_link" {
			t.Errorf("factors %v, want the held session's and magic_link", got)
		}
	})
}

// An MFA check that steps a session up takes the session through the same
// Check, so a stale one counts against the (end user's) address too.
func TestStepUpSessionFailuresCounted(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("stepup-limit", "ALL_ALLOWED", nil)
		totp := func(session string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/totp/authenticate",
				map[string]any{"organization_id": org, "code": "123456"}, session)
		}
		for i := range session.FailuresPerIP.Limit {
			if r := totp(fmt.Sprintf("stale-%d", i)); r.Status != 404 {
				t.Fatalf("failure %d: %d %s", i, r.Status, r.Raw)
			}
		}
		apptest.Want(t, totp("stale-again"), 429, "too_many_requests")
	})
}

// mailedLink sends a magic link to email's member of org and returns the
// token of the link mailed.
func mailedLink(t *testing.T, e *apptest.Env, org, email string) string {
	t.Helper()
	apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup",
		map[string]any{"organization_id": org, "email_address": email}), 200, "")
	links, _ := e.LastMail(email)
	if len(links) == 0 {
		t.Fatalf("no magic link mailed to %s", email)
	}
	return apptest.LinkToken(t, links[len(links)-1], "", "multi_tenant_magic_links")
}
