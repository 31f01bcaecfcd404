package session_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
)

// asStoredBefore rewrites the email-code factors of the row of table
// whose token is token as they were written before email codes were
// email_otp: type otp, delivery_method email.
func asStoredBefore(t *testing.T, e *apptest.Env, table, token string) {
	t.Helper()
	res, err := e.App.DB.ExecContext(context.Background(), `UPDATE `+table+`
		SET authentication_factors = REPLACE(authentication_factors, '"type":"email_otp"', '"type":"otp"') WHERE token_hash = $1`,
		ids.Hash(token))
	if n, _ := res.RowsAffected(); err != nil || n != 1 {
		t.Fatalf("rewrite %s: %d rows, %v", table, n, err)
	}
}

// An email code is an email_otp factor, as the API family's
// AuthenticationFactor names it (otp is an SMS code); sessions and ISTs
// issued while it was written as otp with delivery email read as
// email_otp everywhere: in answers, in an organization's
// allowed_auth_methods, in what proves the inbox and carries into another
// organization, and when a login joins such a session.
func TestEmailCodeFactorIsEmailOTP(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		strict := e.CreateOrg("strict", "NOT_ALLOWED", map[string]any{"auth_methods": "RESTRICTED",
			"allowed_auth_methods": []string{"email_otp"}})
		e.CreateMember(strict, "ada@acme.test")
		wantTypes := func(r apptest.Resp, want ...string) {
			t.Helper()
			apptest.Want(t, r, 200, "")
			if got := apptest.FactorTypes(r); !slices.Equal(got, want) {
				t.Fatalf("factors %v, want %v", got, want)
			}
		}

		token, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		wantTypes(check(e, token, ""), "email_otp")
		asStoredBefore(t, e, "member_sessions", token)
		wantTypes(check(e, token, ""), "email_otp")
		if sdk := sdkCheck(e, token); !slices.Equal(apptest.FactorTypes(sdk), []string{"email_otp"}) {
			t.Fatalf("SDK check: %s", sdk.Raw)
		}

		// A stored email code carries into an organization that accepts
		// only email codes.
		exchanged := e.Backend(http.MethodPost, "/v1/b2b/sessions/exchange", map[string]any{"organization_id": strict,
			"session_token": token})
		wantTypes(exchanged, "email_otp")

		// A new email code joining a stored one replaces it, as the same
		// factor: one email_otp, not otp and email_otp.
		held, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		asStoredBefore(t, e, "member_sessions", held)
		e.SendCode(org, "ada@acme.test")
		_, codes := e.LastMail("ada@acme.test")
		e.WantJoined(t, e.Backend(http.MethodPost, "/v1/b2b/otps/email/authenticate", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "code": codes[0], "session_token": held}), held, "email_otp")

		// An IST from a discovery email code, stored as otp, satisfies the
		// organization that accepts only email codes.
		ist := e.Discover("ada@acme.test")["intermediate_session_token"].(string)
		asStoredBefore(t, e, "intermediate_sessions", ist)
		wantTypes(e.Backend(http.MethodPost, "/v1/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": strict}), "email_otp")
	})
}
