package app_test

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// The backend face takes an organization's slug or external id wherever
// it takes organization_id, and a member's external id wherever it takes
// member_id (organization.AliasEdge): in the path, the query and the body.
// Answers carry the ids.

// aliasOrgs makes acme (slug acme, external id crm-acme) and globex (slug
// globex, external id crm-globex), with a member of external id emp-1 in
// each: ada, an admin of acme, and grace in globex.
func aliasOrgs(t *testing.T, e *apptest.Env) (acme, globex, ada, grace string) {
	t.Helper()
	acme = e.CreateOrg("acme", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-acme"})
	globex = e.CreateOrg("globex", "NOT_ALLOWED", map[string]any{"organization_external_id": "crm-globex"})
	member := func(org, email string, admin bool) string {
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": email, "external_id": "emp-1", "is_admin": admin})
		apptest.Want(t, r, 200, "")
		return r.Body["member_id"].(string)
	}
	return acme, globex, member(acme, "ada@acme.test", true), member(globex, "grace@globex.test", false)
}

func orgIDOf(r apptest.Resp) any {
	o, _ := r.Body["organization"].(map[string]any)
	return o["organization_id"]
}

func TestBackendPathTakesOrganizationAndMemberAliases(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex, ada, grace := aliasOrgs(t, e)
		for ref, want := range map[string]string{acme: acme, "globex": globex, "crm-acme": acme, "acme": acme} {
			r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+ref, nil)
			if r.Status != 200 || orgIDOf(r) != want {
				t.Errorf("GET organizations/%s: %d %v, want %s", ref, r.Status, orgIDOf(r), want)
			}
		}
		// A member's external id, within the organization the path names.
		for _, c := range []struct{ org, member, wantOrg, want string }{
			{"crm-acme", "emp-1", acme, ada}, {"globex", "emp-1", globex, grace}, {acme, ada, acme, ada},
		} {
			r := e.Backend(http.MethodPut, "/v1/b2b/organizations/"+c.org+"/members/"+c.member, map[string]any{"name": "Renamed"})
			if r.Status != 200 || r.Body["member_id"] != c.want || orgIDOf(r) != c.wantOrg {
				t.Errorf("PUT organizations/%s/members/%s: %d %s", c.org, c.member, r.Status, r.Raw)
			}
		}
		// The member of .../members/{member_id}/totp (one route with
		// .../members/passwords/{id}): an external id too.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": acme, "member_id": ada}), 200, "")
		r := e.Backend(http.MethodDelete, "/v1/b2b/organizations/acme/members/emp-1/totp", nil)
		if r.Status != 200 || r.Body["member_id"] != ada {
			t.Errorf("DELETE organizations/acme/members/emp-1/totp: %d %s", r.Status, r.Raw)
		}
	})
}

// What names nothing is refused exactly as an unknown id is: the same
// status, type and message, and another organization's member is not
// reached through its external id.
func TestBackendUnknownAliasIsRefusedLikeAnUnknownID(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, _, _, _ := aliasOrgs(t, e)
		same := func(what string, alias, id apptest.Resp, status int, errType string) {
			t.Helper()
			apptest.Want(t, alias, status, errType)
			if alias.Body["error_message"] != id.Body["error_message"] {
				t.Errorf("%s: alias says %q, unknown id says %q", what, alias.Body["error_message"], id.Body["error_message"])
			}
		}
		const noOrg, noMember = "organization-test-00000000-0000-4000-8000-000000000000", "member-test-00000000-0000-4000-8000-000000000000"
		same("organization", e.Backend(http.MethodGet, "/v1/b2b/organizations/nope", nil),
			e.Backend(http.MethodGet, "/v1/b2b/organizations/"+noOrg, nil), 404, "organization_not_found")
		same("member", e.Backend(http.MethodPut, "/v1/b2b/organizations/acme/members/emp-404", map[string]any{"name": "X"}),
			e.Backend(http.MethodPut, "/v1/b2b/organizations/"+acme+"/members/"+noMember, map[string]any{"name": "X"}), 404, "member_not_found")
		// Another project's organization, by its slug.
		mine := e.Project
		e.Project = e.NewProject("Someone Else's App")
		e.CreateOrg("initech", "NOT_ALLOWED", nil)
		e.Project = mine
		same("another project's", e.Backend(http.MethodGet, "/v1/b2b/organizations/initech", nil),
			e.Backend(http.MethodGet, "/v1/b2b/organizations/"+noOrg, nil), 404, "organization_not_found")
	})
}

func TestBackendQueryAndBodyTakeAliases(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex, _, grace := aliasOrgs(t, e)
		// Query: the member of GET .../member within the path's organization,
		// and both of sessions.get.
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/globex/member?member_id=emp-1", nil)
		if r.Status != 200 || r.Body["member_id"] != grace || orgIDOf(r) != globex {
			t.Errorf("GET organizations/globex/member?member_id=emp-1: %d %s", r.Status, r.Raw)
		}
		r = e.Backend(http.MethodGet, "/v1/b2b/sessions?"+url.Values{"organization_id": {"crm-acme"}, "member_id": {"emp-1"}}.Encode(), nil)
		apptest.Want(t, r, 200, "")
		// Body: organization_id and member_id of TOTP create.
		r = e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": "globex", "member_id": "emp-1"})
		if r.Status != 200 || r.Body["member_id"] != grace || orgIDOf(r) != globex {
			t.Errorf("POST totp {globex, emp-1}: %d %s", r.Status, r.Raw)
		}
		// Body: organization_id alone (an invite), by external id.
		r = e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite",
			map[string]any{"organization_id": "crm-acme", "email_address": "new@acme.test"})
		if m, _ := r.Body["member"].(map[string]any); r.Status != 200 || m["organization_id"] != acme {
			t.Errorf("invite into crm-acme: %d %s", r.Status, r.Raw)
		}
		// An unknown member in a body: member_not_found as for an id.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": "acme", "member_id": "emp-404"}),
			404, "member_not_found")
	})
}

// An alias is resolved before any authorization, so a member session is
// held to its own organization whichever way the request names another:
// acme's admin is refused globex by slug as by id, and grace (globex's
// emp-1) is not reachable through acme's admin either.
func TestBackendAliasCannotReachAnotherOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex, _, grace := aliasOrgs(t, e)
		token := e.SessionFor(acme, "ada@acme.test")
		as := func(method, path string, body any) apptest.Resp {
			return e.BackendAs(method, path, body, organization.MemberSessionHeader, token)
		}
		rename := map[string]any{"organization_name": "Renamed"}
		for _, ref := range []string{globex, "globex"} {
			apptest.Want(t, as(http.MethodPut, "/v1/b2b/organizations/"+ref, rename), 403, "tenancy_mismatch")
			apptest.Want(t, as(http.MethodPut, "/v1/b2b/organizations/"+ref+"/members/emp-1", map[string]any{"name": "X"}), 403, "tenancy_mismatch")
			apptest.Want(t, as(http.MethodPost, "/v1/b2b/magic_links/email/invite",
				map[string]any{"organization_id": ref, "email_address": "new@globex.test"}), 403, "tenancy_mismatch")
		}
		apptest.Want(t, as(http.MethodPut, "/v1/b2b/organizations/"+globex+"/members/"+grace, map[string]any{"name": "X"}), 403, "tenancy_mismatch")
		// A database written before slugs and external ids were one
		// namespace may hold "acme" as acme's slug and globex's external
		// id (put here straight in SQL). The external id wins, so it names
		// globex, which acme's admin may not touch.
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE organizations SET organization_external_id = 'acme' WHERE organization_id = $1`, globex); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, as(http.MethodPut, "/v1/b2b/organizations/acme", rename), 403, "tenancy_mismatch")
		for _, id := range []string{acme, globex} {
			if r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil); orgName(r) == "Renamed" {
				t.Errorf("%s was renamed: %s", id, r.Raw)
			}
		}
	})
}

func orgName(r apptest.Resp) any {
	o, _ := r.Body["organization"].(map[string]any)
	return o["organization_name"]
}

// Across the route kinds that name an organization or a member in the
// path (organizations, SSO, RBAC, connected apps, OAuth and OIDC
// providers, recovery codes, metrics), an alias answers exactly as the id:
// the same status, error type and body but for the request id.
func TestBackendAliasAnswersAsTheID(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, _, ada, _ := aliasOrgs(t, e)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": acme, "member_id": ada}), 200, "")
		for _, path := range []string{
			"/v1/b2b/organizations/{o}/metrics",
			"/v1/b2b/sso/{o}",
			"/v1/b2b/rbac/organizations/{o}",
			"/v1/b2b/organizations/{o}/connected_apps",
			"/v1/b2b/organizations/{o}/members/{m}/connected_apps",
			"/v1/b2b/organizations/{o}/members/{m}/oidc_providers",
			"/v1/b2b/organizations/{o}/members/{m}/oauth_providers/google",
			"/v1/b2b/recovery_codes/{o}/{m}",
			"/v1/b2b/organizations/{o}/member?member_id={m}",
		} {
			byID := e.Backend(http.MethodGet, strings.NewReplacer("{o}", acme, "{m}", ada).Replace(path), nil)
			byAlias := e.Backend(http.MethodGet, strings.NewReplacer("{o}", "crm-acme", "{m}", "emp-1").Replace(path), nil)
			delete(byID.Body, "request_id")
			delete(byAlias.Body, "request_id")
			if byID.ErrType() == "organization_not_found" || byID.ErrType() == "member_not_found" ||
				!reflect.DeepEqual(byID.Body, byAlias.Body) || byID.Status != byAlias.Status {
				t.Errorf("GET %s: by id %d %v, by alias %d %v", path, byID.Status, byID.Body, byAlias.Status, byAlias.Body)
			}
		}
	})
}

// GET .../organizations/{organization_id}/member reads its organization
// from the path only; a stray organization_id in the query must not
// change which organization the query's member alias is looked up in.
// An alias must answer as the id it stands for.
func TestQueryMemberAliasFollowsThePathsOrganization(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		acme, globex, ada, _ := aliasOrgs(t, e)
		byID := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?organization_id="+globex+"&member_id="+ada, nil)
		apptest.Want(t, byID, 200, "")
		byAlias := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+acme+"/member?organization_id="+globex+"&member_id=emp-1", nil)
		if byAlias.Status != byID.Status || byAlias.Body["member_id"] != ada {
			t.Fatalf("by id: %d %v; by external id: %d %s", byID.Status, byID.Body["member_id"], byAlias.Status, byAlias.Raw)
		}
	})
}
