package sso_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/oauth2-proxy/mockoidc"

	"github.com/latchkey/latchkey/internal/apptest"
)

// startAt begins a login at connID and returns the identity provider URL.
func startAt(t *testing.T, e *apptest.Env, connID string) string {
	t.Helper()
	r := e.Get("/v1/public/sso/start?" + url.Values{"public_token": {e.Project.PublicToken}, "connection_id": {connID}}.Encode())
	if r.Status != http.StatusFound {
		t.Fatalf("start at %s: %d %s", connID, r.Status, r.Raw)
	}
	return r.Header.Get("Location")
}

func startPage(e *apptest.Env, connID string) apptest.Resp {
	return e.Get("/v1/public/sso/start?" + url.Values{"public_token": {e.Project.PublicToken}, "connection_id": {connID}}.Encode())
}

// TestExternalSAMLLogin: a login through an external connection runs the
// source's SAML flow (its AuthnRequest, its ACS) and lands in the
// external connection's organization, under that organization's JIT
// rule, registered at the external connection, with the external
// connection's roles and not the source's.
func TestExternalSAMLLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, docsPolicy); err != nil {
			t.Fatal(err)
		}
		s := newSAMLEnv(t, e, nil)
		// The source grants its own members stytch_admin: none of it may
		// reach the external connection's members.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"attribute_mapping":                         map[string]any{"email": "mail", "groups": "eduPersonAffiliation"},
			"saml_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin"}}}), 200, "")
		target := e.CreateOrg("globex", "NOT_ALLOWED", map[string]any{"sso_jit_provisioning": "NOT_ALLOWED", "email_invites": "ALL_ALLOWED"})
		ext := createExternal(t, e, target, s.orgID, s.connID, map[string]any{
			"connection_implicit_role_assignments": []any{map[string]any{"role_id": "viewer"}},
			"group_implicit_role_assignments":      []any{map[string]any{"role_id": "editor", "group": "writers"}}})
		extID := ext["connection_id"].(string)

		// The target's JIT rule applies: NOT_ALLOWED refuses a newcomer.
		s.idp.login("ada@acme.test", "okta-ada", "Ada", "Lovelace")
		acs, form := s.idp.follow(startAt(t, e, extID))
		if !strings.HasSuffix(acs, "/v1/b2b/sso/callback/"+s.connID) {
			t.Fatalf("ACS %q: the source's callback expected", acs)
		}
		wantPage(t, s.post(acs, form), 403, "invalid_connection_for_jit_provisioning")
		// RESTRICTED to the external connection admits them.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+target, map[string]any{"sso_jit_provisioning": "RESTRICTED",
			"sso_jit_provisioning_allowed_connections": []string{extID}}), 200, "")

		r := s.loginThrough(extID, "ada@acme.test", "okta-ada", "writers")
		m := r.Body["member"].(map[string]any)
		if r.Body["organization_id"] != target || m["organization_id"] != target || m["email_address"] != "ada@acme.test" {
			t.Fatalf("landed: %s", r.Raw)
		}
		regs := m["sso_registrations"].([]any)
		if len(regs) != 1 || regs[0].(map[string]any)["connection_id"] != extID || regs[0].(map[string]any)["external_id"] != "okta-ada" {
			t.Fatalf("registrations: %v", regs)
		}
		got := roleSources(m)
		if len(got["viewer"]) != 1 || got["viewer"][0]["connection_id"] != extID || len(got["editor"]) != 1 ||
			got["editor"][0]["type"] != "sso_connection_group" || got["editor"][0]["connection_id"] != extID ||
			got["stytch_admin"] != nil || m["is_admin"] != false {
			t.Fatalf("roles: %v", got)
		}
		ms := r.Body["member_session"].(map[string]any)
		factor := ms["authentication_factors"].([]any)[0].(map[string]any)
		if f, _ := factor["saml_sso_factor"].(map[string]any); factor["delivery_method"] != "sso_saml" || f == nil || f["provider_id"] != extID {
			t.Fatalf("factor: %v", factor)
		}
		apptest.Want(t, checkAccess(e, r.Body["session_token"].(string), target, "write"), 200, "")
		// Nobody was provisioned in the source organization.
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, s.orgID); n != 0 {
			t.Fatalf("%d members in the source organization", n)
		}
		// The same identity through the source itself is the source's
		// business: another member, in the source organization.
		r = s.loginWithGroups("ada@acme.test", "okta-ada")
		if r.Body["organization_id"] != s.orgID || r.Body["member"].(map[string]any)["is_admin"] != true {
			t.Fatalf("direct login: %s", r.Raw)
		}
	})
}

// loginThrough walks a SAML login started at connID (an external
// connection of s's source) and authenticates it on the backend.
func (s *samlEnv) loginThrough(connID, email, nameID string, groups ...string) apptest.Resp {
	s.T.Helper()
	s.idp.login(email, nameID, "", "")
	s.idp.mu.Lock()
	s.idp.user.Groups = groups
	s.idp.mu.Unlock()
	token := tokenFrom(s.T, s.post(s.idp.follow(startAt(s.T, s.Env, connID))))
	r := s.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token, "session_duration_minutes": 60})
	apptest.Want(s.T, r, 200, "")
	return r
}

// TestExternalLoginBinding: where a login lands is decided at the start
// and kept by this server; the identity provider's answer cannot move it
// to another organization, and a login whose external connection is
// gone by the callback lands nowhere.
func TestExternalLoginBinding(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		globex := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		hooli := e.CreateOrg("hooli", "NOT_ALLOWED", nil)
		viaGlobex := createExternal(t, e, globex, s.orgID, s.connID, nil)["connection_id"].(string)
		viaHooli := createExternal(t, e, hooli, s.orgID, s.connID, nil)["connection_id"].(string)

		// Two logins in flight, one through each external connection: each
		// lands where it started, whatever order they finish in.
		s.idp.login("ada@acme.test", "okta-ada", "", "")
		acsG, formG := s.idp.follow(startAt(t, e, viaGlobex))
		acsH, formH := s.idp.follow(startAt(t, e, viaHooli))
		// Hooli's relay state under Globex's response: the response answers
		// another request, so nothing lands.
		swapped := url.Values{"SAMLResponse": formG["SAMLResponse"], "RelayState": formH["RelayState"]}
		wantPage(t, s.post(acsG, swapped), 400, "unsolicited_saml_response")
		acsG, formG = s.idp.follow(startAt(t, e, viaGlobex))
		acsH, formH = s.idp.follow(startAt(t, e, viaHooli))
		for _, c := range []struct {
			acs  string
			form url.Values
			org  string
		}{{acsH, formH, hooli}, {acsG, formG, globex}} {
			token := tokenFrom(t, s.post(c.acs, c.form))
			r := e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token})
			apptest.Want(t, r, 200, "")
			if r.Body["organization_id"] != c.org {
				t.Fatalf("landed in %v, want %s", r.Body["organization_id"], c.org)
			}
		}

		// A relay state is spent at the callback of the connection it was
		// issued for only: an external connection's own id is no callback.
		acs, form := s.idp.follow(startAt(t, e, viaGlobex))
		wantPage(t, s.post(strings.Replace(acs, s.connID, viaGlobex, 1), form), 405, "method_not_allowed")

		// The external connection deleted while its login is at the
		// identity provider: the login lands nowhere.
		acs, form = s.idp.follow(startAt(t, e, viaGlobex))
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/sso/"+globex+"/connections/"+viaGlobex, nil), 200, "")
		wantPage(t, s.post(acs, form), 404, "sso_connection_not_found")
	})
}

// TestExternalSourceLifecycle: an external connection is as active as its
// source (listed pending, not offered and not startable while the source
// is inactive, back when it is), and goes with its source or its source's
// organization, leaving no login path and no stale summary.
func TestExternalSourceLifecycle(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newSAMLEnv(t, e, nil)
		target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		extID := createExternal(t, e, target, s.orgID, s.connID, nil)["connection_id"].(string)
		srcPath := "/v1/b2b/sso/saml/" + s.orgID + "/connections/" + s.connID

		// Deactivated: the source's SSO URL is cleared (an active
		// connection keeps its last certificate). A login already at the
		// identity provider fails at the callback too.
		s.idp.login("ada@acme.test", "okta-ada", "", "")
		acs, form := s.idp.follow(startAt(t, e, extID))
		r := e.Backend(http.MethodPut, srcPath, map[string]any{"idp_sso_url": ""})
		apptest.Want(t, r, 200, "")
		if st := r.Body["connection"].(map[string]any)["status"]; st != "pending" {
			t.Fatalf("source without an SSO URL: %s", r.Raw)
		}
		if l := externals(t, e, target); len(l) != 1 || l[0].(map[string]any)["status"] != "pending" {
			t.Fatalf("external of an inactive source: %v", l)
		}
		if org := orgAnswer(t, e, target); len(org["sso_active_connections"].([]any)) != 0 || org["sso_default_connection_id"] != nil {
			t.Fatalf("inactive external offered: %v", org)
		}
		wantPage(t, startPage(e, extID), 400, "sso_connection_not_active")
		wantPage(t, s.post(acs, form), 400, "sso_connection_not_active")

		// Reactivated: the external connection works again.
		apptest.Want(t, e.Backend(http.MethodPut, srcPath, map[string]any{"idp_sso_url": s.idp.idp.SSOURL.String()}), 200, "")
		if l := externals(t, e, target); l[0].(map[string]any)["status"] != "active" {
			t.Fatalf("external of a reactivated source: %v", l)
		}
		if r := s.loginThrough(extID, "ada@acme.test", "okta-ada"); r.Body["organization_id"] != target {
			t.Fatalf("after reactivation: %s", r.Raw)
		}

		// The source deleted: the external connection goes with it.
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/sso/"+s.orgID+"/connections/"+s.connID, nil), 200, "")
		if l := externals(t, e, target); len(l) != 0 {
			t.Fatalf("external of a deleted source: %v", l)
		}
		org := orgAnswer(t, e, target)
		if len(org["sso_active_connections"].([]any)) != 0 || org["sso_default_connection_id"] != nil {
			t.Fatalf("deleted external offered: %v", org)
		}
		if e.Count(`SELECT COUNT(*) FROM sso_registrations WHERE connection_id = $1`, extID) != 0 {
			t.Fatal("registrations of the deleted external connection remain")
		}
		wantPage(t, startPage(e, extID), 404, "sso_connection_not_found")

		// The source's organization deleted: the same.
		r = e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+s.orgID, map[string]any{"display_name": "Acme Okta 2"})
		apptest.Want(t, r, 200, "")
		s.connID = r.Body["connection"].(map[string]any)["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/saml/"+s.orgID+"/connections/"+s.connID, map[string]any{
			"idp_entity_id": s.idp.idp.MetadataURL.String(), "idp_sso_url": s.idp.idp.SSOURL.String(),
			"x509_certificate": s.idp.certPEM(), "attribute_mapping": map[string]any{"email": "mail"}}), 200, "")
		extID = createExternal(t, e, target, s.orgID, s.connID, nil)["connection_id"].(string)
		if org := orgAnswer(t, e, target); org["sso_default_connection_id"] != extID {
			t.Fatalf("second external: %v", org)
		}
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+s.orgID, nil), 200, "")
		org = orgAnswer(t, e, target)
		if len(externals(t, e, target)) != 0 || len(org["sso_active_connections"].([]any)) != 0 || org["sso_default_connection_id"] != nil {
			t.Fatalf("after the source organization's deletion: %v", org)
		}
		wantPage(t, startPage(e, extID), 404, "sso_connection_not_found")
	})
}

// TestExternalOIDCLogin: an external connection over OIDC runs the
// source's authorization code flow and lands in its own organization;
// its member's provider tokens are listed there.
func TestExternalOIDCLogin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		s := newOIDCEnv(t, e)
		target := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		extID := createExternal(t, e, target, s.orgID, s.connID, map[string]any{"display_name": "Acme OIDC"})["connection_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/sso/external/"+target+"/connections/"+extID, map[string]any{
			"external_connection_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_member"}}}), 400, "invalid_request")

		s.connID = extID // start at the external connection
		user := &mockoidc.MockUser{Subject: "oidc-lin", Email: "lin@acme.test", EmailVerified: true}
		token := tokenFrom(t, s.login(user, nil))
		r := e.Backend(http.MethodPost, "/v1/b2b/sso/authenticate", map[string]any{"sso_token": token})
		apptest.Want(t, r, 200, "")
		m := r.Body["member"].(map[string]any)
		factor := r.Body["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if r.Body["organization_id"] != target || m["email_address"] != "lin@acme.test" ||
			m["sso_registrations"].([]any)[0].(map[string]any)["connection_id"] != extID {
			t.Fatalf("landed: %s", r.Raw)
		}
		if f, _ := factor["oidc_sso_factor"].(map[string]any); factor["delivery_method"] != "sso_oidc" || f == nil || f["provider_id"] != extID {
			t.Fatalf("factor: %v", factor)
		}
		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+target+"/members/"+m["member_id"].(string)+"/oidc_providers", nil)
		apptest.Want(t, r, 200, "")
		if regs := r.Body["registrations"].([]any); len(regs) != 1 || regs[0].(map[string]any)["connection_id"] != extID ||
			regs[0].(map[string]any)["access_token"] == "" {
			t.Fatalf("oidc providers: %s", r.Raw)
		}
	})
}
