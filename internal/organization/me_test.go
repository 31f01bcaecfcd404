package organization_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

func TestSDKMeRoutesNeedASession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		routes := []struct{ method, path string }{
			{http.MethodGet, "/b2b/organizations/me"},
			{http.MethodPut, "/b2b/organizations/me"},
			{http.MethodDelete, "/b2b/organizations/me"},
			{http.MethodPost, "/b2b/organizations/me/members/search"},
			{http.MethodPost, "/b2b/organizations/members"},
			{http.MethodGet, "/b2b/organizations/members/me"},
			{http.MethodPut, "/b2b/organizations/members/update"},
			{http.MethodPut, "/b2b/organizations/members/" + f.PlainID},
			{http.MethodDelete, "/b2b/organizations/members/" + f.PlainID},
			{http.MethodPut, "/b2b/organizations/members/" + f.PlainID + "/reactivate"},
		}
		for _, rt := range routes {
			if r := e.SDK(rt.method, rt.path, nil, ""); r.Status != 401 || r.ErrType() != "user_unauthenticated" {
				t.Errorf("%s %s without a session: %d %s", rt.method, rt.path, r.Status, r.Raw)
			}
			if r := e.SDK(rt.method, rt.path, nil, "forged-session-token"); r.Status != 404 || r.ErrType() != "session_not_found" {
				t.Errorf("%s %s with a forged session: %d %s", rt.method, rt.path, r.Status, r.Raw)
			}
		}
		// A session of one project is nothing to another project.
		other := e.NewProject("Other")
		r := e.Do(http.MethodGet, "/sdk/v1/b2b/organizations/me", nil, http.Header{"Origin": {apptest.Origin}}, other.PublicToken, f.Admin)
		apptest.Want(t, r, 404, "session_not_found")
		// Nothing changed on the way.
		if m := e.MemberByID(f.Acme, f.PlainID); m["status"] != "active" {
			t.Fatalf("plain member after refused calls: %v", m)
		}
	})
}

func TestSDKOrganizationMe(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()

		// Any member reads their own organization; each session sees only its own.
		for session, org := range map[string]string{f.Plain: f.Acme, f.Admin: f.Acme, f.BetaSession: f.Beta} {
			r := e.SDK(http.MethodGet, "/b2b/organizations/me", nil, session)
			if r.Status != 200 || r.Data()["organization"].(map[string]any)["organization_id"] != org {
				t.Fatalf("GET me: %s", r.Raw)
			}
		}

		// Only admins change it; the browser cannot set trusted metadata.
		update := map[string]any{"organization_name": "Acme Corp", "email_invites": "RESTRICTED", "email_allowed_domains": []string{"acme.test"},
			"trusted_metadata": map[string]any{"plan": "free"}}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", update, f.Plain), 403, "unauthorized_action")
		r := e.SDK(http.MethodPut, "/b2b/organizations/me", update, f.Admin)
		o := r.Data()["organization"].(map[string]any)
		if _, shown := o["trusted_metadata"]; r.Status != 200 || o["organization_name"] != "Acme Corp" || o["email_invites"] != "RESTRICTED" || shown {
			t.Fatalf("PUT me: %s", r.Raw)
		}
		if tm := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+f.Acme, nil).Body["organization"].(map[string]any)["trusted_metadata"]; len(tm.(map[string]any)) != 0 {
			t.Fatalf("the browser wrote trusted metadata: %v", tm)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"auth_methods": "RESTRICTED"}, f.Admin), 400, "invalid_request")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_slug": "beta"}, f.Admin), 400, "organization_slug_already_used")
		if b := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+f.Beta, nil).Body["organization"].(map[string]any); b["organization_name"] != "Beta" {
			t.Fatalf("another organization changed: %v", b)
		}

		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/me", nil, f.Plain), 403, "unauthorized_action")
		r = e.SDK(http.MethodDelete, "/b2b/organizations/me", nil, f.Admin)
		if r.Status != 200 || r.Data()["organization_id"] != f.Acme {
			t.Fatalf("DELETE me: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodGet, "/v1/b2b/organizations/"+f.Acme, nil), 404, "organization_not_found")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/organizations/me", nil, f.Plain), 404, "session_not_found")
		if r := e.SDK(http.MethodGet, "/b2b/organizations/me", nil, f.BetaSession); r.Status != 200 {
			t.Fatalf("beta after acme's deletion: %s", r.Raw)
		}
	})
}

func TestSDKMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()

		// Self: read, and update name and untrusted metadata only.
		r := e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, f.Plain)
		if r.Status != 200 || r.Data()["member_id"] != f.PlainID || r.Data()["member"].(map[string]any)["email_address"] != "bob@acme.test" {
			t.Fatalf("members/me: %s", r.Raw)
		}
		r = e.SDK(http.MethodPut, "/b2b/organizations/members/update", map[string]any{"name": "Bob", "untrusted_metadata": map[string]any{"k": "v"},
			"is_admin": true, "trusted_metadata": map[string]any{"t": 1}, "is_breakglass": true}, f.Plain)
		m := r.Data()["member"].(map[string]any)
		if r.Status != 200 || m["name"] != "Bob" || m["untrusted_metadata"].(map[string]any)["k"] != "v" || m["is_admin"] != false ||
			m["is_breakglass"] != false || m["trusted_metadata"] != nil || len(e.MemberByID(f.Acme, f.PlainID)["trusted_metadata"].(map[string]any)) != 0 {
			t.Fatalf("members/update: %s", r.Raw)
		}
		// The same through PUT members/{own id} (stytch.self); making oneself
		// an admin needs stytch.member update.settings.roles, and other
		// members need an admin.
		if r := e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, map[string]any{"name": "Bobby"}, f.Plain); r.Status != 200 ||
			r.Data()["member"].(map[string]any)["name"] != "Bobby" || r.Data()["member"].(map[string]any)["is_admin"] != false {
			t.Fatalf("self update by id: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, map[string]any{"is_admin": true}, f.Plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID, map[string]any{"roles": []string{"stytch_admin"}}, f.Plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.AdminID, map[string]any{"name": "x"}, f.Plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+f.AdminID, nil, f.Plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "x@acme.test"}, f.Plain), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{}, f.Plain), 403, "unauthorized_action")

		// Admins manage members of their own organization only.
		r = e.SDK(http.MethodPost, "/b2b/organizations/members", map[string]any{"email_address": "dee@acme.test", "roles": []string{"stytch_admin"},
			"trusted_metadata": map[string]any{"t": 1}}, f.Admin)
		if r.Status != 200 || r.Data()["member"].(map[string]any)["is_admin"] != true ||
			len(e.MemberByID(f.Acme, r.Data()["member_id"].(string))["trusted_metadata"].(map[string]any)) != 0 {
			t.Fatalf("sdk create member: %s", r.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/organizations/me/members/search", map[string]any{"organization_ids": []string{f.Beta}, "limit": 10}, f.Admin)
		if r.Status != 200 || len(r.Data()["members"].([]any)) != 3 || r.Data()["organizations"].(map[string]any)[f.Beta] != nil {
			t.Fatalf("sdk member search: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.BetaID, map[string]any{"name": "x"}, f.Admin), 404, "member_not_found")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/organizations/members/"+f.BetaID, nil, f.Admin), 404, "member_not_found")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.BetaID+"/reactivate", nil, f.Admin), 404, "member_not_found")

		// Deleting a member ends their session at once; reactivation does
		// not revive it.
		r = e.SDK(http.MethodDelete, "/b2b/organizations/members/"+f.PlainID, nil, f.Admin)
		if r.Status != 200 || r.Data()["member_id"] != f.PlainID {
			t.Fatalf("sdk delete: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, f.Plain), 404, "session_not_found")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID+"/reactivate", nil, f.Plain), 404, "session_not_found")
		if r := e.SDK(http.MethodPut, "/b2b/organizations/members/"+f.PlainID+"/reactivate", nil, f.Admin); r.Status != 200 ||
			r.Data()["member"].(map[string]any)["status"] != "active" {
			t.Fatalf("sdk reactivate: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/organizations/members/me", nil, f.Plain), 404, "session_not_found")

		// Members may delete themselves.
		if r := e.SDK(http.MethodDelete, "/b2b/organizations/members/"+f.BetaID, nil, f.BetaSession); r.Status != 200 {
			t.Fatalf("self delete: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/organizations/me", nil, f.BetaSession), 404, "session_not_found")
	})
}

func TestMemberLookupForThePasswordScreen(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id := e.CreateMember(org, "ada@acme.test")
		e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id, map[string]any{"name": "Ada",
			"trusted_metadata": map[string]any{"secret": "x"}})
		gone := e.CreateMember(org, "gone@acme.test")
		e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+gone, nil)
		lookup := func(email, orgID string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/organizations/members/search", map[string]any{"email_address": email, "organization_id": orgID}, "")
		}

		r := lookup("ADA@acme.test", org)
		m, _ := r.Data()["member"].(map[string]any)
		if r.Status != 200 || len(m) != 3 || m["status"] != "active" || m["name"] != "Ada" || m["member_password_id"] != "" {
			t.Fatalf("lookup reveals %s, want exactly status, name and member_password_id", r.Raw)
		}
		for name, r := range map[string]apptest.Resp{
			"unknown email":        lookup("nobody@acme.test", org),
			"deleted member":       lookup("gone@acme.test", org),
			"unknown organization": lookup("ada@acme.test", "organization-test-nope"),
		} {
			if r.Status != 200 || r.Data()["member"] != nil {
				t.Errorf("%s: %s", name, r.Raw)
			}
		}
		other := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/sdk/v1/b2b/organizations/members/search", map[string]any{"email_address": "ada@acme.test", "organization_id": org},
			http.Header{"Origin": {apptest.Origin}}, other.PublicToken, other.PublicToken)
		if r.Status != 200 || r.Data()["member"] != nil {
			t.Fatalf("other project's lookup: %s", r.Raw)
		}
		apptest.Want(t, lookup("not-an-email", org), 400, "invalid_email")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members/search", map[string]any{"email_address": "ada@acme.test"}, ""), 400, "invalid_request")

		// It can enumerate, so it is rate-limited per address.
		limited := false
		for i := 0; i < 70 && !limited; i++ {
			limited = lookup("x@acme.test", org).ErrType() == "too_many_requests"
		}
		if !limited {
			t.Fatal("member lookup is not rate-limited")
		}
	})
}

// The person who creates an organization through discovery administers it.
func TestDiscoveryCreatorIsAdmin(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		d := e.Discover("founder@newco.test")
		r := e.SDK(http.MethodPost, "/b2b/discovery/organizations/create", map[string]any{"intermediate_session_token": d["intermediate_session_token"],
			"session_duration_minutes": 60}, "")
		if r.Status != 200 {
			t.Fatalf("create: %s", r.Raw)
		}
		m := r.Data()["member"].(map[string]any)
		roles := r.Data()["member_session"].(map[string]any)["roles"].([]any)
		if m["is_admin"] != true || !slices.Contains(roles, any("stytch_admin")) {
			t.Fatalf("creator = %v, session roles %v", m, roles)
		}
		token := r.Data()["session_token"].(string)
		if r := e.SDK(http.MethodPut, "/b2b/organizations/me", map[string]any{"organization_name": "NewCo Inc"}, token); r.Status != 200 {
			t.Fatalf("creator updating the organization: %s", r.Raw)
		}
	})
}
