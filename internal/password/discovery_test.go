package password_test

import (
	"maps"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/flowtoken"
)

func pwDiscover(e *apptest.Env, email, pw string) apptest.Resp {
	e.T.Helper()
	return e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate", map[string]any{"email_address": email, "password": pw}, "")
}

func pwFactorTypes(d map[string]any) []string {
	var out []string
	for _, f := range d["member_session"].(map[string]any)["authentication_factors"].([]any) {
		out = append(out, f.(map[string]any)["type"].(string))
	}
	return out
}

func TestPasswordDiscovery(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		beta := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		e.CreateMember(acme, "ada@corp.test")
		e.CreateMember(beta, "ada@corp.test")
		e.SetPassword(acme, "ada@corp.test", apptest.StrongPassword)

		apptest.Want(t, pwDiscover(e, "ada@corp.test", "Wrong-"+apptest.StrongPassword), 401, "unauthorized_credentials")
		apptest.Want(t, pwDiscover(e, "nobody@corp.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		r := pwDiscover(e, "Ada@Corp.test", apptest.StrongPassword)
		d := r.Data()
		got := apptest.Memberships(d)
		if r.Status != 200 || d["email_address"] != "ada@corp.test" || d["intermediate_session_token"] == "" ||
			got["acme"] != "active_member" || got["beta"] != "active_member" {
			t.Fatalf("discovery authenticate: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": beta, "session_duration_minutes": 60}, "")
		if r.Status != 200 || !slices.Equal(pwFactorTypes(r.Data()), []string{"password"}) {
			t.Fatalf("exchange: %s", r.Raw)
		}

		// Reset start: the same answer for an address with a password and
		// for a stranger; both get a discovery-type link.
		var answers []map[string]any
		for _, email := range []string{"ada@corp.test", "zed@elsewhere.test"} {
			r := e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": email}, "")
			if r.Status != 200 {
				t.Fatalf("%s: %s", email, r.Raw)
			}
			a := maps.Clone(r.Data())
			delete(a, "request_id")
			answers = append(answers, a)
		}
		if !maps.Equal(answers[0], answers[1]) {
			t.Fatalf("answers differ: %v", answers)
		}
		token := e.ResetLink("ada@corp.test", "discovery")
		stranger := e.ResetLink("zed@elsewhere.test", "discovery")

		reset := func(tok, pw string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/passwords/discovery/reset", map[string]any{"password_reset_token": tok, "password": pw}, "")
		}
		apptest.Want(t, reset(token, apptest.WeakPassword), 400, "weak_password")
		// An organization reset cannot spend a discovery token, nor the reverse.
		apptest.Want(t, e.ResetWith(token, "Lantern-Pebble-Orchid-40", nil), 401, "unable_to_auth_magic_link")
		e.ResetStart(acme, "ada@corp.test", nil)
		apptest.Want(t, reset(e.ResetLink("ada@corp.test", "multi_tenant_passwords"), "Lantern-Pebble-Orchid-40"), 401, "unable_to_auth_magic_link")

		r = reset(token, "Lantern-Pebble-Orchid-40")
		if r.Status != 200 || r.Data()["intermediate_session_token"] == "" || len(apptest.Memberships(r.Data())) != 2 {
			t.Fatalf("discovery reset: %s", r.Raw)
		}
		apptest.Want(t, reset(token, "Another-Fresh-Secret-77"), 401, "unable_to_auth_magic_link")
		apptest.Want(t, e.PasswordLogin(acme, "ada@corp.test", apptest.StrongPassword), 401, "unauthorized_credentials")
		if r := e.PasswordLogin(acme, "ada@corp.test", "Lantern-Pebble-Orchid-40"); r.Status != 200 {
			t.Fatalf("organization login with the new password: %s", r.Raw)
		}

		// The stranger sets a first password; no organizations yet.
		r = reset(stranger, "Gravel-Mitten-Sonnet-29")
		if r.Status != 200 || len(r.Data()["discovered_organizations"].([]any)) != 0 {
			t.Fatalf("stranger's discovery reset: %s", r.Raw)
		}
		if r := pwDiscover(e, "zed@elsewhere.test", "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("stranger's discovery login: %s", r.Raw)
		}

		// Backend face paths (with /email/), and PKCE with the discovery
		// field names.
		verifier := "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/discovery/email/reset/start", map[string]any{"email_address": "ada@corp.test",
			"pkce_code_challenge": flowtoken.S256(verifier)})
		if r.Status != 200 {
			t.Fatalf("backend discovery reset start: %s", r.Raw)
		}
		token = e.ResetLink("ada@corp.test", "discovery")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/passwords/discovery/email/reset", map[string]any{"password_reset_token": token,
			"password": "Quartz-Fennel-Harbor-58"}), 400, "pkce_expected_code_verifier")
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/discovery/email/reset", map[string]any{"password_reset_token": token,
			"password": "Quartz-Fennel-Harbor-58", "pkce_code_verifier": verifier})
		if r.Status != 200 || r.Body["intermediate_session_token"] == "" {
			t.Fatalf("backend discovery reset: %s", r.Raw)
		}
		if r := e.Backend(http.MethodPost, "/v1/b2b/passwords/discovery/authenticate", map[string]any{"email_address": "ada@corp.test",
			"password": "Quartz-Fennel-Harbor-58"}); r.Status != 200 {
			t.Fatalf("backend discovery authenticate: %s", r.Raw)
		}
	})
}

// TestPasswordPrimaryRequired checks the organization auth policy both
// ways: a password where only magic links are allowed yields
// primary_required, and a password completes a login that a magic link
// alone could not.
func TestPasswordPrimaryRequired(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		restrict := func(methods ...string) {
			r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"auth_methods": "RESTRICTED",
				"allowed_auth_methods": methods})
			if r.Status != 200 {
				t.Fatalf("restrict: %s", r.Raw)
			}
		}

		restrict("magic_link")
		r := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword)
		d := r.Data()
		pr, _ := d["primary_required"].(map[string]any)
		if r.Status != 200 || d["member_session"] != nil || d["member_authenticated"] != false || d["intermediate_session_token"] == "" ||
			pr == nil || !slices.Equal(toStrings(pr["allowed_auth_methods"]), []string{"magic_link"}) {
			t.Fatalf("password where only magic links are allowed: %s", r.Raw)
		}

		restrict("password")
		e.SendLink(org, "ada@acme.test", nil)
		links, _ := e.LastMail("ada@acme.test")
		r = e.RedeemLink(apptest.MagicLinkToken(t, links[0]), nil)
		ist, _ := r.Data()["intermediate_session_token"].(string)
		if r.Status != 200 || r.Data()["member_session"] != nil || ist == "" {
			t.Fatalf("magic link where only passwords are allowed: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": "ada@acme.test",
			"password": apptest.StrongPassword, "session_duration_minutes": 60, "intermediate_session_token": ist}, "")
		if r.Status != 200 || r.Data()["member_session"] == nil ||
			!slices.Equal(pwFactorTypes(r.Data()), []string{"magic_link", "password"}) {
			t.Fatalf("password completing the login: %s", r.Raw)
		}
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

// TestPasswordMFARequired: a password is a primary factor like any other,
// so an organization requiring MFA answers an IST and mfa_required.
func TestPasswordMFARequired(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		if r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"}); r.Status != 200 {
			t.Fatalf("require MFA: %s", r.Raw)
		}
		r := e.PasswordLogin(org, "ada@acme.test", apptest.StrongPassword)
		d := r.Data()
		if r.Status != 200 || d["member_session"] != nil || d["member_authenticated"] != false || d["intermediate_session_token"] == "" ||
			d["mfa_required"] == nil || d["primary_required"] != nil {
			t.Fatalf("password login with MFA required: %s", r.Raw)
		}
	})
}
