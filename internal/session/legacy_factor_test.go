package session_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/ids"
)

// asStoredBefore checks that the row of table whose token is token
// stores its email-code factors as releases before email_otp did (type
// otp, delivery_method email): a replica of the previous release, still
// running during a rolling deploy, reads the rows this one writes and
// knows only that spelling. What the tests then check is that rows in
// that spelling read as email_otp everywhere.
func asStoredBefore(t *testing.T, e *apptest.Env, table, token string) {
	t.Helper()
	var text string
	if err := e.App.DB.QueryRowContext(context.Background(), `SELECT authentication_factors FROM `+table+` WHERE token_hash = $1`,
		ids.Hash(token)).Scan(&text); err != nil {
		t.Fatalf("read %s: %v", table, err)
	}
	var stored []struct {
		Type           string `json:"type"`
		DeliveryMethod string `json:"delivery_method"`
	}
	if err := json.Unmarshal([]byte(text), &stored); err != nil {
		t.Fatal(err)
	}
	codes := 0
	for _, f := range stored {
		if f.DeliveryMethod == "email" && f.Type != "magic_link" {
			if f.Type != "otp" {
				t.Fatalf("%s stores an email code as %q, which the previous release does not read: %s", table, f.Type, text)
			}
			codes++
		}
	}
	if codes == 0 {
		t.Fatalf("%s holds no email code: %s", table, text)
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
