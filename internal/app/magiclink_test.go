package app_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/magiclink"
)

// tokenFrom extracts the magic-link token from an emailed link and checks
// the link targets the registered page with the right token type.
func tokenFrom(t *testing.T, e *env, link string) string {
	t.Helper()
	return apptest.LinkToken(t, link, e.page, "multi_tenant_magic_links")
}

func (e *env) sendLink(org, email string, extra map[string]any) resp {
	body := map[string]any{"email_address": email, "organization_id": org}
	for k, v := range extra {
		body[k] = v
	}
	return e.sdk("/b2b/magic_links/email/login_or_signup", body, "")
}

func (e *env) redeem(token string, extra map[string]any) resp {
	body := map[string]any{"magic_links_token": token, "session_duration_minutes": 60}
	for k, v := range extra {
		body[k] = v
	}
	return e.sdk("/b2b/magic_links/authenticate", body, "")
}

func TestMagicLinkSignupLoginAndReplay(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		r := e.sendLink(org, "New.Person@Example.com", nil)
		// The public face says nothing about the member; the backend has it, pending.
		if r.Status != 200 || r.data()["member"] != nil || r.data()["member_created"] != nil {
			t.Fatalf("signup send: %s", r.Raw)
		}
		if m := e.backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=new.person@example.com", nil); m.Status != 200 ||
			m.Body["member"].(map[string]any)["status"] != "pending" {
			t.Fatalf("signup member: %s", m.Raw)
		}
		links, _ := e.lastMail("new.person@example.com")
		token := tokenFrom(t, e, links[0])

		r = e.redeem(token, nil)
		d := r.data()
		if r.Status != 200 || d["member_authenticated"] != true || d["session_token"] == "" || d["session_jwt"] == "" {
			t.Fatalf("authenticate: %s", r.Raw)
		}
		m := d["member"].(map[string]any)
		if m["status"] != "active" || m["email_address_verified"] != true {
			t.Fatalf("member after signup = %v", m)
		}
		f := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["type"] != "magic_link" || f["delivery_method"] != "email" {
			t.Fatalf("factor = %v", f)
		}
		want(t, e.redeem(token, nil), 401, "unable_to_auth_magic_link")

		// The now-active member gets a login link.
		if r := e.sendLink(org, "new.person@example.com", nil); r.Status != 200 {
			t.Fatalf("second send: %s", r.Raw)
		}
		links, _ = e.lastMail("new.person@example.com")
		if r := e.redeem(tokenFrom(t, e, links[0]), nil); r.Status != 200 {
			t.Fatalf("login link: %s", r.Raw)
		}
		want(t, e.redeem("not-a-token", nil), 401, "unable_to_auth_magic_link")
		want(t, e.redeem("", nil), 400, "invalid_request")
	})
}

func TestMagicLinkExpiryAndConcurrentRedeem(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		e.createMember(org, "ada@acme.test")
		e.sendLink(org, "ada@acme.test", map[string]any{"login_expiration_minutes": 5})
		links, _ := e.lastMail("ada@acme.test")
		e.clock.Advance(5 * time.Minute)
		want(t, e.redeem(tokenFrom(t, e, links[0]), nil), 401, "unable_to_auth_magic_link")

		e.sendLink(org, "ada@acme.test", nil)
		links, _ = e.lastMail("ada@acme.test")
		token := tokenFrom(t, e, links[0])
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.redeem(token, nil).Status
			}()
		}
		wg.Wait()
		ok := 0
		for _, s := range statuses {
			if s == 200 {
				ok++
			}
		}
		if ok != 1 {
			t.Fatalf("concurrent redemptions succeeded %d times (%v), want exactly 1", ok, statuses)
		}
	})
}

func TestMagicLinkPolicies(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		closed := e.createOrg("closed", "NOT_ALLOWED")
		restricted := e.createOrg("restricted", "RESTRICTED", "corp.test")
		want(t, e.sendLink(closed, "x@corp.test", nil), 403, "email_jit_provisioning_not_allowed")
		want(t, e.sendLink(restricted, "x@gmail.test", nil), 403, "invalid_email_for_jit_provisioning")
		if r := e.sendLink(restricted, "x@corp.test", nil); r.Status != 200 {
			t.Fatalf("allowed domain refused: %s", r.Raw)
		}
		want(t, e.sendLink(restricted, "not-an-email", nil), 400, "invalid_email")
		want(t, e.sendLink("organization-test-nope", "x@corp.test", nil), 404, "organization_not_found")

		// Redirect URLs must match a registered one exactly.
		want(t, e.sendLink(restricted, "y@corp.test", map[string]any{"signup_redirect_url": e.page + "/../evil"}), 400, "redirect_url_not_registered")
		want(t, e.sendLink(restricted, "y@corp.test", map[string]any{"signup_redirect_url": "http://evil.test/login"}), 400, "redirect_url_not_registered")
		if r := e.sendLink(restricted, "y@corp.test", map[string]any{"signup_redirect_url": e.page}); r.Status != 200 {
			t.Fatalf("registered URL refused: %s", r.Raw)
		}

		// Isolation: a token of one project does nothing in another.
		links, _ := e.lastMail("y@corp.test")
		token := tokenFrom(t, e, links[0])
		other := e.newProject("Other")
		r := e.do(http.MethodPost, "/sdk/v1/b2b/magic_links/authenticate", map[string]any{"magic_links_token": token},
			http.Header{"Origin": {e.origin}}, other.PublicToken, other.PublicToken)
		want(t, r, 401, "unable_to_auth_magic_link")
		if r := e.redeem(token, nil); r.Status != 200 {
			t.Fatalf("token burned by the other project's attempt: %s", r.Raw)
		}

		// Sends are rate-limited per recipient.
		var last resp
		for range magiclink.SendPerEmail.Limit + 1 {
			last = e.sendLink(restricted, "z@corp.test", nil)
		}
		want(t, last, 429, "too_many_requests")
	})
}

func TestMagicLinkPKCE(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		if _, err := e.app.DB.ExecContext(t.Context(), `UPDATE projects SET pkce_required_for_email_magic_links = $1 WHERE project_id = $2`,
			true, e.proj.Project.ID); err != nil {
			t.Fatal(err)
		}
		org := e.createOrg("acme", "ALL_ALLOWED")
		want(t, e.sendLink(org, "a@acme.test", nil), 400, "pkce_required")
		verifier := "0123456789abcdef0123456789abcdef0123456789abcdef"
		if r := e.sendLink(org, "a@acme.test", map[string]any{"pkce_code_challenge": flowtoken.S256(verifier)}); r.Status != 200 {
			t.Fatalf("send with challenge: %s", r.Raw)
		}
		links, _ := e.lastMail("a@acme.test")
		token := tokenFrom(t, e, links[0])
		want(t, e.redeem(token, nil), 400, "pkce_mismatch")
		want(t, e.redeem(token, map[string]any{"pkce_code_verifier": "wrong"}), 400, "pkce_mismatch")
		if r := e.redeem(token, map[string]any{"pkce_code_verifier": verifier}); r.Status != 200 {
			t.Fatalf("right verifier after wrong ones: %s", r.Raw)
		}
	})
}
