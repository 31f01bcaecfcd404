package idp_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/rbac"
)

// docsPolicy gives the project a custom scope read:docs that only the
// editor role may grant.
func docsPolicy(t *testing.T, e *apptest.Env) {
	t.Helper()
	_, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, rbac.Policy{
		Resources: []rbac.Resource{{ResourceID: "documents", Description: "Documents", Actions: []string{"read"}}},
		Roles: []rbac.Role{{RoleID: "editor", Description: "Edits",
			Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}}},
		Scopes: []rbac.Scope{{Scope: "read:docs", Description: "Read your documents",
			Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"read"}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
}

// fields is a space-separated scope value as a list.
func fields(v any) []string { s, _ := v.(string); return strings.Fields(s) }

// A scope the member cannot grant is reported not grantable at start and
// simply not granted (RFC 6749 3.3): the flow ends at the client with a
// code, and the code, the tokens (and their scope in the token response),
// the ID token and userinfo carry the granted scopes only. This holds
// where no consent screen is shown: a first-party app, prompt=none, and a
// third-party app whose consent on record covers a scope the member's
// role has since lost.
func TestUngrantableScopesAreLeftOutNotRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		docsPolicy(t, e)
		first, firstSecret := f.client("first_party", nil)

		r := e.SDK("POST", "/idp/b2b/oauth/authorize/start", authReq(first, "openid", "email", "read:docs", "offline_access"), f.session)
		apptest.Want(t, r, 200, "")
		if res := r.Data()["scope_results"].([]any)[2].(map[string]any); res["scope"] != "read:docs" || res["is_grantable"] != false ||
			r.Data()["consent_required"] != false {
			t.Fatalf("start: %s", r.Raw)
		}
		// check redeems a redirect's code and checks every place the
		// scopes show.
		check := func(name, id, secret string, back url.Values, want ...string) {
			t.Helper()
			if back.Get("code") == "" || back.Get("error") != "" || back.Get("state") != "st-1" {
				t.Fatalf("%s: redirect %v", name, back)
			}
			tok := f.exchange(id, secret, back.Get("code"), verifier)
			apptest.Want(t, tok, 200, "")
			if got := fields(tok.Body["scope"]); !slices.Equal(got, want) {
				t.Fatalf("%s: token response scope %v, want %v", name, got, want)
			}
			at := tok.Body["access_token"].(string)
			if got := fields(f.claims(at)["scope"]); !slices.Equal(got, want) {
				t.Fatalf("%s: access token scope %v, want %v", name, got, want)
			}
			if id := f.claims(tok.Body["id_token"].(string)); id["email"] != "ada@acme.test" {
				t.Fatalf("%s: id token %v", name, id)
			}
			if u := f.userInfo(at); u.Status != 200 || u.Body["email"] != "ada@acme.test" {
				t.Fatalf("%s: userinfo %s", name, u.Raw)
			}
			in := f.form("/oauth2/introspect", id, secret, url.Values{"token": {tok.Body["refresh_token"].(string)}})
			if got := fields(in.Body["scope"]); !slices.Equal(got, want) {
				t.Fatalf("%s: refresh token scope %v, want %v", name, got, want)
			}
		}
		_, back := f.authorize(authReq(first, "openid", "email", "read:docs", "offline_access"), false)
		check("first-party", first, firstSecret, back, "openid", "email", "offline_access")

		req := authReq(first, "openid", "email", "read:docs", "offline_access")
		req["prompt"] = "none"
		_, back = f.authorize(req, false)
		check("prompt=none", first, firstSecret, back, "openid", "email", "offline_access")

		// A third-party app consented to as an editor; the role goes, and
		// with consent on record no screen is shown.
		third, thirdSecret := f.client("third_party", nil)
		role := func(roles ...string) {
			t.Helper()
			roles = append([]string{}, roles...) // none is [], not null (which changes nothing)
			apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+f.org+"/members/"+f.member,
				map[string]any{"roles": roles}), 200, "")
			f.session, _ = e.LoginByEmailOTP(f.org, "ada@acme.test")
		}
		role("editor")
		f.grant(third, thirdSecret, "openid", "email", "read:docs", "offline_access")
		role()
		start, back := f.authorize(authReq(third, "openid", "email", "read:docs", "offline_access"), false)
		if start.Data()["consent_required"] != false {
			t.Fatalf("third-party with consent on record: %s", start.Raw)
		}
		check("third-party, role lost", third, thirdSecret, back, "openid", "email", "offline_access")
	})
}

// When nothing requested can be granted, the client is told by redirect
// (access_denied with state, RFC 6749 4.1.2.1), on both faces; start still
// answers the scope results, so the widget never ends on an error page.
func TestNothingGrantableGoesBackToTheClient(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := setup(t, e)
		docsPolicy(t, e)
		id, _ := f.client("first_party", nil)
		start, back := f.authorize(authReq(id, "read:docs"), false)
		if start.Status != 200 || back.Get("error") != "access_denied" || back.Get("state") != "st-1" || back.Get("code") != "" ||
			!strings.Contains(back.Get("error_description"), "read:docs") {
			t.Fatalf("start %s, redirect %v", start.Raw, back)
		}
		req := authReq(id, "read:docs")
		req["organization_id"], req["member_id"], req["consent_granted"] = f.org, f.member, true
		r := e.Backend("POST", "/v1/b2b/idp/oauth/authorize", req)
		if q := redirectQuery(t, r, r.Body); q.Get("error") != "access_denied" || q.Get("code") != "" {
			t.Fatalf("backend face: %s", r.Raw)
		}
	})
}
