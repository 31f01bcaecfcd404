package password_test

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
)

// TestPasswordResetRevealsNoMembership starts resets for a member with a
// password, a member without one, a stranger the organization admits and a
// stranger it refuses: the API answers identically, and only the mailbox
// owner sees the difference.
func TestPasswordResetRevealsNoMembership(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		e.CreateMember(org, "nopass@acme.test")

		var answers []map[string]any
		for _, email := range []string{"ada@acme.test", "nopass@acme.test", "new@acme.test", "eve@evil.test"} {
			r := e.ResetStart(org, email, nil)
			if r.Status != 200 {
				t.Fatalf("%s: %s", email, r.Raw)
			}
			d := maps.Clone(r.Data())
			delete(d, "request_id")
			answers = append(answers, d)
		}
		for i, a := range answers[1:] {
			if !maps.Equal(a, answers[0]) {
				t.Fatalf("answer %d differs: %v vs %v", i+1, a, answers[0])
			}
		}
		e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		e.ResetLink("nopass@acme.test", "multi_tenant_magic_links")
		ml := e.ResetLink("new@acme.test", "multi_tenant_magic_links")
		if tok := e.ResetLink("eve@evil.test", ""); tok != "" {
			t.Fatal("the refused stranger got a link")
		}
		msgs, _ := e.App.Outbox.List(context.Background(), "eve@evil.test", 1)
		if len(msgs) != 1 || msgs[0].Subject != "Password reset request for Customer App" {
			t.Fatalf("notice to the stranger: %+v", msgs)
		}

		// The stranger the organization admits verifies the address by the
		// magic link, then sets a password with the fresh session.
		r := e.RedeemLink(ml, nil)
		sess, _ := r.Data()["session_token"].(string)
		if r.Status != 200 || sess == "" || r.Data()["member"].(map[string]any)["status"] != "active" {
			t.Fatalf("magic link: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": apptest.WeakPassword}, sess), 400, "weak_password")
		r = e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": "Gravel-Mitten-Sonnet-29"}, sess)
		if r.Status != 200 || r.Data()["session_token"] != sess || r.Data()["member"].(map[string]any)["member_password_id"] == "" {
			t.Fatalf("session reset: %s", r.Raw)
		}
		if r := e.PasswordLogin(org, "new@acme.test", "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("login with the new password: %s", r.Raw)
		}
	})
}

func TestPasswordSessionReset(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		other := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)
		current := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)

		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": "Gravel-Mitten-Sonnet-29"}, ""), 401, "user_unauthenticated")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": "Gravel-Mitten-Sonnet-29"}, "bogus"), 404, "session_not_found")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": "Password123!"}, current), 400, "breached_password")
		r := e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": "Gravel-Mitten-Sonnet-29"}, current)
		if r.Status != 200 || r.Data()["member_session"] == nil {
			t.Fatalf("session reset: %s", r.Raw)
		}
		// The member's other sessions end; the one used stays.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, other), 404, "session_not_found")
		if r := e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, current); r.Status != 200 {
			t.Fatalf("the session used was revoked: %s", r.Raw)
		}

		// A session whose newest factor is older than five minutes cannot.
		e.Clock.Advance(5*time.Minute + time.Second)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": "Another-Fresh-Secret-77"}, current), 400,
			"session_too_old_to_reset_password")

		// Backend face: the session in the body, its organization named.
		fresh := e.PasswordLogin(org, "ada@acme.test", "Gravel-Mitten-Sonnet-29").Data()["session_token"].(string)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/session/reset", map[string]any{"organization_id": "organization-test-x",
			"session_token": fresh, "password": "Another-Fresh-Secret-77"}), 404, "session_not_found")
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/session/reset", map[string]any{"organization_id": org,
			"session_token": fresh, "password": "Another-Fresh-Secret-77"})
		if r.Status != 200 || r.Body["member_authenticated"] != true {
			t.Fatalf("backend session reset: %s", r.Raw)
		}
	})
}

// A session proves the address by a login with its password only while
// that password stands. Once the backend forces its reset (the password
// is presumed known to an attacker, who may hold such a session) or
// deletes it, session/reset must not replace it: only a session that
// proved the inbox may, which is the reset the flag asks for.
func TestPasswordSessionResetNeedsTheInboxOnceThePasswordFalls(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		reset := func(session, pw string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/passwords/session/reset", map[string]any{"password": pw}, session)
		}
		// The attacker logs in with the leaked password; the customer's
		// backend notices and forces a reset.
		stolen := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)
		if r := e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset",
			map[string]any{"email_address": "ada@acme.test", "organization_id": org}); r.Status != 200 {
			t.Fatalf("require_reset: %s", r.Raw)
		}
		apptest.Want(t, reset(stolen, "Attacker-Chosen-Secret-91"), 400, "reset_password")
		if _, forced := storedPassword(e, "ada@acme.test"); !forced {
			t.Fatal("a refused session reset cleared the forced reset")
		}

		// The owner's session proved the inbox (an email code): it may.
		owner, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		if r := reset(owner, "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("session reset proven by the inbox: %s", r.Raw)
		}

		// A deleted password proves nothing either.
		stolen = e.PasswordLogin(org, "ada@acme.test", "Gravel-Mitten-Sonnet-29").Data()["session_token"].(string)
		if r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/passwords/"+e.PasswordID(org, mid), nil); r.Status != 200 {
			t.Fatalf("delete password: %s", r.Raw)
		}
		apptest.Want(t, reset(stolen, "Attacker-Chosen-Secret-91"), 400, "reset_password")
		if e.PasswordID(org, mid) != "" {
			t.Fatal("a refused session reset set a password")
		}
	})
}

func TestPasswordExistingReset(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		old := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)
		reset := func(existing, next string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/passwords/existing_password/reset", map[string]any{"organization_id": org,
				"email_address": "ada@acme.test", "existing_password": existing, "new_password": next, "session_duration_minutes": 30}, "")
		}
		apptest.Want(t, reset("Wrong-Password-1", "Gravel-Mitten-Sonnet-29"), 401, "unauthorized_credentials")
		// The same password again is the API family's own refusal.
		apptest.Want(t, reset(apptest.StrongPassword, apptest.StrongPassword), 400, "cannot_reset_password_with_existing_password")
		apptest.Want(t, reset(apptest.StrongPassword, apptest.WeakPassword), 400, "weak_password")
		apptest.Want(t, reset(apptest.StrongPassword, "Summer2024!"), 400, "breached_password")
		r := reset(apptest.StrongPassword, "Gravel-Mitten-Sonnet-29")
		if r.Status != 200 || r.Data()["member_session"] == nil {
			t.Fatalf("existing password reset: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, old), 404, "session_not_found")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		if r := e.PasswordLogin(org, "ada@acme.test", "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("login with the new password: %s", r.Raw)
		}
	})
}

// A correct but breached password at login forces a reset through the
// inbox. existing_password/reset checks the same password and must answer
// the same: otherwise whoever stuffs a breached credential chooses the new
// password and gets a session.
func TestPasswordExistingResetWithBreachedPasswordForcesReset(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		// Imported before the breach was known: migrate stores any hash.
		const breached = "Password123!"
		e.SetPassword(org, "ada@acme.test", breached)

		r := e.SDK(http.MethodPost, "/b2b/passwords/existing_password/reset", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "existing_password": breached, "new_password": "Attacker-Chosen-Secret-91",
			"session_duration_minutes": 30}, "")
		apptest.Want(t, r, 400, "reset_password")
		// And, as at login, the reset is now forced.
		if _, forced := storedPassword(e, "ada@acme.test"); !forced {
			t.Fatal("the breached password's reset is not forced")
		}
	})
}

func TestPasswordRequireReset(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		member := e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		e.CreateMember(org, "nopass@acme.test")

		r := e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset", map[string]any{"email_address": "ada@acme.test",
			"organization_id": org})
		if r.Status != 200 || r.Body["member_id"] != member {
			t.Fatalf("require_reset: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 400, "reset_password")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", "Wrong-Password-1"), 401, "unauthorized_credentials")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/existing_password/reset", map[string]any{"organization_id": org, "email_address": "ada@acme.test",
			"existing_password": apptest.StrongPassword, "new_password": "Gravel-Mitten-Sonnet-29"}, ""), 400, "reset_password")

		// Only a reset through the inbox clears it.
		e.ResetStart(org, "ada@acme.test", nil)
		if r := e.ResetWith(e.ResetLink("ada@acme.test", "multi_tenant_passwords"), "Gravel-Mitten-Sonnet-29", nil); r.Status != 200 {
			t.Fatalf("reset: %s", r.Raw)
		}
		if r := e.PasswordLogin(org, "ada@acme.test", "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("login after the reset: %s", r.Raw)
		}

		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset", map[string]any{"email_address": "nopass@acme.test"}),
			404, "member_password_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset", map[string]any{"email_address": "ghost@acme.test",
			"organization_id": org}), 404, "member_not_found")
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/email/require_reset", map[string]any{"member_id": member})
		if r.Status != 200 || r.Body["organization"].(map[string]any)["organization_id"] != org {
			t.Fatalf("require_reset by member id: %s", r.Raw)
		}
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", "Gravel-Mitten-Sonnet-29"), 400, "reset_password")
		// It is backend-only.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/email/require_reset", map[string]any{"email_address": "ada@acme.test"}, ""), 404, "route_not_found")
	})
}

// The notice a reset start sends to an address that cannot sign in goes to
// whatever address the caller typed, so it names the project (the
// operator's words), not the organization: anyone with a discovery
// session can create an organization, name it as they like and close it,
// and the server would mail that name to arbitrary inboxes. It still goes
// out (the answer stays the same for everyone) under the send limits.
func TestResetNoticeRelaysNoOrganizationText(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		const bait = "URGENT call +1-555-0100 or visit evil.example"
		org := e.CreateOrg("bait", "NOT_ALLOWED", map[string]any{"organization_name": bait})
		if r := e.ResetStart(org, "victim@example.test", nil); r.Status != 200 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		msgs, err := e.App.Outbox.List(t.Context(), "victim@example.test", 0)
		if err != nil || len(msgs) != 1 {
			t.Fatalf("%d notices, want 1: %v", len(msgs), err)
		}
		m := msgs[0]
		for _, part := range []string{m.Subject, m.Text, m.HTML} {
			if strings.Contains(part, "URGENT") || strings.Contains(part, "555") || strings.Contains(part, "evil.example") {
				t.Fatalf("the notice relays the organization's name:\n%s\n%s", m.Subject, m.Text)
			}
		}
		if m.Subject != "Password reset request for Customer App" || !strings.Contains(m.Text, "Customer App") || len(m.Links) != 0 {
			t.Fatalf("notice: %q\n%s", m.Subject, m.Text)
		}
	})
}
