package app_test

import (
	"maps"
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/flowtoken"
)

func (e *env) pwDiscover(email, pw string) resp {
	e.t.Helper()
	return e.sdk("/b2b/passwords/discovery/authenticate", map[string]any{"email_address": email, "password": pw}, "")
}

func pwFactorTypes(d map[string]any) []string {
	var out []string
	for _, f := range d["member_session"].(map[string]any)["authentication_factors"].([]any) {
		out = append(out, f.(map[string]any)["type"].(string))
	}
	return out
}

func TestPasswordDiscovery(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		acme := e.createOrg("acme", "NOT_ALLOWED")
		beta := e.createOrg("beta", "NOT_ALLOWED")
		e.createMember(acme, "ada@corp.test")
		e.createMember(beta, "ada@corp.test")
		e.setPassword(acme, "ada@corp.test", strongPassword)

		want(t, e.pwDiscover("ada@corp.test", "Wrong-"+strongPassword), 401, "unauthorized_credentials")
		want(t, e.pwDiscover("nobody@corp.test", strongPassword), 401, "unauthorized_credentials")
		r := e.pwDiscover("Ada@Corp.test", strongPassword)
		d := r.data()
		got := memberships(d)
		if r.Status != 200 || d["email_address"] != "ada@corp.test" || d["intermediate_session_token"] == "" ||
			got["acme"] != "active_member" || got["beta"] != "active_member" {
			t.Fatalf("discovery authenticate: %s", r.Raw)
		}
		r = e.sdk("/b2b/discovery/intermediate_sessions/exchange", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"organization_id": beta, "session_duration_minutes": 60}, "")
		if r.Status != 200 || !slices.Equal(pwFactorTypes(r.data()), []string{"password"}) {
			t.Fatalf("exchange: %s", r.Raw)
		}

		// Reset start: the same answer for an address with a password and
		// for a stranger; both get a discovery-type link.
		var answers []map[string]any
		for _, email := range []string{"ada@corp.test", "zed@elsewhere.test"} {
			r := e.sdk("/b2b/passwords/discovery/reset/start", map[string]any{"email_address": email}, "")
			if r.Status != 200 {
				t.Fatalf("%s: %s", email, r.Raw)
			}
			a := maps.Clone(r.data())
			delete(a, "request_id")
			answers = append(answers, a)
		}
		if !maps.Equal(answers[0], answers[1]) {
			t.Fatalf("answers differ: %v", answers)
		}
		token := e.mailedLink("ada@corp.test", "discovery")
		stranger := e.mailedLink("zed@elsewhere.test", "discovery")

		reset := func(tok, pw string) resp {
			return e.sdk("/b2b/passwords/discovery/reset", map[string]any{"password_reset_token": tok, "password": pw}, "")
		}
		want(t, reset(token, weakPassword), 400, "weak_password")
		// An organization reset cannot spend a discovery token, nor the reverse.
		want(t, e.resetWith(token, "Lantern-Pebble-Orchid-40", nil), 401, "unable_to_auth_magic_link")
		e.resetStart(acme, "ada@corp.test", nil)
		want(t, reset(e.mailedLink("ada@corp.test", "multi_tenant_passwords"), "Lantern-Pebble-Orchid-40"), 401, "unable_to_auth_magic_link")

		r = reset(token, "Lantern-Pebble-Orchid-40")
		if r.Status != 200 || r.data()["intermediate_session_token"] == "" || len(memberships(r.data())) != 2 {
			t.Fatalf("discovery reset: %s", r.Raw)
		}
		want(t, reset(token, "Another-Fresh-Secret-77"), 401, "unable_to_auth_magic_link")
		want(t, e.pwLogin(acme, "ada@corp.test", strongPassword), 401, "unauthorized_credentials")
		if r := e.pwLogin(acme, "ada@corp.test", "Lantern-Pebble-Orchid-40"); r.Status != 200 {
			t.Fatalf("organization login with the new password: %s", r.Raw)
		}

		// The stranger sets a first password; no organizations yet.
		r = reset(stranger, "Gravel-Mitten-Sonnet-29")
		if r.Status != 200 || len(r.data()["discovered_organizations"].([]any)) != 0 {
			t.Fatalf("stranger's discovery reset: %s", r.Raw)
		}
		if r := e.pwDiscover("zed@elsewhere.test", "Gravel-Mitten-Sonnet-29"); r.Status != 200 {
			t.Fatalf("stranger's discovery login: %s", r.Raw)
		}

		// Backend face paths (with /email/), and PKCE with the discovery
		// field names.
		verifier := "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c"
		r = e.backend(http.MethodPost, "/v1/b2b/passwords/discovery/email/reset/start", map[string]any{"email_address": "ada@corp.test",
			"pkce_code_challenge": flowtoken.S256(verifier)})
		if r.Status != 200 {
			t.Fatalf("backend discovery reset start: %s", r.Raw)
		}
		token = e.mailedLink("ada@corp.test", "discovery")
		want(t, e.backend(http.MethodPost, "/v1/b2b/passwords/discovery/email/reset", map[string]any{"password_reset_token": token,
			"password": "Quartz-Fennel-Harbor-58"}), 400, "pkce_mismatch")
		r = e.backend(http.MethodPost, "/v1/b2b/passwords/discovery/email/reset", map[string]any{"password_reset_token": token,
			"password": "Quartz-Fennel-Harbor-58", "pkce_code_verifier": verifier})
		if r.Status != 200 || r.Body["intermediate_session_token"] == "" {
			t.Fatalf("backend discovery reset: %s", r.Raw)
		}
		if r := e.backend(http.MethodPost, "/v1/b2b/passwords/discovery/authenticate", map[string]any{"email_address": "ada@corp.test",
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
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "NOT_ALLOWED")
		e.createMember(org, "ada@acme.test")
		e.setPassword(org, "ada@acme.test", strongPassword)
		restrict := func(methods ...string) {
			r := e.backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"auth_methods": "RESTRICTED",
				"allowed_auth_methods": methods})
			if r.Status != 200 {
				t.Fatalf("restrict: %s", r.Raw)
			}
		}

		restrict("magic_link")
		r := e.pwLogin(org, "ada@acme.test", strongPassword)
		d := r.data()
		pr, _ := d["primary_required"].(map[string]any)
		if r.Status != 200 || d["member_session"] != nil || d["member_authenticated"] != false || d["intermediate_session_token"] == "" ||
			pr == nil || !slices.Equal(toStrings(pr["allowed_auth_methods"]), []string{"magic_link"}) {
			t.Fatalf("password where only magic links are allowed: %s", r.Raw)
		}

		restrict("password")
		e.sendLink(org, "ada@acme.test", nil)
		links, _ := e.lastMail("ada@acme.test")
		r = e.redeem(tokenFrom(t, e, links[0]), nil)
		ist, _ := r.data()["intermediate_session_token"].(string)
		if r.Status != 200 || r.data()["member_session"] != nil || ist == "" {
			t.Fatalf("magic link where only passwords are allowed: %s", r.Raw)
		}
		r = e.sdk("/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": "ada@acme.test",
			"password": strongPassword, "session_duration_minutes": 60, "intermediate_session_token": ist}, "")
		if r.Status != 200 || r.data()["member_session"] == nil ||
			!slices.Equal(pwFactorTypes(r.data()), []string{"magic_link", "password"}) {
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
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "NOT_ALLOWED")
		e.createMember(org, "ada@acme.test")
		e.setPassword(org, "ada@acme.test", strongPassword)
		if r := e.backend(http.MethodPut, "/v1/b2b/organizations/"+org, map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"}); r.Status != 200 {
			t.Fatalf("require MFA: %s", r.Raw)
		}
		r := e.pwLogin(org, "ada@acme.test", strongPassword)
		d := r.data()
		if r.Status != 200 || d["member_session"] != nil || d["member_authenticated"] != false || d["intermediate_session_token"] == "" ||
			d["mfa_required"] == nil || d["primary_required"] != nil {
			t.Fatalf("password login with MFA required: %s", r.Raw)
		}
	})
}
