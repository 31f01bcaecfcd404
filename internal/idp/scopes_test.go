package idp_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

// Custom scopes come from the project's RBAC policy: discovery lists them,
// the consent screen marks the ones the member's roles do not cover as not
// grantable and they are left out of what is granted, granted ones travel
// in the access token, and losing the role drops the scope at the next
// refresh.
func TestCustomScopesFromThePolicy(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		_, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, rbac.Policy{
			Resources: []rbac.Resource{{ResourceID: "documents", Description: "Documents", Actions: []string{"read", "write"}}},
			Roles: []rbac.Role{{RoleID: "editor", Description: "Edits",
				Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"*"}}}}},
			Scopes: []rbac.Scope{
				{Scope: "read:docs", Description: "Read your documents", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}},
				{Scope: "write:docs", Description: "Change your documents", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read", "write"}}}},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		d := e.Get("/v1/public/" + e.Project.Project.ID + "/.well-known/openid-configuration")
		apptest.Want(t, d, 200, "")
		var supported []string
		for _, s := range d.Body["scopes_supported"].([]any) {
			supported = append(supported, s.(string))
		}
		if !slices.Contains(supported, "read:docs") || !slices.Contains(supported, "write:docs") || !slices.Contains(supported, "openid") {
			t.Fatalf("scopes_supported: %v", supported)
		}

		id, secret := f.client("third_party", nil)
		results := func() map[string]map[string]any {
			r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "read:docs", "offline_access"), f.session)
			apptest.Want(t, r, 200, "")
			out := map[string]map[string]any{}
			for _, x := range r.Data()["scope_results"].([]any) {
				m := x.(map[string]any)
				out[m["scope"].(string)] = m
			}
			return out
		}
		// A plain member lacks documents:read: listed, not grantable, and
		// not granted; the rest is.
		res := results()
		if res["read:docs"]["is_grantable"] != false || res["read:docs"]["description"] != "Read your documents" || res["openid"]["is_grantable"] != true {
			t.Fatalf("plain member's scope results: %v", res)
		}
		if tok := f.grant(id, secret, "openid", "read:docs", "offline_access"); tok.Body["scope"] != "openid offline_access" {
			t.Fatalf("plain member's grant: %s", tok.Raw)
		}
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(id, "openid", "nope:docs"), f.session), 400, "invalid_scope")

		// As an editor (a fresh session carries the new role), the scope is
		// grantable and lands in the access token.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member, map[string]any{"roles": []string{"editor"}}), 200, "")
		f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		if res := results(); res["read:docs"]["is_grantable"] != true {
			t.Fatalf("editor's scope results: %v", res)
		}
		_, back := f.authorize(authReq(id, "openid", "read:docs", "offline_access"), true)
		tok := f.exchange(id, secret, back.Get("code"), verifier)
		apptest.Want(t, tok, 200, "")
		if at := f.claims(tok.Body["access_token"].(string)); at["scope"] != "openid read:docs offline_access" {
			t.Fatalf("access token scope: %v", at["scope"])
		}

		// The role goes: the next refresh no longer carries the scope.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member, map[string]any{"roles": []string{}}), 200, "")
		r := f.form("/oauth2/token", id, secret, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.Body["refresh_token"].(string)}})
		apptest.Want(t, r, 200, "")
		if r.Body["scope"] != "openid offline_access" || strings.Contains(f.claims(r.Body["access_token"].(string))["scope"].(string), "read:docs") {
			t.Fatalf("refresh after the role was removed: %s", r.Raw)
		}
	})
}

// max_age: a session whose last authentication is older sends the member
// to log in again (start) or the client login_required (submit); a recent
// enough one passes, and the ID token carries auth_time.
func TestMaxAge(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		id, secret := f.client("first_party", nil)
		loggedIn := e.Clock.Now()
		e.Clock.Advance(10 * time.Minute)

		req := authReq(id, "openid")
		req["max_age"] = "300"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 401, "login_required")
		req["consent_granted"] = false
		r := e.SDK("POST", "/idp/b2b/oauth/authorize/submit", req, f.session)
		apptest.Want(t, r, 200, "")
		if u, _ := url.Parse(r.Data()["redirect_uri"].(string)); u.Query().Get("error") != "login_required" || u.Query().Get("code") != "" {
			t.Fatalf("submit past max_age: %s", r.Raw)
		}
		req["max_age"] = "nope"
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 400, "invalid_request")

		// Within max_age (a number from a backend, or a string from the
		// page): a code, and auth_time in the ID token.
		for _, maxAge := range []any{3600, "3600"} {
			req := authReq(id, "openid")
			req["max_age"] = maxAge
			_, back := f.authorize(req, false)
			tok := f.exchange(id, secret, back.Get("code"), verifier)
			apptest.Want(t, tok, 200, "")
			if at := f.claims(tok.Body["id_token"].(string))["auth_time"]; at != float64(loggedIn.Unix()) {
				t.Fatalf("auth_time %v, want %d", at, loggedIn.Unix())
			}
		}
		// max_age=0 is prompt=login: a login minutes ago is too old.
		req = authReq(id, "openid")
		req["max_age"] = 0
		apptest.Want(t, e.SDK("POST", "/idp/b2b/oauth/authorize/start", req, f.session), 401, "login_required")
	})
}
