package app_test

import (
	"maps"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/project"
)

// weakPassword is on no breach list but scores low.
const weakPassword = "moosemoose9"

func (e *env) resetStart(org, email string, extra map[string]any) resp {
	e.t.Helper()
	body := map[string]any{"organization_id": org, "email_address": email}
	maps.Copy(body, extra)
	return e.sdk("/b2b/passwords/email/reset/start", body, "")
}

func (e *env) resetWith(token, pw string, extra map[string]any) resp {
	e.t.Helper()
	body := map[string]any{"password_reset_token": token, "password": pw, "session_duration_minutes": 60}
	maps.Copy(body, extra)
	return e.sdk("/b2b/passwords/email/reset", body, "")
}

// mailedLink returns the newest link mailed to an address after checking
// it targets the registered page with the given token type and the
// reset_password redirect type; it returns "" when the mail has no link.
func (e *env) mailedLink(to, tokenType string) string {
	e.t.Helper()
	links, _ := e.lastMail(to)
	if len(links) == 0 {
		return ""
	}
	q := apptest.LinkParams(e.t, links[0], e.page, tokenType)
	if q.Get("stytch_redirect_type") != "reset_password" {
		e.t.Fatalf("link %q: want redirect type reset_password", links[0])
	}
	return q.Get("token")
}

func TestPasswordResetByEmail(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		e.createMember(org, "ada@acme.test")
		e.setPassword(org, "ada@acme.test", strongPassword)
		before := e.pwLogin(org, "ada@acme.test", strongPassword).data()["session_token"].(string)

		r := e.resetStart(org, "ada@acme.test", nil)
		if r.Status != 200 || len(r.data()) != 2 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		token := e.mailedLink("ada@acme.test", "multi_tenant_passwords")

		// A weak or breached password is refused without spending the link.
		want(t, e.resetWith(token, weakPassword, nil), 400, "weak_password")
		want(t, e.resetWith(token, "Password123!", nil), 400, "breached_password")
		want(t, e.resetWith(token, "ada@acme.test", nil), 400, "weak_password")

		const newPassword = "Lantern-Pebble-Orchid-40"
		r = e.resetWith(token, newPassword, nil)
		d := r.data()
		// member_email_id and organization_id are the backend's (the Node client declares them; the browser SDK does not).
		if r.Status != 200 || d["member_authenticated"] != true || d["session_token"] == "" || d["member_email_id"] != nil ||
			d["organization_id"] != nil || member(d)["organization_id"] != org {
			t.Fatalf("reset: %s", r.Raw)
		}
		f := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["type"] != "password" || f["delivery_method"] != "email" {
			t.Fatalf("factor = %v", f)
		}
		want(t, e.resetWith(token, "Another-Fresh-Secret-77", nil), 401, "unable_to_auth_magic_link") // replay
		want(t, e.pwLogin(org, "ada@acme.test", strongPassword), 401, "unauthorized_credentials")
		if r := e.pwLogin(org, "ada@acme.test", newPassword); r.Status != 200 {
			t.Fatalf("new password: %s", r.Raw)
		}
		// The session opened with the old password is gone.
		want(t, e.sdk("/b2b/sessions/authenticate", map[string]any{}, before), 404, "session_not_found")

		// Expiry.
		e.resetStart(org, "ada@acme.test", map[string]any{"reset_password_expiration_minutes": 5})
		token = e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		e.clock.Advance(5 * time.Minute)
		want(t, e.resetWith(token, "Another-Fresh-Secret-77", nil), 401, "unable_to_auth_magic_link")
		want(t, e.resetWith("not-a-token", "Another-Fresh-Secret-77", nil), 401, "unable_to_auth_magic_link")
		want(t, e.resetStart(org, "ada@acme.test", map[string]any{"reset_password_expiration_minutes": 1}), 400, "invalid_request")
		want(t, e.resetStart(org, "ada@acme.test", map[string]any{"reset_password_redirect_url": "http://evil.test/"}), 400, "redirect_url_not_registered")

		// A newer password change retires older links.
		e.resetStart(org, "ada@acme.test", nil)
		older := e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		e.resetStart(org, "ada@acme.test", nil)
		newer := e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		if r := e.resetWith(newer, "Another-Fresh-Secret-77", nil); r.Status != 200 {
			t.Fatalf("newer link: %s", r.Raw)
		}
		want(t, e.resetWith(older, "Yet-Another-Secret-78", nil), 401, "unable_to_auth_magic_link")

		// Concurrent redemptions: exactly one wins.
		e.clock.Advance(time.Hour) // out of the send window
		e.resetStart(org, "ada@acme.test", nil)
		token = e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		var wg sync.WaitGroup
		statuses := make([]int, 6)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.resetWith(token, "Concurrent-Secret-Plum-5", nil).Status
			}()
		}
		wg.Wait()
		if n := count(statuses, 200); n != 1 {
			t.Fatalf("concurrent resets succeeded %d times (%v), want exactly 1", n, statuses)
		}

		// Isolation: another project cannot use (or burn) the token.
		e.resetStart(org, "ada@acme.test", nil)
		token = e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		p2 := e.newProject("Other")
		r = e.do(http.MethodPost, "/sdk/v1/b2b/passwords/email/reset", map[string]any{"password_reset_token": token,
			"password": "Intruder-Secret-Fig-12"}, http.Header{"Origin": {e.origin}}, p2.PublicToken, p2.PublicToken)
		want(t, r, 401, "unable_to_auth_magic_link")
		if r := e.resetWith(token, "Owner-Secret-Fig-13", nil); r.Status != 200 {
			t.Fatalf("token after the other project's attempt: %s", r.Raw)
		}

		// Sends are rate-limited per address.
		var last resp
		for range password.ResetSendPerEmail.Limit + 1 {
			last = e.resetStart(org, "ada@acme.test", nil)
		}
		want(t, last, 429, "too_many_requests")
	})
}

func count(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

func TestPasswordResetPKCE(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		on := true
		e.switchProject(project.Update{PKCERequiredForPasswordResets: &on})
		b := e.do(http.MethodGet, "/sdk/v1/projects/bootstrap/"+e.proj.PublicToken, nil, nil, "", "")
		if b.data()["pkce_required_for_password_resets"] != true {
			t.Fatalf("bootstrap: %s", b.Raw)
		}
		org := e.createOrg("acme", "ALL_ALLOWED")
		e.createMember(org, "ada@acme.test")
		e.setPassword(org, "ada@acme.test", strongPassword)
		want(t, e.resetStart(org, "ada@acme.test", nil), 400, "pkce_required")

		verifier := "5f1c0a9e3b7d2c4e8a6f1b3d5c7e9a0b2d4f6a8c"
		if r := e.resetStart(org, "ada@acme.test", map[string]any{"code_challenge": flowtoken.S256(verifier)}); r.Status != 200 {
			t.Fatalf("start with challenge: %s", r.Raw)
		}
		token := e.mailedLink("ada@acme.test", "multi_tenant_passwords")
		want(t, e.resetWith(token, "Lantern-Pebble-Orchid-40", nil), 400, "pkce_mismatch")
		want(t, e.resetWith(token, "Lantern-Pebble-Orchid-40", map[string]any{"code_verifier": "wrong"}), 400, "pkce_mismatch")
		if r := e.resetWith(token, "Lantern-Pebble-Orchid-40", map[string]any{"code_verifier": verifier}); r.Status != 200 {
			t.Fatalf("right verifier after wrong ones: %s", r.Raw)
		}

		// The address-verifying magic link of a member without a password
		// carries the same challenge.
		e.createMember(org, "nopass@acme.test")
		e.resetStart(org, "nopass@acme.test", map[string]any{"code_challenge": flowtoken.S256(verifier)})
		ml := e.mailedLink("nopass@acme.test", "multi_tenant_magic_links")
		want(t, e.redeem(ml, nil), 400, "pkce_mismatch")
		if r := e.redeem(ml, map[string]any{"pkce_code_verifier": verifier}); r.Status != 200 {
			t.Fatalf("magic link with the verifier: %s", r.Raw)
		}
	})
}
