package connectedapps_test

import (
	"context"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

func app(t *testing.T, r apptest.Resp) map[string]any {
	t.Helper()
	apptest.Want(t, r, 200, "")
	a, ok := r.Body["connected_app"].(map[string]any)
	if !ok {
		t.Fatalf("no connected_app: %s", r.Raw)
	}
	return a
}

func TestClientTypesAndSecrets(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		for _, typ := range []string{"first_party", "third_party", "first_party_public", "third_party_public"} {
			a := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": typ,
				"client_name": "Agent " + typ, "redirect_urls": []string{"https://agent.test/cb", "http://localhost:3000/cb"},
				"post_logout_redirect_urls": []string{"https://agent.test/bye"}, "logo_url": "https://agent.test/logo.png"}))
			public := typ == "first_party_public" || typ == "third_party_public"
			secret, _ := a["client_secret"].(string)
			if public != (secret == "") || (!public && a["client_secret_last_four"] != secret[len(secret)-4:]) {
				t.Fatalf("%s: secret %q last four %v", typ, secret, a["client_secret_last_four"])
			}
			if a["access_token_expiry_minutes"] != float64(60) || a["status"] != "active" {
				t.Fatalf("%s: defaults: %v", typ, a)
			}
			// ConnectedAppWithClientSecret, the Node client's type of the
			// created app, has no creation_method; ConnectedApp (get) has.
			if _, ok := a["creation_method"]; ok {
				t.Fatalf("%s: the create answer has creation_method: %v", typ, a)
			}
			got := app(t, e.Backend("GET", "/v1/connected_apps/clients/"+a["client_id"].(string), nil))
			if _, leaked := got["client_secret"]; leaked || got["client_name"] != "Agent "+typ || got["creation_method"] != "api" {
				t.Fatalf("get: %v", got)
			}
		}
		for name, body := range map[string]map[string]any{
			"unknown type":     {"client_type": "fourth_party"},
			"missing type":     {},
			"http redirect":    {"client_type": "third_party", "redirect_urls": []string{"http://agent.test/cb"}},
			"fragment":         {"client_type": "third_party", "redirect_urls": []string{"https://agent.test/cb#x"}},
			"javascript":       {"client_type": "third_party", "redirect_urls": []string{"javascript:alert(1)"}},
			"data":             {"client_type": "third_party", "redirect_urls": []string{"data:text/html,<script>alert(1)</script>"}},
			"vbscript":         {"client_type": "third_party", "redirect_urls": []string{"vbscript:msgbox(1)"}},
			"file":             {"client_type": "third_party", "redirect_urls": []string{"file:///etc/passwd"}},
			"blob":             {"client_type": "third_party", "redirect_urls": []string{"blob:https://agent.test/x"}},
			"empty fragment":   {"client_type": "third_party", "redirect_urls": []string{"https://agent.test/cb#"}},
			"trailing space":   {"client_type": "third_party", "redirect_urls": []string{"https://agent.test/cb "}},
			"relative":         {"client_type": "third_party", "redirect_urls": []string{"/cb"}},
			"expiry":           {"client_type": "third_party", "access_token_expiry_minutes": 0},
			"template":         {"client_type": "third_party", "access_token_template_content": `{"x":"y"}`},
			"logout relative":  {"client_type": "third_party", "post_logout_redirect_urls": []string{"bye"}},
			"logo not http(s)": {"client_type": "third_party", "logo_url": "data:image/png;base64,AA"},
		} {
			r := e.Backend("POST", "/v1/connected_apps/clients", body)
			if r.Status != 400 || r.ErrType() != "invalid_request" {
				t.Errorf("%s: %d %s", name, r.Status, r.Raw)
			}
		}
	})
}

func TestUpdateRotateDeleteSearch(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "first_party", "client_name": "One"}))
		id := a["client_id"].(string)
		u := app(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"client_description": "desc",
			"redirect_urls": []string{"https://one.test/cb"}, "full_access_allowed": true, "access_token_expiry_minutes": 15}))
		if u["client_name"] != "One" || u["client_description"] != "desc" || u["full_access_allowed"] != true || u["access_token_expiry_minutes"] != float64(15) {
			t.Fatalf("update: %v", u)
		}
		apptest.Want(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate", nil), 400, "connected_app_not_rotating_secret")
		apptest.Want(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/cancel", nil), 400, "connected_app_not_rotating_secret")
		s := app(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/start", nil))
		next, _ := s["next_client_secret"].(string)
		if _, ok := s["creation_method"]; next == "" || s["next_client_secret_last_four"] != next[len(next)-4:] || ok {
			t.Fatalf("rotate start (ConnectedAppWithNextClientSecret: no creation_method): %v", s)
		}
		apptest.Want(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/start", nil), 400, "connected_app_already_rotating_secret")
		c := app(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate", nil))
		if c["client_secret_last_four"] != next[len(next)-4:] || c["next_client_secret_last_four"] != nil {
			t.Fatalf("rotate complete: %v", c)
		}
		app(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/start", nil))
		x := app(t, e.Backend("POST", "/v1/connected_apps/clients/"+id+"/secrets/rotate/cancel", nil))
		if x["next_client_secret_last_four"] != nil || x["client_secret_last_four"] != next[len(next)-4:] {
			t.Fatalf("rotate cancel: %v", x)
		}
		pub := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "first_party_public"}))
		apptest.Want(t, e.Backend("POST", "/v1/connected_apps/clients/"+pub["client_id"].(string)+"/secrets/rotate/start", nil), 400, "invalid_request")

		// Keyset paging over the project's two clients; another project's
		// client never shows.
		other := e.NewProject("Other")
		apptest.Want(t, e.Do("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party"}, nil,
			other.Project.ID, other.Secret), 200, "")
		r := e.Backend("POST", "/v1/connected_apps/clients/search", map[string]any{})
		apptest.Want(t, r, 200, "")
		if meta := r.Body["results_metadata"].(map[string]any); len(r.Body["connected_apps"].([]any)) != 2 || meta["total"] != float64(2) {
			t.Fatalf("search: %s", r.Raw)
		}
		r2 := e.Backend("POST", "/v1/connected_apps/clients/search", map[string]any{"limit": 1})
		cur, _ := r2.Body["results_metadata"].(map[string]any)["next_cursor"].(string)
		r3 := e.Backend("POST", "/v1/connected_apps/clients/search", map[string]any{"limit": 1, "cursor": cur})
		first := r2.Body["connected_apps"].([]any)[0].(map[string]any)["client_id"]
		second := r3.Body["connected_apps"].([]any)[0].(map[string]any)["client_id"]
		if cur == "" || first == second {
			t.Fatalf("paging: %s %s", r2.Raw, r3.Raw)
		}
		if _, more := r3.Body["results_metadata"].(map[string]any)["next_cursor"]; more {
			t.Fatalf("last page has a cursor: %s", r3.Raw)
		}
		apptest.Want(t, e.Backend("POST", "/v1/connected_apps/clients/search", map[string]any{"cursor": "nope!"}), 400, "invalid_request")

		apptest.Want(t, e.Backend("DELETE", "/v1/connected_apps/clients/"+id, nil), 200, "")
		apptest.Want(t, e.Backend("GET", "/v1/connected_apps/clients/"+id, nil), 404, "connected_app_not_found")
		apptest.Want(t, e.Backend("DELETE", "/v1/connected_apps/clients/"+id, nil), 404, "connected_app_not_found")
	})
}

// full_access turns an app's access token into a member session, so only
// first-party apps may be allowed it (api-reference 5.4): create and update
// refuse full_access_allowed=true on a third-party type with an error that
// names the field, and turning it off is always accepted.
func TestFullAccessAllowedOnlyForFirstPartyApps(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		refused := func(r apptest.Resp) {
			t.Helper()
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "full_access_allowed" {
				t.Fatalf("error names no field: %s", r.Raw)
			}
		}
		for _, typ := range []string{"third_party", "third_party_public"} {
			refused(e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": typ, "full_access_allowed": true}))
			id := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": typ, "full_access_allowed": false}))["client_id"].(string)
			refused(e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"full_access_allowed": true}))
			if got := app(t, e.Backend("GET", "/v1/connected_apps/clients/"+id, nil)); got["full_access_allowed"] != false {
				t.Fatalf("%s: a refused update was stored: %v", typ, got)
			}
			apptest.Want(t, e.Backend("PUT", "/v1/connected_apps/clients/"+id, map[string]any{"full_access_allowed": false}), 200, "")
		}
		for _, typ := range []string{"first_party", "first_party_public"} {
			a := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": typ, "full_access_allowed": true}))
			if a["full_access_allowed"] != true {
				t.Fatalf("%s: %v", typ, a)
			}
			u := app(t, e.Backend("PUT", "/v1/connected_apps/clients/"+a["client_id"].(string), map[string]any{"full_access_allowed": false}))
			if u["full_access_allowed"] != false {
				t.Fatalf("%s: update: %v", typ, u)
			}
		}
	})
}

// MayHoldFullAccess is the one test of full access: a first-party type and
// the operator's full_access_allowed, both.
func TestMayHoldFullAccess(t *testing.T) {
	for _, c := range []struct {
		typ     string
		allowed bool
		want    bool
	}{
		{connectedapps.FirstParty, true, true},
		{connectedapps.FirstPartyPublic, true, true},
		{connectedapps.FirstParty, false, false},
		{connectedapps.ThirdParty, true, false},
		{connectedapps.ThirdPartyPublic, true, false},
	} {
		a := &connectedapps.App{ClientType: c.typ, FullAccessAllowed: c.allowed}
		if got := a.MayHoldFullAccess(); got != c.want {
			t.Errorf("%s allowed=%v: %v, want %v", c.typ, c.allowed, got, c.want)
		}
	}
}

func TestOrganizationPolicy(t *testing.T) {
	first := &connectedapps.App{ClientID: "connected-app-test-1", ClientType: connectedapps.FirstPartyPublic}
	third := &connectedapps.App{ClientID: "connected-app-test-3", ClientType: connectedapps.ThirdParty}
	for name, c := range map[string]struct {
		org          organization.Organization
		first, third bool
	}{
		"all allowed": {organization.Organization{FirstPartyConnectedAppsAllowedType: "ALL_ALLOWED", ThirdPartyConnectedAppsAllowedType: "ALL_ALLOWED"}, true, true},
		"restricted": {organization.Organization{FirstPartyConnectedAppsAllowedType: "RESTRICTED", AllowedFirstPartyConnectedApps: []string{"connected-app-test-1"},
			ThirdPartyConnectedAppsAllowedType: "RESTRICTED", AllowedThirdPartyConnectedApps: []string{"connected-app-test-1"}}, true, false},
		"not allowed":       {organization.Organization{FirstPartyConnectedAppsAllowedType: "NOT_ALLOWED", ThirdPartyConnectedAppsAllowedType: "ALL_ALLOWED"}, false, true},
		"third not allowed": {organization.Organization{FirstPartyConnectedAppsAllowedType: "ALL_ALLOWED", ThirdPartyConnectedAppsAllowedType: "NOT_ALLOWED"}, true, false},
		"unset":             {organization.Organization{}, true, true},
	} {
		// AllowsEveryApp lets token checks skip loading the app: it may
		// only say so when AllowedIn would allow any app.
		if got := connectedapps.AllowsEveryApp(&c.org); got != (c.first && c.third) {
			t.Errorf("%s: AllowsEveryApp %v", name, got)
		}
		if got := connectedapps.AllowedIn(&c.org, first) == nil; got != c.first {
			t.Errorf("%s: first party allowed %v", name, got)
		}
		if got := connectedapps.AllowedIn(&c.org, third) == nil; got != c.third {
			t.Errorf("%s: third party allowed %v", name, got)
		}
	}
}

func TestOrgMemberAndSelfViews(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		ada := e.CreateMember(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		a := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": "Agent",
			"client_description": "An agent", "logo_url": "https://agent.test/logo.png"}))
		id := a["client_id"].(string)
		st := connectedapps.NewStore(e.App.DB, e.Clock)
		for _, m := range []string{ada, bob} {
			if err := st.SaveGrant(context.Background(), e.App.DB, connectedapps.Grant{MemberID: m, OrganizationID: org, ClientID: id, Scopes: []string{"openid", "email"}}); err != nil {
				t.Fatal(err)
			}
		}
		// Consent only grows.
		if err := st.SaveGrant(context.Background(), e.App.DB, connectedapps.Grant{MemberID: ada, OrganizationID: org, ClientID: id, Scopes: []string{"profile"}}); err != nil {
			t.Fatal(err)
		}
		r := e.Backend("GET", "/v1/b2b/organizations/"+org+"/connected_apps", nil)
		apptest.Want(t, r, 200, "")
		apps := r.Body["connected_apps"].([]any)
		if len(apps) != 1 || apps[0].(map[string]any)["connected_app_id"] != id || apps[0].(map[string]any)["name"] != "Agent" {
			t.Fatalf("org apps: %s", r.Raw)
		}
		r = e.Backend("GET", "/v1/b2b/organizations/"+org+"/connected_apps/"+id, nil)
		apptest.Want(t, r, 200, "")
		if members := r.Body["active_members"].([]any); len(members) != 2 {
			t.Fatalf("active members: %s", r.Raw)
		}
		r = e.Backend("GET", "/v1/b2b/organizations/"+org+"/members/"+ada+"/connected_apps", nil)
		apptest.Want(t, r, 200, "")
		if got := r.Body["connected_apps"].([]any)[0].(map[string]any)["scopes_granted"]; got != "openid email profile" {
			t.Fatalf("scopes_granted %v", got)
		}

		// SDK: a plain member sees and revokes their own apps, not Bob's nor the organization's.
		tok, _ := e.LoginByEmailOTP(org, "ada@acme.test")
		r = e.SDK("GET", "/b2b/organizations/members/connected_apps", nil, tok)
		apptest.Want(t, r, 200, "")
		if len(r.Data()["connected_apps"].([]any)) != 1 {
			t.Fatalf("self apps: %s", r.Raw)
		}
		apptest.Want(t, e.SDK("GET", "/b2b/organizations/members/"+bob+"/connected_apps", nil, tok), 403, "unauthorized_action")
		apptest.Want(t, e.SDK("GET", "/b2b/organizations/connected_apps", nil, tok), 403, "unauthorized_action")
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/"+id+"/revoke", nil, tok), 200, "")
		// Again: nothing left to end, and still 200 (a revoke ends tokens even without consent on record).
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/"+id+"/revoke", nil, tok), 200, "")
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/connected_apps/connected-app-test-nope/revoke", nil, tok), 404, "connected_app_not_found")
		if _, err := st.GrantOf(context.Background(), ada, id); err == nil {
			t.Fatal("grant survived the revoke")
		}
		apptest.Want(t, e.SDK("GET", "/b2b/organizations/members/connected_apps", nil, ""), 401, "user_unauthenticated")

		// An admin acts on other members and reads the organization view.
		admin := e.Backend("PUT", "/v1/b2b/organizations/"+org+"/members/"+ada, map[string]any{"is_admin": true})
		apptest.Want(t, admin, 200, "")
		apptest.Want(t, e.SDK("GET", "/b2b/organizations/connected_apps/"+id, nil, tok), 200, "")
		apptest.Want(t, e.SDK("POST", "/b2b/organizations/members/"+bob+"/connected_apps/"+id+"/revoke", nil, tok), 200, "")
		apptest.Want(t, e.Backend("POST", "/v1/b2b/organizations/"+org+"/members/"+bob+"/connected_apps/"+id+"/revoke", nil), 200, "")
		r = e.Backend("GET", "/v1/b2b/organizations/"+org+"/connected_apps", nil)
		if len(r.Body["connected_apps"].([]any)) != 0 {
			t.Fatalf("no grants left, yet: %s", r.Raw)
		}
		apptest.Want(t, e.Backend("GET", "/v1/b2b/organizations/"+org+"/members/member-test-nope/connected_apps", nil), 404, "member_not_found")
		apptest.Want(t, e.Backend("GET", "/v1/b2b/organizations/organization-test-nope/connected_apps", nil), 404, "organization_not_found")
	})
}

// DropScopes removes a scope from every consent for the project's apps
// and nothing else: a name with '_' (which LIKE takes for any character)
// leaves a name it only matches as a pattern alone, and a consent left
// with no scope stays on record.
func TestDropScopes(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		ctx := context.Background()
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		ada := e.CreateMember(org, "ada@acme.test")
		bob := e.CreateMember(org, "bob@acme.test")
		id := app(t, e.Backend("POST", "/v1/connected_apps/clients", map[string]any{"client_type": "third_party", "client_name": "Agent"}))["client_id"].(string)
		st := connectedapps.NewStore(e.App.DB, e.Clock)
		grant := map[string][]string{ada: {"openid", "read_docs", "readXdocs"}, bob: {"read_docs"}}
		for m, scopes := range grant {
			if err := st.SaveGrant(ctx, e.App.DB, connectedapps.Grant{MemberID: m, OrganizationID: org, ClientID: id, Scopes: scopes}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.App.DB.Tx(ctx, func(q store.Querier) error { return st.DropScopes(ctx, q, e.Project.Project.ID, []string{"read_docs"}) }); err != nil {
			t.Fatal(err)
		}
		for m, want := range map[string][]string{ada: {"openid", "readXdocs"}, bob: {}} {
			g, err := st.GrantOf(ctx, m, id)
			if err != nil || !slices.Equal(g.Scopes, want) {
				t.Fatalf("%s: consent %v (%v), want %v", m, g, err, want)
			}
		}
	})
}
