package app_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An organization that accepts only email codes answers a magic-link login
// with primary_required and an IST; the email code then completes the
// login, and the session carries both factors.
func TestPrimaryRequiredThenAllowedMethod(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("strict", "ALL_ALLOWED", nil)
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"auth_methods": "RESTRICTED",
			"allowed_auth_methods": []string{"email_otp"}}); r.Status != 200 {
			t.Fatalf("restrict: %s", r.Raw)
		}
		e.CreateMember(org, "ada@strict.test")
		e.SendLink(org, "ada@strict.test", nil)
		links, _ := e.LastMail("ada@strict.test")
		r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
		d := r.Data()
		if r.Status != 200 || d["member_session"] != nil || d["member_authenticated"] != false || d["session_token"] != "" {
			t.Fatalf("restricted magic link gave a session: %s", r.Raw)
		}
		pr, _ := d["primary_required"].(map[string]any)
		if pr == nil || len(pr["allowed_auth_methods"].([]any)) != 1 || pr["allowed_auth_methods"].([]any)[0] != "email_otp" {
			t.Fatalf("primary_required = %v", d["primary_required"])
		}
		ist := d["intermediate_session_token"].(string)
		if ist == "" || d["member"] == nil || d["organization"] == nil {
			t.Fatalf("IST response lacks token/member/organization: %s", r.Raw)
		}

		e.SendCode(org, "ada@strict.test")
		_, codes := e.LastMail("ada@strict.test")
		r = e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@strict.test", "organization_id": org,
			"code": codes[0], "intermediate_session_token": ist}, "")
		ms, _ := r.Data()["member_session"].(map[string]any)
		if r.Status != 200 || ms == nil {
			t.Fatalf("allowed method did not complete the login: %s", r.Raw)
		}
		factors := ms["authentication_factors"].([]any)
		if len(factors) != 2 || factors[0].(map[string]any)["type"] != "magic_link" || factors[1].(map[string]any)["type"] != "email_otp" {
			t.Fatalf("factors = %v", factors)
		}

		// The IST was consumed: presenting it again adds nothing, and a
		// stale IST never blocks an otherwise good login.
		e.SendCode(org, "ada@strict.test")
		_, codes = e.LastMail("ada@strict.test")
		r = e.SDK(http.MethodPost, "/b2b/otps/email/authenticate", map[string]any{"email_address": "ada@strict.test", "organization_id": org,
			"code": codes[0], "intermediate_session_token": ist}, "")
		ms, _ = r.Data()["member_session"].(map[string]any)
		if r.Status != 200 || len(ms["authentication_factors"].([]any)) != 1 {
			t.Fatalf("replayed IST: %s", r.Raw)
		}
	})
}
