package discovery_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/discovery"
)

func TestDiscoveryListsAndExchanges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		active := e.CreateOrg("active-co", "NOT_ALLOWED", nil)
		e.CreateMember(active, "ada@corp.test")
		pending := e.CreateOrg("pending-co", "NOT_ALLOWED", nil)
		e.Backend(http.MethodPost, "/v1/b2b/organizations/"+pending+"/members", map[string]any{"email_address": "ada@corp.test",
			"create_member_as_pending": true})
		domain := e.CreateOrg("domain-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"corp.test"}})
		e.CreateVerifiedMember(domain, "zoe@corp.test") // vouches for corp.test (vouch_test.go)
		e.CreateOrg("other-co", "ALL_ALLOWED", nil)     // open to all, but never listed to strangers

		d := e.Discover("Ada@Corp.test")
		got := apptest.Memberships(d)
		want := map[string]string{"active-co": "active_member", "pending-co": "pending_member", "domain-co": "eligible_to_join_by_email_domain"}
		if len(got) != len(want) {
			t.Fatalf("memberships = %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("memberships = %v, want %v", got, want)
			}
		}
		if d["email_address"] != "ada@corp.test" || d["intermediate_session_token"] == "" {
			t.Fatalf("discovery response: %v", d)
		}
		ist := d["intermediate_session_token"].(string)

		// Listing again with the IST does not consume it.
		if r := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{"intermediate_session_token": ist}, ""); len(apptest.Memberships(r.Data())) != 3 {
			t.Fatalf("list with IST: %s", r.Raw)
		}
		// Joining by domain creates an active member and logs in.
		domainCo := ""
		for _, x := range d["discovered_organizations"].([]any) {
			o := x.(map[string]any)["organization"].(map[string]any)
			if o["organization_slug"] == "domain-co" {
				domainCo = o["organization_id"].(string)
			}
		}
		r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
			"organization_id": domainCo, "session_duration_minutes": 60}, "")
		if r.Status != 200 || r.Data()["member_session"] == nil || r.Data()["member"].(map[string]any)["status"] != "active" {
			t.Fatalf("exchange into domain org: %s", r.Raw)
		}
		token := r.Data()["session_token"].(string)
		// Single use.
		want409 := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": ist,
			"organization_id": active}, "")
		if want409.ErrType() != "intermediate_session_not_found" {
			t.Fatalf("second exchange: %s", want409.Raw)
		}

		// With a session, the member switches organization; the old session ends.
		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": active, "session_duration_minutes": 60}, token)
		if r.Status != 200 || r.Data()["organization"].(map[string]any)["organization_id"] != active {
			t.Fatalf("session exchange: %s", r.Raw)
		}
		if old := e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token); old.ErrType() != "session_not_found" {
			t.Fatalf("old session still valid after exchange: %s", old.Raw)
		}
		// The session can list its discovered organizations too.
		if r := e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{}, r.Data()["session_token"].(string)); r.Status != 200 {
			t.Fatalf("list with session: %s", r.Raw)
		}
	})
}

func TestDiscoveryLinkCreateAndPolicies(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// Magic-link discovery: the link carries stytch_token_type=discovery.
		if r := e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "new@startup.test"}, ""); r.Status != 200 {
			t.Fatalf("send: %s", r.Raw)
		}
		links, _ := e.LastMail("new@startup.test")
		token := apptest.LinkToken(t, links[0], apptest.Page, "discovery")
		r := e.SDK(http.MethodPost, "/b2b/magic_links/discovery/authenticate", map[string]any{"discovery_magic_links_token": token}, "")
		if r.Status != 200 || len(r.Data()["discovered_organizations"].([]any)) != 0 {
			t.Fatalf("authenticate: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/discovery/authenticate", map[string]any{"discovery_magic_links_token": token}, ""),
			401, "unable_to_auth_magic_link")
		ist := r.Data()["intermediate_session_token"].(string)

		// Creating an organization makes the person its first member.
		r = e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist, "session_duration_minutes": 60}, "")
		if r.Status != 200 || r.Data()["member_session"] == nil {
			t.Fatalf("create: %s", r.Raw)
		}
		org := r.Data()["organization"].(map[string]any)
		if org["organization_name"] != "Startup" || org["organization_slug"] != "startup" {
			t.Fatalf("created org = %v", org)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": ist}, ""), 404, "intermediate_session_not_found")

		// A second creation from the same domain gets a fresh slug.
		d := e.Discover("other@startup.test")
		r = e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"]}, "")
		if r.Status != 200 || r.Data()["organization"].(map[string]any)["organization_slug"] == "startup" {
			t.Fatalf("second create: %s", r.Raw)
		}

		// Claimed domains (set by the backend): people of the domain may
		// not create or join other organizations.
		e.CreateOrg("claimer", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"claimed.test"},
			"claimed_email_domains": []string{"claimed.test"}})
		open := e.CreateOrg("open-co", "ALL_ALLOWED", nil)
		d = e.Discover("x@claimed.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"]}, ""),
			403, "action_not_allowed_email_domain_is_claimed")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": open}, ""), 403, "action_not_allowed_email_domain_is_claimed")

		// JIT refusals apply to exchange too, and do not burn the IST.
		closed := e.CreateOrg("closed-co", "NOT_ALLOWED", nil)
		d = e.Discover("y@free.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": closed}, ""), 403, "email_jit_provisioning_not_allowed")
		if r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": open}, ""); r.Status != 200 {
			t.Fatalf("IST burned by a refused exchange: %s", r.Raw)
		}

		// The project flag gates creation.
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE projects SET create_organization_enabled = $1 WHERE project_id = $2`,
			false, e.Project.Project.ID); err != nil {
			t.Fatal(err)
		}
		d = e.Discover("z@later.test")
		apptest.Want(t, e.Do(http.MethodPost, "/v1/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"]},
			nil, e.Project.Project.ID, e.Project.Secret), 403, "create_organization_disabled")
	})
}

func TestDiscoveryISTExpiryPrimaryRequiredAndIsolation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		strict := e.CreateOrg("strict", "ALL_ALLOWED", nil)
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+strict, map[string]any{"auth_methods": "RESTRICTED", "allowed_auth_methods": []string{"magic_link"}})
		e.CreateMember(strict, "ada@strict.test")

		d := e.Discover("ada@strict.test")
		entry := d["discovered_organizations"].([]any)[0].(map[string]any)
		if pr := entry["primary_required"].(map[string]any); pr["allowed_auth_methods"].([]any)[0] != "magic_link" {
			t.Fatalf("discovered entry lacks primary_required: %v", entry)
		}
		// Exchanging with an email-code IST into a magic-link-only
		// organization asks for the allowed method, which then completes.
		r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": strict}, "")
		if r.Status != 200 || r.Data()["member_session"] != nil || r.Data()["primary_required"] == nil {
			t.Fatalf("exchange into restricted org: %s", r.Raw)
		}
		ist := r.Data()["intermediate_session_token"].(string)
		e.SendLink(strict, "ada@strict.test", nil)
		links, _ := e.LastMail("ada@strict.test")
		r = e.RedeemLink(apptest.MagicLinkToken(t, links[0]), map[string]any{"intermediate_session_token": ist})
		if r.Status != 200 || len(r.Data()["member_session"].(map[string]any)["authentication_factors"].([]any)) != 2 {
			t.Fatalf("allowed method after discovery: %s", r.Raw)
		}

		// ISTs expire after 10 minutes.
		d = e.Discover("late@strict.test")
		e.Clock.Advance(10 * time.Minute)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/discovery/organizations", map[string]any{"intermediate_session_token": d["intermediate_session_token"]}, ""),
			404, "intermediate_session_not_found")

		// An IST of one project is nothing in another.
		d = e.Discover("iso@strict.test")
		other := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/sdk/v1/b2b/discovery/organizations", map[string]any{"intermediate_session_token": d["intermediate_session_token"]},
			http.Header{"Origin": {apptest.Origin}}, other.PublicToken, other.PublicToken)
		apptest.Want(t, r, 404, "intermediate_session_not_found")

		// Wrong discovery codes are counted and locked like org codes.
		e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": "lock@strict.test"}, "")
		_, codes := e.LastMail("lock@strict.test")
		for range 5 {
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": "lock@strict.test", "code": apptest.WrongCode(codes[0])}, ""),
				404, "otp_code_not_found")
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": "lock@strict.test", "code": codes[0]}, ""),
			404, "otp_code_not_found")
	})
}

// Discovered organizations say in advance when logging in will ask for a
// second factor, without starting anything (no SMS, no IST consumed).
func TestDiscoveryPreviewsMFA(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		strict := e.CreateOrg("mfa-co", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"mfa.test"}})
		e.CreateVerifiedMember(strict, "zoe@mfa.test")
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+strict, map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"}); r.Status != 200 {
			t.Fatalf("require MFA: %s", r.Raw)
		}
		relaxed := e.CreateOrg("plain-co", "NOT_ALLOWED", nil)
		e.CreateMember(relaxed, "ada@mfa.test")

		d := e.Discover("ada@mfa.test")
		got := map[string]any{}
		for _, x := range d["discovered_organizations"].([]any) {
			o := x.(map[string]any)
			got[o["organization"].(map[string]any)["organization_slug"].(string)] = o["mfa_required"]
		}
		if len(got) != 2 {
			t.Fatalf("discovered = %v", got)
		}
		if req, _ := got["mfa-co"].(map[string]any); req == nil || req["member_options"] != nil || req["secondary_auth_initiated"] != nil {
			t.Fatalf("eligible entry of a REQUIRED_FOR_ALL organization: mfa_required = %v", got["mfa-co"])
		}
		if got["plain-co"] != nil {
			t.Fatalf("optional organization, not enrolled: mfa_required = %v", got["plain-co"])
		}
		// The list was only a description: the IST still works.
		r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": strict}, "")
		if r.Status != 200 || r.Data()["mfa_required"] == nil || r.Data()["member_session"] != nil {
			t.Fatalf("exchange into the MFA organization: %s", r.Raw)
		}
	})
}

// Discovery code checks are limited per address beyond each code's own
// attempts: after discovery.CheckPerEmail.Limit checks at one address in a
// window, even the right code of a fresh send is refused until the window
// ends.
func TestDiscoveryCodeChecksLimitedPerAddress(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		check := func(code string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/otps/email/discovery/authenticate", map[string]any{"email_address": "guess@corp.test", "code": code}, "")
		}
		send := func() string {
			if r := e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": "guess@corp.test"}, ""); r.Status != 200 {
				t.Fatalf("send: %s", r.Raw)
			}
			_, codes := e.LastMail("guess@corp.test")
			return codes[0]
		}
		code := send()
		for range discovery.CheckPerEmail.Limit {
			apptest.Want(t, check(apptest.WrongCode(code)), 404, "otp_code_not_found")
		}
		apptest.Want(t, check(send()), 429, "too_many_requests")

		e.Clock.Advance(discovery.CheckPerEmail.Window)
		if r := check(send()); r.Status != 200 || r.Data()["intermediate_session_token"] == "" {
			t.Fatalf("right code in a new window: %s", r.Raw)
		}
	})
}

// A deleted member cannot get into their organization through discovery:
// exchanging a discovery IST for that organization is refused
// inactive_member, and no session is created.
func TestDiscoveryExchangeRefusesDeletedMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		e.DeleteMember(org, mid)
		d := e.Discover("ada@acme.test")
		r := e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"organization_id": org,
			"intermediate_session_token": d["intermediate_session_token"], "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 403, "inactive_member")
		if n := e.Count(`SELECT COUNT(*) FROM member_sessions WHERE member_id = $1`, mid); n != 0 {
			t.Fatalf("%d sessions for the deleted member", n)
		}
	})
}

// sessions/exchange answers a session whose factors do not carry over
// (here a password login) with an IST that carries none. Redeeming that
// IST through the discovery exchange asks for a primary factor again; it
// proves nothing, so it logs no one in.
func TestAFactorlessISTStillRequiresAPrimaryFactor(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := e.CreateOrg("alpha", "NOT_ALLOWED", nil)
		b := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		e.CreateMember(a, "ada@acme.test")
		e.CreateMember(b, "ada@acme.test")
		e.SetPassword(a, "ada@acme.test", apptest.StrongPassword)
		r := e.PasswordLogin(a, "ada@acme.test", apptest.StrongPassword)
		apptest.Want(t, r, 200, "")
		r = e.SDK(http.MethodPost, "/b2b/sessions/exchange", map[string]any{"organization_id": b, "session_duration_minutes": 60},
			r.Data()["session_token"].(string))
		apptest.Want(t, r, 200, "")
		ist, _ := r.Data()["intermediate_session_token"].(string)
		if ist == "" || r.Data()["primary_required"] == nil {
			t.Fatalf("session exchange: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{
			"intermediate_session_token": ist, "organization_id": b, "session_duration_minutes": 60}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["member_session"] != nil || r.Data()["primary_required"] == nil || r.Data()["intermediate_session_token"] == "" {
			t.Fatalf("discovery exchange of a factorless IST: %s", r.Raw)
		}
	})
}

// A discovery create is an organization create: email_invites defaults to
// ALL_ALLOWED only when the request names no authentication setting (the
// widget's create sends none), on both faces.
func TestDiscoveryCreateEmailInvitesDefault(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		create := func(backend bool, email string, fields map[string]any) map[string]any {
			t.Helper()
			body := map[string]any{"intermediate_session_token": e.Discover(email)["intermediate_session_token"], "session_duration_minutes": 60}
			for k, v := range fields {
				body[k] = v
			}
			var r apptest.Resp
			if backend {
				r = e.Backend(http.MethodPost, "/v1/b2b/discovery/organizations/create", body)
			} else {
				r = e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", body, "")
			}
			if r.Status != 200 {
				t.Fatalf("create %v: %s", fields, r.Raw)
			}
			if backend {
				return r.Body["organization"].(map[string]any)
			}
			return r.Data()["organization"].(map[string]any)
		}
		for _, backend := range []bool{false, true} {
			face := map[bool]string{false: "sdk", true: "backend"}[backend]
			if o := create(backend, "plain-"+face+"@plain-"+face+".test", nil); o["email_invites"] != "ALL_ALLOWED" {
				t.Errorf("%s, no settings: email_invites = %v", face, o["email_invites"])
			}
			if o := create(backend, "mfa-"+face+"@mfa-"+face+".test", map[string]any{"mfa_policy": "OPTIONAL"}); o["email_invites"] != "NOT_ALLOWED" {
				t.Errorf("%s, mfa_policy: email_invites = %v", face, o["email_invites"])
			}
			o := create(backend, "inv-"+face+"@inv-"+face+".test", map[string]any{"email_jit_provisioning": "NOT_ALLOWED", "email_invites": "ALL_ALLOWED"})
			if o["email_invites"] != "ALL_ALLOWED" {
				t.Errorf("%s, explicit invites: email_invites = %v", face, o["email_invites"])
			}
		}
	})
}
