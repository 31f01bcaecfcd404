package scim_test

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// scimDo calls the SCIM service of connection id as an identity provider.
func scimDo(e *apptest.Env, method, id, path, token string, body any) apptest.Resp {
	e.T.Helper()
	h := http.Header{"Content-Type": {"application/scim+json"}}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
	}
	return e.Do(method, "/v1/b2b/scim/"+id+path, body, h, "", "")
}

// wantSCIM fails unless r has the status and, for an error, SCIM's error
// shape with scimType (or none for "").
func wantSCIM(t *testing.T, r apptest.Resp, status int, scimType string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("got %d, want %d: %s", r.Status, status, r.Raw)
	}
	if status < 300 {
		return
	}
	schemas, _ := r.Body["schemas"].([]any)
	if len(schemas) != 1 || schemas[0] != "urn:ietf:params:scim:api:messages:2.0:Error" || r.Body["status"] != strconv.Itoa(status) {
		t.Fatalf("not a SCIM error: %s", r.Raw)
	}
	if got, _ := r.Body["scimType"].(string); got != scimType {
		t.Fatalf("scimType = %q, want %q: %s", got, scimType, r.Raw)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/scim+json" {
		t.Fatalf("Content-Type = %q", ct)
	}
}

// connection creates org's SCIM connection through the backend and returns
// its id and bearer token.
func connection(t *testing.T, e *apptest.Env, org string, body map[string]any) (string, string, map[string]any) {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection", body)
	apptest.Want(t, r, 200, "")
	c := r.Body["connection"].(map[string]any)
	return c["connection_id"].(string), c["bearer_token"].(string), c
}

func TestConnectionManagementAndRotation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection", map[string]any{"identity_provider": "aol"}), 400, "invalid_scim_idp")
		id, token, c := connection(t, e, org, map[string]any{"display_name": "Okta", "identity_provider": "okta"})
		// SCIMConnectionWithToken, the Node client's type of the created
		// connection, shows the token itself and no last-four fields.
		_, four := c["bearer_token_last_four"]
		_, nextFour := c["next_bearer_token_last_four"]
		if c["base_url"] != e.Srv.URL+"/v1/b2b/scim/"+id || four || nextFour || token == "" ||
			c["identity_provider"] != "okta" || c["status"] != "active" || c["bearer_token_expires_at"] == "" {
			t.Fatalf("created connection = %v", c)
		}
		// One connection per organization.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection", map[string]any{}), 400, "active_scim_connection_exists")
		r := e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection", nil)
		if got := r.Body["connection"].(map[string]any); got["connection_id"] != id || got["bearer_token"] != nil {
			t.Fatalf("get = %s", r.Raw)
		}
		o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil).Body["organization"].(map[string]any)
		if a, _ := o["scim_active_connection"].(map[string]any); a["connection_id"] != id || a["display_name"] != "Okta" {
			t.Fatalf("scim_active_connection = %v", o["scim_active_connection"])
		}
		r = e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{"display_name": "Entra", "identity_provider": "microsoft-entra"})
		apptest.Want(t, r, 200, "")
		if u := r.Body["connection"].(map[string]any)["base_url"].(string); !strings.HasSuffix(u, "/"+id+"?aadOptscim062020") {
			t.Fatalf("entra base_url = %s", u)
		}
		spc := func(tok string) int { return scimDo(e, http.MethodGet, id, "/ServiceProviderConfig", tok, nil).Status }
		if spc(token) != 200 || spc("wrong") != 401 || spc("") != 401 {
			t.Fatal("bearer check")
		}

		// Rotation: both tokens until complete; cancel drops the new one.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/complete", nil), 400, "scim_connection_not_rotating_token")
		r = e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil)
		apptest.Want(t, r, 200, "")
		next := r.Body["connection"].(map[string]any)["next_bearer_token"].(string)
		if c := r.Body["connection"].(map[string]any); c["bearer_token_last_four"] != token[len(token)-4:] || c["next_bearer_token_last_four"] != nil {
			t.Fatalf("rotation start (SCIMConnectionWithNextToken: the current token's last four only): %s", r.Raw)
		}
		if spc(token) != 200 || spc(next) != 200 {
			t.Fatal("both tokens must work during a rotation")
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/cancel", nil), 200, "")
		if spc(token) != 200 || spc(next) != 401 {
			t.Fatal("cancel must drop the next token only")
		}
		r = e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil)
		next = r.Body["connection"].(map[string]any)["next_bearer_token"].(string)
		r = e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/complete", nil)
		if got := r.Body["connection"].(map[string]any); got["bearer_token_last_four"] != next[len(next)-4:] || got["next_bearer_token_last_four"] != "" {
			t.Fatalf("completed = %s", r.Raw)
		}
		if spc(token) != 401 || spc(next) != 200 {
			t.Fatal("complete must retire the old token")
		}

		// Another organization's connection token is not this one's.
		other := e.CreateOrg("globex", "NOT_ALLOWED", nil)
		otherID, otherToken, _ := connection(t, e, other, nil)
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", otherToken, nil), 401, "")
		wantSCIM(t, scimDo(e, http.MethodGet, otherID, "/Users", next, nil), 401, "")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/scim/"+org+"/connection/"+otherID, nil), 404, "no_active_scim_connection")

		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/scim/"+org+"/connection/"+id, nil), 200, "")
		o = e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil).Body["organization"].(map[string]any)
		if o["scim_active_connection"] != nil {
			t.Fatalf("scim_active_connection after delete = %v", o["scim_active_connection"])
		}
		if spc(next) != 401 {
			t.Fatal("a deleted connection's token must be refused")
		}
	})
}

func TestSDKFaceIsAuthorizedByRBAC(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "admin@acme.test")
		e.CreateMember(org, "mule@acme.test")
		admin, mule := e.SessionFor(org, "admin@acme.test"), e.SessionFor(org, "mule@acme.test")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/scim", map[string]any{"display_name": "Okta"}, mule), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodGet, "/b2b/scim", nil, mule), 403, "unauthorized_action")
		if r := e.SDK(http.MethodGet, "/b2b/scim", nil, admin); r.Status != 200 || r.Data()["connection"] != nil {
			t.Fatalf("get before create: %s", r.Raw)
		}
		// Without a connection there are no groups (the Admin Portal lists
		// them for every organization), and still only for who may read SCIM.
		if r := e.SDK(http.MethodPost, "/b2b/scim/groups", map[string]any{"limit": 1000}, admin); r.Status != 200 ||
			len(r.Data()["scim_groups"].([]any)) != 0 || r.Data()["next_cursor"] != nil {
			t.Fatalf("groups before create: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/scim/groups", map[string]any{}, mule), 403, "unauthorized_action")
		r := e.SDK(http.MethodPost, "/b2b/scim", map[string]any{"display_name": "Okta", "identity_provider": "okta"}, admin)
		apptest.Want(t, r, 200, "")
		c := r.Data()["connection"].(map[string]any)
		id, token := c["connection_id"].(string), c["bearer_token"].(string)
		if token == "" {
			t.Fatalf("create = %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/scim/"+id, map[string]any{"display_name": "X"}, mule), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodPut, "/b2b/scim/"+id, map[string]any{"display_name": "Okta 2"}, admin), 200, "")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/scim/rotate/start", map[string]any{"connection_id": id}, mule), 403, "unauthorized_action")
		r = e.SDK(http.MethodPost, "/b2b/scim/rotate/start", map[string]any{"connection_id": id}, admin)
		apptest.Want(t, r, 200, "")
		next := r.Data()["connection"].(map[string]any)["next_bearer_token"].(string)
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/scim/rotate/complete", map[string]any{"connection_id": id}, admin), 200, "")
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", token, nil), 401, "")
		wantSCIM(t, scimDo(e, http.MethodGet, id, "/Users", next, nil), 200, "")
		r = e.SDK(http.MethodPost, "/b2b/scim/groups", map[string]any{"limit": 10}, admin)
		if r.Status != 200 || len(r.Data()["scim_groups"].([]any)) != 0 {
			t.Fatalf("groups: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/scim/"+id, nil, mule), 403, "unauthorized_action")
		apptest.Want(t, e.SDK(http.MethodDelete, "/b2b/scim/"+id, nil, admin), 200, "")
	})
}

// member reads a member through the backend.
func member(t *testing.T, e *apptest.Env, org, id string) map[string]any {
	t.Helper()
	return e.MemberByID(org, id)
}

func roleSources(m map[string]any, role string) []any {
	for _, r := range m["roles"].([]any) {
		if r := r.(map[string]any); r["role_id"] == role {
			return r["sources"].([]any)
		}
	}
	return nil
}

func sessionRoles(t *testing.T, e *apptest.Env, token string) []string {
	t.Helper()
	r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": token})
	apptest.Want(t, r, 200, "")
	var out []string
	for _, v := range r.Body["member_session"].(map[string]any)["roles"].([]any) {
		out = append(out, v.(string))
	}
	return out
}

func patch(ops ...map[string]any) map[string]any {
	return map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"}, "Operations": ops}
}

// TestProvisioningRun drives the service the way Okta and Microsoft Entra
// do: create, look up by filter, deactivate with "False", reactivate,
// rename, push a group whose membership grants a role, change its members,
// deprovision.
func TestProvisioningRun(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, map[string]any{"identity_provider": "okta"})
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }

		r := do(http.MethodPost, "/Users", map[string]any{"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"},
			"userName": "ada@acme.test", "externalId": "00u1", "active": true,
			"name":   map[string]any{"givenName": "Ada", "familyName": "Lovelace"},
			"emails": []any{map[string]any{"primary": true, "value": "ada@acme.test", "type": "work"}}})
		wantSCIM(t, r, 201, "")
		if r.Header.Get("Content-Type") != "application/scim+json" || r.Body["active"] != true || r.Body["userName"] != "ada@acme.test" {
			t.Fatalf("created user: %v %s", r.Header, r.Raw)
		}
		uid := r.Body["id"].(string)
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "ADA@acme.test"}), 409, "uniqueness")
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "not an address"}), 400, "invalidValue")
		wantSCIM(t, do(http.MethodPost, "/Users", `{"userName": `), 400, "invalidSyntax")

		for _, f := range []string{`userName eq "ADA@acme.test"`, `externalId eq "00u1"`, `emails[type eq "work"].value eq "ada@acme.test"`} {
			r = do(http.MethodGet, "/Users?filter="+url.QueryEscape(f), nil)
			if r.Status != 200 || r.Body["totalResults"] != float64(1) || r.Body["Resources"].([]any)[0].(map[string]any)["id"] != uid {
				t.Fatalf("filter %s: %s", f, r.Raw)
			}
		}
		if r = do(http.MethodGet, "/Users?filter="+url.QueryEscape(`userName eq "nobody@acme.test"`), nil); r.Body["totalResults"] != float64(0) {
			t.Fatalf("no match: %s", r.Raw)
		}
		wantSCIM(t, do(http.MethodGet, "/Users?filter="+url.QueryEscape(`userName like "ada"`), nil), 400, "invalidFilter")

		m := member(t, e, org, uid)
		reg, _ := m["scim_registration"].(map[string]any)
		if m["name"] != "Ada Lovelace" || m["status"] != "active" || reg["connection_id"] != id || reg["external_id"] != "00u1" ||
			reg["scim_attributes"].(map[string]any)["user_name"] != "ada@acme.test" {
			t.Fatalf("provisioned member = %v", m)
		}

		// Entra deactivates with the string "False": the member is deleted
		// and their session ends.
		session := e.SessionFor(org, "ada@acme.test")
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "Replace", "path": "active", "value": "False"}))
		wantSCIM(t, r, 200, "")
		if r.Body["active"] != false || member(t, e, org, uid)["status"] != "deleted" {
			t.Fatalf("deactivated: %s", r.Raw)
		}
		if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": session}); r.Status == 200 {
			t.Fatalf("a deactivated member's session still authenticates: %s", r.Raw)
		}
		// Okta reactivates with a path-less replace.
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "value": map[string]any{"active": true}}))
		if r.Status != 200 || r.Body["active"] != true || member(t, e, org, uid)["status"] != "active" {
			t.Fatalf("reactivated: %s", r.Raw)
		}
		// The deactivation ended the session: reactivating does not revive it.
		if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": session}); r.Status == 200 {
			t.Fatalf("a session from before the deactivation came back: %s", r.Raw)
		}
		// Attribute paths as Entra sends them.
		r = do(http.MethodPatch, "/Users/"+uid, patch(
			map[string]any{"op": "Replace", "path": "name.givenName", "value": "Augusta"},
			map[string]any{"op": "Replace", "path": `emails[type eq "work"].value`, "value": "augusta@acme.test"},
			map[string]any{"op": "Add", "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", "value": "R&D"}))
		wantSCIM(t, r, 200, "")
		m = member(t, e, org, uid)
		if m["name"] != "Augusta Lovelace" || m["email_address"] != "augusta@acme.test" {
			t.Fatalf("patched member = %v", m)
		}
		if x := m["scim_registration"].(map[string]any)["scim_attributes"].(map[string]any)["enterprise_extension"].(map[string]any); x["department"] != "R&D" {
			t.Fatalf("enterprise extension = %v", x)
		}
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "frobnicate", "path": "active"})), 400, "invalidSyntax")

		// A group whose membership grants stytch_admin.
		r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Engineering", "members": []any{map[string]any{"value": uid}}})
		wantSCIM(t, r, 201, "")
		gid := r.Body["id"].(string)
		if len(r.Body["members"].([]any)) != 1 {
			t.Fatalf("group: %s", r.Raw)
		}
		wantSCIM(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": "Engineering"}), 409, "uniqueness")
		wantSCIM(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": "Ghosts", "members": []any{map[string]any{"value": "member-test-nope"}}}), 400, "invalidValue")
		if r = do(http.MethodGet, "/Groups?filter="+url.QueryEscape(`displayName eq "Engineering"`)+"&excludedAttributes=members", nil); r.Body["totalResults"] != float64(1) ||
			r.Body["Resources"].([]any)[0].(map[string]any)["members"] != nil {
			t.Fatalf("group filter: %s", r.Raw)
		}
		r = e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group_id": gid}}})
		apptest.Want(t, r, 200, "")
		if a := r.Body["connection"].(map[string]any)["scim_group_implicit_role_assignments"].([]any); len(a) != 1 || a[0].(map[string]any)["group_name"] != "Engineering" {
			t.Fatalf("assignments = %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/scim/"+org+"/connection/"+id, map[string]any{
			"scim_group_implicit_role_assignments": []any{map[string]any{"role_id": "stytch_admin", "group_id": "scim-group-test-nope"}}}), 400, "scim_group_role_assignment_group_does_not_exist")
		src := roleSources(member(t, e, org, uid), "stytch_admin")
		if len(src) != 1 || src[0].(map[string]any)["type"] != "scim_connection_group" || src[0].(map[string]any)["details"].(map[string]any)["group_id"] != gid {
			t.Fatalf("stytch_admin sources = %v", src)
		}
		// The members search finds the group's role holder, among as
		// many roles as a search takes, once.
		roles := []string{"stytch_admin"}
		for i := range 999 {
			roles = append(roles, "role-"+strconv.Itoa(i))
		}
		r = e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{org},
			"query": apptest.Query("AND", apptest.Filter("member_roles", roles))["query"]})
		if ms, _ := r.Body["members"].([]any); r.Status != 200 || !slices.ContainsFunc(ms, func(m any) bool { return m.(map[string]any)["member_id"] == uid }) {
			t.Fatalf("member_roles search: %s", r.Raw)
		}
		session = e.SessionFor(org, "augusta@acme.test")
		if !slices.Contains(sessionRoles(t, e, session), "stytch_admin") {
			t.Fatal("the session lacks the group's role")
		}

		// Okta removes a member by value filter; Entra adds a list.
		wantSCIM(t, do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "remove", "path": `members[value eq "` + uid + `"]`})), 200, "")
		if roleSources(member(t, e, org, uid), "stytch_admin") != nil || slices.Contains(sessionRoles(t, e, session), "stytch_admin") {
			t.Fatal("leaving the group must take its role away")
		}
		r = do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "Add", "path": "members", "value": []any{map[string]any{"value": uid}}},
			map[string]any{"op": "Replace", "path": "displayName", "value": "Platform"}))
		if r.Status != 200 || r.Body["displayName"] != "Platform" || len(r.Body["members"].([]any)) != 1 {
			t.Fatalf("group patch: %s", r.Raw)
		}
		if !slices.Contains(sessionRoles(t, e, session), "stytch_admin") {
			t.Fatal("rejoining the group must give the role back")
		}
		r = e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection/"+id+"?limit=1", nil)
		if gs := r.Body["scim_groups"].([]any); r.Status != 200 || len(gs) != 1 || gs[0].(map[string]any)["group_name"] != "Platform" || r.Body["next_cursor"] != nil {
			t.Fatalf("groups listing: %s", r.Raw)
		}
		r = do(http.MethodGet, "/Users/"+uid, nil)
		if gs := r.Body["groups"].([]any); len(gs) != 1 || gs[0].(map[string]any)["value"] != gid {
			t.Fatalf("user groups: %s", r.Raw)
		}

		// Deprovisioning deletes the member and forgets the user.
		wantSCIM(t, do(http.MethodDelete, "/Users/"+uid, nil), 204, "")
		wantSCIM(t, do(http.MethodGet, "/Users/"+uid, nil), 404, "")
		if m := member(t, e, org, uid); m["status"] != "deleted" || m["scim_registration"] != nil || roleSources(m, "stytch_admin") != nil {
			t.Fatalf("deprovisioned member = %v", m)
		}
		wantSCIM(t, do(http.MethodDelete, "/Groups/"+gid, nil), 204, "")
		r = e.Backend(http.MethodGet, "/v1/b2b/scim/"+org+"/connection", nil)
		if a := r.Body["connection"].(map[string]any)["scim_group_implicit_role_assignments"].([]any); len(a) != 0 {
			t.Fatalf("a deleted group's assignments stay: %s", r.Raw)
		}
	})
}

// TestExistingMemberIsLinked: provisioning an address that is already a
// member links that member instead of creating a second one.
func TestExistingMemberIsLinked(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		mid := e.CreateMember(org, "grace@acme.test")
		id, token, _ := connection(t, e, org, nil)
		r := scimDo(e, http.MethodPost, id, "/Users", token, map[string]any{"userName": "grace@acme.test", "displayName": "Grace Hopper"})
		wantSCIM(t, r, 201, "")
		if r.Body["id"] != mid || member(t, e, org, mid)["name"] != "Grace Hopper" {
			t.Fatalf("linked: %s", r.Raw)
		}
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE organization_id = $1`, org); n != 1 {
			t.Fatalf("%d members, want 1", n)
		}
	})
}

// TestActiveConnectionSummary: the backend's organization carries the
// active connection's bearer_token_last_four (the Node client's
// ActiveSCIMConnection requires it) and follows a rotation; the SDK face
// shows only the id and name it declares.
func TestActiveConnectionSummary(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateAdmin(org, "admin@acme.test")
		id, token, c := connection(t, e, org, map[string]any{"display_name": "Okta"})
		summary := func() map[string]any {
			o := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org, nil).Body["organization"].(map[string]any)
			a, _ := o["scim_active_connection"].(map[string]any)
			return a
		}
		if a := summary(); a["connection_id"] != id || a["bearer_token_last_four"] != token[len(token)-4:] ||
			a["bearer_token_expires_at"] != c["bearer_token_expires_at"] {
			t.Fatalf("scim_active_connection = %v, connection %v", a, c)
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/start", nil)
		apptest.Want(t, r, 200, "")
		next := r.Body["connection"].(map[string]any)["next_bearer_token"].(string)
		if a := summary(); a["bearer_token_last_four"] != token[len(token)-4:] {
			t.Fatalf("during the rotation: %v", a)
		}
		r = e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection/"+id+"/rotate/complete", nil)
		apptest.Want(t, r, 200, "")
		done := r.Body["connection"].(map[string]any)
		if a := summary(); a["bearer_token_last_four"] != next[len(next)-4:] || a["bearer_token_expires_at"] != done["bearer_token_expires_at"] {
			t.Fatalf("after the rotation: %v, connection %v", a, done)
		}

		r = e.SDK(http.MethodGet, "/b2b/organizations/me", nil, e.SessionFor(org, "admin@acme.test"))
		apptest.Want(t, r, 200, "")
		a, _ := r.Data()["organization"].(map[string]any)["scim_active_connection"].(map[string]any)
		if len(a) != 2 || a["connection_id"] != id || a["display_name"] != "Okta" {
			t.Fatalf("SDK scim_active_connection = %v", a)
		}
	})
}
