package password_test

import (
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/project"
)

func TestPasswordResetByEmail(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		before := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword).Data()["session_token"].(string)

		r := e.ResetStart(org, "ada@acme.test", nil)
		if r.Status != 200 || len(r.Data()) != 2 {
			t.Fatalf("reset start: %s", r.Raw)
		}
		token := e.ResetLink("ada@acme.test", "multi_tenant_passwords")

		// A weak or breached password is refused without spending the link.
		apptest.Want(t, e.ResetWith(token, apptest.WeakPassword, nil), 400, "weak_password")
		apptest.Want(t, e.ResetWith(token, "Password123!", nil), 400, "breached_password")
		apptest.Want(t, e.ResetWith(token, "ada@acme.test", nil), 400, "weak_password")

		const newPassword = "Lantern-Pebble-Orchid-40"
		r = e.ResetWith(token, newPassword, nil)
		d := r.Data()
		// member_email_id and organization_id are the backend's (the Node client declares them; the browser SDK does not).
		if r.Status != 200 || d["member_authenticated"] != true || d["session_token"] == "" || d["member_email_id"] != nil ||
			d["organization_id"] != nil || apptest.MemberOf(d)["organization_id"] != org {
			t.Fatalf("reset: %s", r.Raw)
		}
		f := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["type"] != "password" || f["delivery_method"] != "email" {
			t.Fatalf("factor = %v", f)
		}
		apptest.Want(t, e.ResetWith(token, "Another-Fresh-Secret-77", nil), 401, "unable_to_auth_magic_link") // replay
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		if r := e.PasswordLogin(org, "ada@acme.test", newPassword); r.Status != 200 {
			t.Fatalf("new password: %s", r.Raw)
		}
		// The session opened with the old password is gone.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, before), 404, "session_not_found")

		// Expiry.
		e.ResetStart(org, "ada@acme.test", map[string]any{"reset_password_expiration_minutes": 5})
		token = e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		e.Clock.Advance(5 * time.Minute)
		apptest.Want(t, e.ResetWith(token, "Another-Fresh-Secret-77", nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.ResetWith("not-a-token", "Another-Fresh-Secret-77", nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", map[string]any{"reset_password_expiration_minutes": 1}), 400, "invalid_request")
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", map[string]any{"reset_password_redirect_url": "http://evil.test/"}), 400, "no_match_for_provided_magic_link_url")

		// A newer password change retires older links.
		e.ResetStart(org, "ada@acme.test", nil)
		older := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		e.ResetStart(org, "ada@acme.test", nil)
		newer := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		if r := e.ResetWith(newer, "Another-Fresh-Secret-77", nil); r.Status != 200 {
			t.Fatalf("newer link: %s", r.Raw)
		}
		apptest.Want(t, e.ResetWith(older, "Yet-Another-Secret-78", nil), 401, "unable_to_auth_magic_link")

		// Concurrent redemptions: exactly one wins.
		e.Clock.Advance(time.Hour) // out of the send window
		e.ResetStart(org, "ada@acme.test", nil)
		token = e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		var wg sync.WaitGroup
		statuses := make([]int, 6)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.ResetWith(token, "Concurrent-Secret-Plum-5", nil).Status
			}()
		}
		wg.Wait()
		if n := countOf(statuses, 200); n != 1 {
			t.Fatalf("concurrent resets succeeded %d times (%v), want exactly 1", n, statuses)
		}

		// Isolation: another project cannot use (or burn) the token.
		e.ResetStart(org, "ada@acme.test", nil)
		token = e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		p2 := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/sdk/v1/b2b/passwords/email/reset", map[string]any{"password_reset_token": token,
			"password": "Intruder-Secret-Fig-12"}, http.Header{"Origin": {apptest.Origin}}, p2.PublicToken, p2.PublicToken)
		apptest.Want(t, r, 401, "unable_to_auth_magic_link")
		if r := e.ResetWith(token, "Owner-Secret-Fig-13", nil); r.Status != 200 {
			t.Fatalf("token after the other project's attempt: %s", r.Raw)
		}

		// Sends are rate-limited per address.
		var last apptest.Resp
		for range password.ResetSendPerEmail.Limit + 1 {
			last = e.ResetStart(org, "ada@acme.test", nil)
		}
		apptest.Want(t, last, 429, "too_many_requests")
	})
}

func countOf(xs []int, v int) int {
	n := 0
	for _, x := range xs {
		if x == v {
			n++
		}
	}
	return n
}

func TestPasswordResetPKCE(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		on := true
		switchProject(e, project.Update{PKCERequiredForPasswordResets: &on})
		b := e.Do(http.MethodGet, "/sdk/v1/projects/bootstrap/"+e.Project.PublicToken, nil, nil, "", "")
		if b.Data()["pkce_required_for_password_resets"] != true {
			t.Fatalf("bootstrap: %s", b.Raw)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", nil), 400, "invalid_pkce_code_challenge")

		// A garbled challenge would make a link that no verifier redeems:
		// the start refuses it, as OAuth and SSO starts do, and sends
		// nothing. The discovery start names its field differently.
		const garbled = "plain-verifier-sent-as-challenge"
		r := e.ResetStart(org, "ada@acme.test", map[string]any{"code_challenge": garbled})
		apptest.Want(t, r, 400, "invalid_pkce_code_challenge")
		if r.Body["error_details"].(map[string]any)["field"] != "code_challenge" {
			t.Fatalf("garbled challenge: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "ada@acme.test",
			"pkce_code_challenge": garbled + "x"}, "")
		apptest.Want(t, r, 400, "invalid_pkce_code_challenge")
		if r.Body["error_details"].(map[string]any)["field"] != "pkce_code_challenge" {
			t.Fatalf("garbled discovery challenge: %s", r.Raw)
		}
		if msgs, _ := e.App.Outbox.List(t.Context(), "ada@acme.test", 1); len(msgs) != 0 {
			t.Fatalf("a refused start sent mail: %+v", msgs)
		}

		verifier := "5f1c0a9e3b7d2c4e8a6f1b3d5c7e9a0b2d4f6a8c"
		if r := e.ResetStart(org, "ada@acme.test", map[string]any{"code_challenge": flowtoken.S256(verifier)}); r.Status != 200 {
			t.Fatalf("start with challenge: %s", r.Raw)
		}
		token := e.ResetLink("ada@acme.test", "multi_tenant_passwords")
		apptest.Want(t, e.ResetWith(token, "Lantern-Pebble-Orchid-40", nil), 400, "pkce_expected_code_verifier")
		apptest.Want(t, e.ResetWith(token, "Lantern-Pebble-Orchid-40", map[string]any{"code_verifier": "wrong"}), 400, "pkce_mismatch")
		if r := e.ResetWith(token, "Lantern-Pebble-Orchid-40", map[string]any{"code_verifier": verifier}); r.Status != 200 {
			t.Fatalf("right verifier after wrong ones: %s", r.Raw)
		}

		// The address-verifying magic link of a member without a password
		// carries the same challenge.
		e.CreateMember(org, "nopass@acme.test")
		e.ResetStart(org, "nopass@acme.test", map[string]any{"code_challenge": flowtoken.S256(verifier)})
		ml := e.ResetLink("nopass@acme.test", "multi_tenant_magic_links")
		apptest.Want(t, e.RedeemLink(ml, nil), 400, "pkce_expected_code_verifier")
		if r := e.RedeemLink(ml, map[string]any{"pkce_code_verifier": verifier}); r.Status != 200 {
			t.Fatalf("magic link with the verifier: %s", r.Raw)
		}
	})
}

// Setting a password ends what the old one could still do, logins in
// progress included. A discovery IST minted by the old password, left
// alive, lets whoever used that password turn it into a session after the
// owner's reset, whose fresh password factor may then set a password of
// their choosing by session/reset.
func TestPasswordResetSpendsLoginsInProgressOfTheOldPassword(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@corp.test")
		e.SetPassword(org, "ada@corp.test", apptest.StrongPassword)

		// The attacker, holding the old password, starts a discovery login.
		d := e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate",
			map[string]any{"email_address": "ada@corp.test", "password": apptest.StrongPassword}, "").Data()
		ist, _ := d["intermediate_session_token"].(string)
		if ist == "" {
			t.Fatalf("no IST: %v", d)
		}

		// The owner resets the password through the inbox.
		e.ResetStart(org, "ada@corp.test", nil)
		if r := e.ResetWith(e.ResetLink("ada@corp.test", "multi_tenant_passwords"), "Gravel-Mitten-Sonnet-29", nil); r.Status != 200 {
			t.Fatalf("reset: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
			"organization_id": org, "session_duration_minutes": 60}, ""), 404, "intermediate_session_not_found")
	})
}

// The IST a client sends with its reset is the reset's own login in
// progress: its factors still carry into the session, although the change
// spends the address's other ISTs.
func TestPasswordResetCarriesItsOwnIST(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"auth_methods": "RESTRICTED", "allowed_auth_methods": []string{"password"}})
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		e.SendLink(org, "ada@acme.test", nil)
		links, _ := e.LastMail("ada@acme.test")
		r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
		ist, _ := r.Data()["intermediate_session_token"].(string)
		if r.Status != 200 || r.Data()["member_session"] != nil || ist == "" {
			t.Fatalf("magic link where only passwords are allowed: %s", r.Raw)
		}

		e.ResetStart(org, "ada@acme.test", nil)
		r = e.ResetWith(e.ResetLink("ada@acme.test", "multi_tenant_passwords"), "Gravel-Mitten-Sonnet-29",
			map[string]any{"intermediate_session_token": ist})
		if r.Status != 200 || !slices.Equal(pwFactorTypes(r.Data()), []string{"magic_link", "password"}) {
			t.Fatalf("reset with the login's IST: %s", r.Raw)
		}
	})
}
