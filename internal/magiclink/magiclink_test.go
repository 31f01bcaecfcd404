package magiclink_test

import (
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/magiclink"
)

func TestMagicLinkSignupLoginAndReplay(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		r := e.SendLink(org, "New.Person@Example.com", nil)
		// The public face says nothing about the member; the backend has it, pending.
		if r.Status != 200 || r.Data()["member"] != nil || r.Data()["member_created"] != nil {
			t.Fatalf("signup send: %s", r.Raw)
		}
		if m := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=new.person@example.com", nil); m.Status != 200 ||
			m.Body["member"].(map[string]any)["status"] != "pending" {
			t.Fatalf("signup member: %s", m.Raw)
		}
		links, _ := e.LastMail("new.person@example.com")
		token := apptest.MagicLinkToken(t, links[0])

		r = e.RedeemLink(token, nil)
		d := r.Data()
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
		apptest.Want(t, e.RedeemLink(token, nil), 401, "unable_to_auth_magic_link")

		// The now-active member gets a login link.
		if r := e.SendLink(org, "new.person@example.com", nil); r.Status != 200 {
			t.Fatalf("second send: %s", r.Raw)
		}
		links, _ = e.LastMail("new.person@example.com")
		if r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil); r.Status != 200 {
			t.Fatalf("login link: %s", r.Raw)
		}
		apptest.Want(t, e.RedeemLink("not-a-token", nil), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.RedeemLink("", nil), 400, "invalid_request")
	})
}

func TestMagicLinkExpiryAndConcurrentRedeem(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SendLink(org, "ada@acme.test", map[string]any{"login_expiration_minutes": 5})
		links, _ := e.LastMail("ada@acme.test")
		e.Clock.Advance(5 * time.Minute)
		apptest.Want(t, e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil), 401, "unable_to_auth_magic_link")

		e.SendLink(org, "ada@acme.test", nil)
		links, _ = e.LastMail("ada@acme.test")
		token := apptest.MagicLinkToken(t, links[0])
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = e.RedeemLink(token, nil).Status
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
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		closed := e.CreateOrg("closed", "NOT_ALLOWED", nil)
		restricted := e.CreateOrg("restricted", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"corp.test"}})
		apptest.Want(t, e.SendLink(closed, "x@corp.test", nil), 403, "email_jit_provisioning_not_allowed")
		apptest.Want(t, e.SendLink(restricted, "x@gmail.test", nil), 403, "invalid_email_for_jit_provisioning")
		if r := e.SendLink(restricted, "x@corp.test", nil); r.Status != 200 {
			t.Fatalf("allowed domain refused: %s", r.Raw)
		}
		apptest.Want(t, e.SendLink(restricted, "not-an-email", nil), 400, "invalid_email")
		apptest.Want(t, e.SendLink("organization-test-nope", "x@corp.test", nil), 404, "organization_not_found")

		// Redirect URLs must match a registered one exactly.
		apptest.Want(t, e.SendLink(restricted, "y@corp.test", map[string]any{"signup_redirect_url": apptest.Page + "/../evil"}), 400, "no_match_for_provided_magic_link_url")
		apptest.Want(t, e.SendLink(restricted, "y@corp.test", map[string]any{"signup_redirect_url": "http://evil.test/login"}), 400, "no_match_for_provided_magic_link_url")
		if r := e.SendLink(restricted, "y@corp.test", map[string]any{"signup_redirect_url": apptest.Page}); r.Status != 200 {
			t.Fatalf("registered URL refused: %s", r.Raw)
		}

		// Isolation: a token of one project does nothing in another.
		links, _ := e.LastMail("y@corp.test")
		token := apptest.MagicLinkToken(t, links[0])
		other := e.NewProject("Other")
		r := e.Do(http.MethodPost, "/sdk/v1/b2b/magic_links/authenticate", map[string]any{"magic_links_token": token},
			http.Header{"Origin": {apptest.Origin}}, other.PublicToken, other.PublicToken)
		apptest.Want(t, r, 401, "unable_to_auth_magic_link")
		if r := e.RedeemLink(token, nil); r.Status != 200 {
			t.Fatalf("token burned by the other project's attempt: %s", r.Raw)
		}

		// Sends are rate-limited per recipient.
		var last apptest.Resp
		for range magiclink.SendPerEmail.Limit + 1 {
			last = e.SendLink(restricted, "z@corp.test", nil)
		}
		apptest.Want(t, last, 429, "too_many_requests")
	})
}

func TestMagicLinkPKCE(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE projects SET pkce_required_for_email_magic_links = $1 WHERE project_id = $2`,
			true, e.Project.Project.ID); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		apptest.Want(t, e.SendLink(org, "a@acme.test", nil), 400, "invalid_pkce_code_challenge")
		// A garbled challenge would make a link no verifier redeems: refused
		// at the start, as OAuth and SSO starts refuse it.
		apptest.Want(t, e.SendLink(org, "a@acme.test", map[string]any{"pkce_code_challenge": "plain-verifier-sent-as-challenge"}),
			400, "invalid_pkce_code_challenge")
		verifier := "0123456789abcdef0123456789abcdef0123456789abcdef"
		if r := e.SendLink(org, "a@acme.test", map[string]any{"pkce_code_challenge": flowtoken.S256(verifier)}); r.Status != 200 {
			t.Fatalf("send with challenge: %s", r.Raw)
		}
		links, _ := e.LastMail("a@acme.test")
		token := apptest.MagicLinkToken(t, links[0])
		apptest.Want(t, e.RedeemLink(token, nil), 400, "pkce_expected_code_verifier")
		apptest.Want(t, e.RedeemLink(token, map[string]any{"pkce_code_verifier": "wrong"}), 400, "pkce_mismatch")
		if r := e.RedeemLink(token, map[string]any{"pkce_code_verifier": verifier}); r.Status != 200 {
			t.Fatalf("right verifier after wrong ones: %s", r.Raw)
		}
	})
}

// pkce_required_for_email_magic_links is the browser SDK's setting: a
// customer's server that sends a link has no browser verifier, so its
// send is not refused for lacking a challenge, and its link redeems
// without a verifier. The SDK face still refuses the same send.
func TestMagicLinkPKCERequiredOnTheSDKFaceOnly(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE projects SET pkce_required_for_email_magic_links = $1 WHERE project_id = $2`,
			true, e.Project.Project.ID); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		body := map[string]any{"organization_id": org, "email_address": "a@acme.test"}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/login_or_signup", body, ""), 400, "invalid_pkce_code_challenge")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup", body), 200, "")
		links, _ := e.LastMail("a@acme.test")
		r := e.Backend(http.MethodPost, "/v1/b2b/magic_links/authenticate",
			map[string]any{"magic_links_token": apptest.MagicLinkToken(t, links[0])})
		if r.Status != 200 || r.Body["member_authenticated"] != true {
			t.Fatalf("the backend's link: %s", r.Raw)
		}
		// A challenge the backend does send is still checked.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup",
			map[string]any{"organization_id": org, "email_address": "a@acme.test", "pkce_code_challenge": "not-a-challenge"}),
			400, "invalid_pkce_code_challenge")
	})
}
