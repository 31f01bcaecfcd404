package stepup_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// Takeover-sensitive changes from a session need a factor from the last
// stepup.Window: a stolen (or unattended) session cannot change the
// address, the password or the factors for good.
func TestTakeoverSensitiveChangesNeedAStepUp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.AlignClock()
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateAdmin(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		_, _, token := e.EnrollTOTPWithSession(org, "ada@acme.test", nil)
		pwID := e.PasswordID(org, mid)

		e.Clock.Advance(stepup.Window + time.Second)
		stale := []struct {
			name string
			r    func() apptest.Resp
		}{
			{"start_email_update", func() apptest.Resp {
				return e.StartEmailUpdate(token, "", map[string]any{"email_address": "new@acme.test"})
			}},
			{"start_email_update for another member", func() apptest.Resp {
				return e.StartEmailUpdate(token, bob, map[string]any{"email_address": "bob2@acme.test"})
			}},
			{"password deletion", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/passwords/"+pwID, nil, token)
			}},
			{"totp enrolment", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/totp", map[string]any{"organization_id": org, "member_id": mid}, token)
			}},
			{"sms enrolment", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
					"mfa_phone_number": "+14155550123"}, token)
			}},
			{"recovery codes shown", func() apptest.Resp { return e.SDK(http.MethodGet, "/b2b/recovery_codes", nil, token) }},
			{"recovery codes rotated", func() apptest.Resp {
				return e.SDK(http.MethodPost, "/b2b/recovery_codes/rotate", map[string]any{}, token)
			}},
			{"own totp deletion", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/deleteTOTP", nil, token)
			}},
			{"own phone deletion", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/deletePhoneNumber", nil, token)
			}},
			{"another member's totp deletion", func() apptest.Resp {
				return e.SDK(http.MethodDelete, "/b2b/organizations/members/totp/"+bob, nil, token)
			}},
			// An admin's direct email change is immediate and unverified: the
			// new address can reset the member's password.
			{"another member's email by update", func() apptest.Resp {
				return e.SDK(http.MethodPut, "/b2b/organizations/members/"+bob, map[string]any{"email_address": "bob3@acme.test"}, token)
			}},
			{"another member's email by backend update for the session", func() apptest.Resp {
				return e.Do(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+bob, map[string]any{"email_address": "bob3@acme.test"},
					http.Header{"X-Stytch-Member-Session": {token}}, e.Project.Project.ID, e.Project.Secret)
			}},
			{"backend start_email_update for the session", func() apptest.Resp {
				return e.Do(http.MethodPost, "/v1/b2b/organizations/"+org+"/members/"+bob+"/start_email_update",
					map[string]any{"email_address": "bob3@acme.test"}, http.Header{"X-Stytch-Member-Session": {token}},
					e.Project.Project.ID, e.Project.Secret)
			}},
		}
		for _, c := range stale {
			r := c.r()
			if r.Status != 403 || r.ErrType() != "session_too_old" {
				t.Fatalf("%s with a stale session: %d %s", c.name, r.Status, r.Raw)
			}
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": apptest.StrongPassword + "!"}, token),
			400, "session_too_old_to_reset_password")
		// An update that leaves the address as it is changes nothing
		// sensitive, and the project secret is no session to step up.
		if r := e.SDK(http.MethodPut, "/b2b/organizations/members/"+bob, map[string]any{"email_address": "Bob@acme.test",
			"name": "Bob"}, token); r.Status != 200 {
			t.Fatalf("unchanged address with a stale session: %s", r.Raw)
		}
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+bob, map[string]any{"email_address": "bob4@acme.test"}); r.Status != 200 {
			t.Fatalf("email change with the project secret: %s", r.Raw)
		}
		// The session still works for everything else.
		if r := e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token); r.Status != 200 {
			t.Fatalf("stale session refused for a plain check: %s", r.Raw)
		}

		// A fresh factor (here a password login) allows the change.
		fresh := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword)
		if fresh.Status != 200 {
			t.Fatalf("password login: %s", fresh.Raw)
		}
		if r := e.StartEmailUpdate(fresh.Data()["session_token"].(string), "", map[string]any{"email_address": "new@acme.test"}); r.Status != 200 {
			t.Fatalf("start_email_update after a fresh factor: %s", r.Raw)
		}
		if r := e.SDK(http.MethodPut, "/b2b/organizations/members/"+bob, map[string]any{"email_address": "bob5@acme.test"},
			fresh.Data()["session_token"].(string)); r.Status != 200 {
			t.Fatalf("another member's email after a fresh factor: %s", r.Raw)
		}
	})
}
