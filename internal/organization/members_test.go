package organization_test

import (
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

func TestMemberLifecycle(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		path := "/v1/b2b/organizations/" + org + "/members/"

		// pending -> active by logging in with the email.
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "pat@acme.test", "create_member_as_pending": true})
		pat := r.Body["member_id"].(string)
		if m := r.Body["member"].(map[string]any); m["status"] != "pending" || m["email_address_verified"] != false {
			t.Fatalf("pending member: %s", r.Raw)
		}
		e.SessionFor(org, "pat@acme.test")
		if m := e.MemberByID(org, pat); m["status"] != "active" || m["email_address_verified"] != true {
			t.Fatalf("after login: %v", m)
		}

		// active -> deleted: sessions end, logins and updates are refused.
		token := e.SessionFor(org, "pat@acme.test")
		r = e.Backend(http.MethodDelete, path+pat, nil)
		if r.Status != 200 || r.Body["member_id"] != pat {
			t.Fatalf("delete: %s", r.Raw)
		}
		if m := e.MemberByID(org, pat); m["status"] != "deleted" {
			t.Fatalf("after delete: %v", m)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 404, "session_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup",
			map[string]any{"email_address": "pat@acme.test", "organization_id": org}), 403, "inactive_member")
		apptest.Want(t, e.Backend(http.MethodPut, path+pat, map[string]any{"name": "Pat"}), 403, "inactive_member")
		if r := e.Backend(http.MethodDelete, path+pat, nil); r.Status != 200 {
			t.Fatalf("deleting twice: %s", r.Raw)
		}

		// deleted -> active by reactivation; old sessions stay revoked.
		r = e.Backend(http.MethodPut, path+pat+"/reactivate", nil)
		if r.Status != 200 || r.Body["member"].(map[string]any)["status"] != "active" || r.Body["organization"] == nil {
			t.Fatalf("reactivate: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, path+pat+"/reactivate", nil), 400, "no_deleted_member_found_for_reactivation")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 404, "session_not_found")
		if e.SessionFor(org, "pat@acme.test") == "" {
			t.Fatal("no session after reactivation")
		}
		apptest.Want(t, e.Backend(http.MethodPut, path+"member-test-nope/reactivate", nil), 404, "member_not_found")
		apptest.Want(t, e.Backend(http.MethodDelete, path+"member-test-nope", nil), 404, "member_not_found")
	})
}

func TestMemberUpdateAndGet(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		id := e.CreateMember(org, "ada@acme.test")
		e.CreateMember(org, "taken@acme.test")
		path := "/v1/b2b/organizations/" + org + "/members/" + id

		r := e.Backend(http.MethodPut, path, map[string]any{"name": " Ada L ", "trusted_metadata": map[string]any{"tier": 1},
			"untrusted_metadata": map[string]any{"theme": "dark"}, "is_breakglass": true, "is_admin": true})
		m := r.Body["member"].(map[string]any)
		if r.Status != 200 || m["name"] != "Ada L" || m["is_breakglass"] != true || m["is_admin"] != true ||
			m["trusted_metadata"].(map[string]any)["tier"] != float64(1) || m["untrusted_metadata"].(map[string]any)["theme"] != "dark" {
			t.Fatalf("update: %s", r.Raw)
		}
		if roles := roleIDs(m); !slices.Equal(roles, []string{"stytch_admin", "stytch_member"}) {
			t.Fatalf("admin roles = %v", roles)
		}
		// roles is the other spelling of is_admin. stytch_member is
		// everyone's and cannot be assigned (cannot_assign_default_rbac_role_id).
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"roles": []string{"stytch_member"}}), 400, "cannot_assign_default_rbac_role_id")
		r = e.Backend(http.MethodPut, path, map[string]any{"roles": []string{}})
		if m := r.Body["member"].(map[string]any); m["is_admin"] != false || !slices.Equal(roleIDs(m), []string{"stytch_member"}) {
			t.Fatalf("roles update: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"roles": []string{"billing"}}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"roles": []string{"stytch_admin"}, "is_admin": false}), 400, "invalid_request")

		// A new email is unverified; a taken one is refused.
		e.SessionFor(org, "ada@acme.test")
		r = e.Backend(http.MethodPut, path, map[string]any{"email_address": "Ada.New@Acme.test"})
		if m := r.Body["member"].(map[string]any); m["email_address"] != "ada.new@acme.test" || m["email_address_verified"] != false {
			t.Fatalf("email change: %s", r.Raw)
		}
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"email_address": "taken@acme.test"}), 400, "duplicate_member_email")
		apptest.Want(t, e.Backend(http.MethodPut, path, map[string]any{"email_address": "nope"}), 400, "invalid_email")

		// Members are addressed within their organization only.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+other+"/members/"+id, map[string]any{"name": "x"}), 404, "member_not_found")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+other+"/members/"+id, nil), 404, "member_not_found")

		// dangerously_get finds a member by id alone, in this project only.
		r = e.Backend(http.MethodGet, "/v1/b2b/organizations/members/dangerously_get/"+id, nil)
		if r.Status != 200 || r.Body["member_id"] != id || r.Body["organization"].(map[string]any)["organization_id"] != org {
			t.Fatalf("dangerously_get: %s", r.Raw)
		}
		proj := e.NewProject("Elsewhere")
		apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/members/dangerously_get/"+id, nil, nil, proj.Project.ID, proj.Secret), 404, "member_not_found")
		apptest.Want(t, e.Do(http.MethodPut, path, map[string]any{"name": "x"}, nil, proj.Project.ID, proj.Secret), 404, "organization_not_found")
	})
}

func roleIDs(m map[string]any) []string {
	var out []string
	for _, r := range m["roles"].([]any) {
		out = append(out, r.(map[string]any)["role_id"].(string))
	}
	sort.Strings(out)
	return out
}

func TestMemberSearch(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		a := e.CreateOrg("alpha", "NOT_ALLOWED", nil)
		b := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		mk := func(org string, body map[string]any) string {
			r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", body)
			if r.Status != 200 {
				t.Fatalf("create member: %s", r.Raw)
			}
			e.Clock.Advance(time.Millisecond)
			return r.Body["member_id"].(string)
		}
		ada := mk(a, map[string]any{"email_address": "ada@alpha.test", "is_admin": true})
		mk(a, map[string]any{"email_address": "bob@alpha.test", "is_breakglass": true})
		mk(a, map[string]any{"email_address": "carol@alpha.test", "create_member_as_pending": true})
		if r := e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite", map[string]any{"organization_id": a, "email_address": "dave@alpha.test"}); r.Status != 200 {
			t.Fatalf("invite: %s", r.Raw)
		}
		e.Clock.Advance(time.Millisecond)
		eve := mk(a, map[string]any{"email_address": "eve@alpha.test"})
		e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+a+"/members/"+eve, nil)
		mk(b, map[string]any{"email_address": "frank@beta.test"})

		inA := func(q map[string]any) map[string]any {
			q["organization_ids"] = []string{a}
			return q
		}
		live := []string{"ada@alpha.test", "bob@alpha.test", "carol@alpha.test", "dave@alpha.test"}
		tests := []struct {
			name string
			body map[string]any
			want []string
		}{
			{"all live members", inA(map[string]any{}), live},
			{"member_ids", inA(apptest.Query("AND", apptest.Filter("member_ids", []string{ada, eve}))), []string{"ada@alpha.test"}},
			{"member_emails", inA(apptest.Query("AND", apptest.Filter("member_emails", []string{"BOB@alpha.test"}))), []string{"bob@alpha.test"}},
			{"member_email_fuzzy", inA(apptest.Query("AND", apptest.Filter("member_email_fuzzy", "AROL@"))), []string{"carol@alpha.test"}},
			{"member_is_breakglass", inA(apptest.Query("AND", apptest.Filter("member_is_breakglass", true))), []string{"bob@alpha.test"}},
			{"statuses", inA(apptest.Query("AND", apptest.Filter("statuses", []string{"pending", "invited"}))), []string{"carol@alpha.test", "dave@alpha.test"}},
			{"statuses finds deleted", inA(apptest.Query("AND", apptest.Filter("statuses", []string{"deleted"}))), []string{"eve@alpha.test"}},
			{"member_roles admin", inA(apptest.Query("AND", apptest.Filter("member_roles", []string{"stytch_admin"}))), []string{"ada@alpha.test"}},
			{"member_roles member", inA(apptest.Query("AND", apptest.Filter("member_roles", []string{"stytch_member"}))), live},
			{"member_roles unknown", inA(apptest.Query("AND", apptest.Filter("member_roles", []string{"auditor"}))), nil},
			{"member_password_exists false", inA(apptest.Query("AND", apptest.Filter("member_password_exists", false))), live},
			{"member_password_exists true", inA(apptest.Query("AND", apptest.Filter("member_password_exists", true))), nil},
			{"member_mfa_phone_numbers", inA(apptest.Query("AND", apptest.Filter("member_mfa_phone_numbers", []string{"+14155552671"}))), nil},
			{"AND", inA(apptest.Query("AND", apptest.Filter("member_email_fuzzy", "alpha"), apptest.Filter("statuses", []string{"active"}))), []string{"ada@alpha.test", "bob@alpha.test"}},
			{"OR", inA(apptest.Query("OR", apptest.Filter("member_is_breakglass", true), apptest.Filter("member_roles", []string{"stytch_admin"}))), []string{"ada@alpha.test", "bob@alpha.test"}},
			{"only the named organizations", inA(apptest.Query("AND", apptest.Filter("member_email_fuzzy", "frank"))), nil},
			{"two organizations", map[string]any{"organization_ids": []string{a, b}, "query": map[string]any{"operator": "OR",
				"operands": []any{apptest.Filter("member_email_fuzzy", "frank"), apptest.Filter("member_ids", []string{ada})}}}, []string{"ada@alpha.test", "frank@beta.test"}},
		}
		for _, tc := range tests {
			if got, _ := e.EmailsOf(tc.body); !slices.Equal(got, tc.want) {
				t.Errorf("%s: got %v, want %v", tc.name, got, tc.want)
			}
		}

		// The response maps each returned member's organization.
		_, r := e.EmailsOf(map[string]any{"organization_ids": []string{a, b}, "limit": 10})
		orgs := r.Body["organizations"].(map[string]any)
		if len(orgs) != 2 || orgs[a].(map[string]any)["organization_slug"] != "alpha" || orgs[b].(map[string]any)["organization_slug"] != "beta" {
			t.Fatalf("organizations map: %s", r.Raw)
		}

		// Paging in creation order across pages.
		var seen []string
		body := map[string]any{"organization_ids": []string{a}, "limit": 3}
		for i := 0; ; i++ {
			got, r := e.EmailsOf(body)
			seen = append(seen, got...)
			meta := r.Body["results_metadata"].(map[string]any)
			if meta["total"] != float64(4) {
				t.Fatalf("total = %v", meta["total"])
			}
			if meta["next_cursor"] == nil {
				break
			}
			if i > 3 {
				t.Fatal("paging does not end")
			}
			body["cursor"] = meta["next_cursor"]
		}
		sort.Strings(seen)
		if !slices.Equal(seen, live) {
			t.Fatalf("paged members = %v", seen)
		}

		// organization_ids is required and bounded to the project.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{}), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{"organization-test-x"}}),
			404, "organization_not_found")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", inA(apptest.Query("AND", apptest.Filter("member_is_breakglass", "yes")))),
			400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/members/search", inA(apptest.Query("AND", apptest.Filter("statuses", []string{"asleep"})))),
			400, "invalid_request")
		proj := e.NewProject("Elsewhere")
		apptest.Want(t, e.Do(http.MethodPost, "/v1/b2b/organizations/members/search", map[string]any{"organization_ids": []string{a}}, nil,
			proj.Project.ID, proj.Secret), 404, "organization_not_found")
	})
}

// A member's name is capped at MaxNameLength characters on every path
// that creates one (the backend and SDK member routes, invites), as it is
// on update: a name accepted at creation could otherwise never be sent
// back unchanged. The limit counts characters, not bytes.
func TestMemberNameLimitOnCreation(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateAdmin(org, "admin@acme.test")
		admin := e.SessionFor(org, "admin@acme.test")
		long := strings.Repeat("n", organization.MaxNameLength+1)
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "long@acme.test", "name": long}), 400, "invalid_request")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/members",
			map[string]any{"email_address": "long@acme.test", "name": long}, admin), 400, "invalid_request")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite",
			map[string]any{"organization_id": org, "email_address": "long@acme.test", "name": long}), 400, "invalid_request")
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1`, "long@acme.test"); n != 0 {
			t.Fatalf("%d members created with a name over the limit", n)
		}
		// At the limit, in a script of several bytes per character: kept,
		// and the same name sent back in an update is accepted.
		name := strings.Repeat("名", organization.MaxNameLength)
		r := e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members",
			map[string]any{"email_address": "kanji@acme.test", "name": name})
		apptest.Want(t, r, 200, "")
		id := r.Body["member_id"].(string)
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+org+"/members/"+id, map[string]any{"name": name}), 200, "")
	})
}

// A name that comes from an identity provider at a just-in-time signup
// (ProvisionMember) is cut to MaxNameLength rather than refused: the
// person cannot change it here, and the login must not fail over it.
// passwords/migrate, whose caller names the member, refuses it.
func TestProvisionedNameIsCutToTheLimit(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		orgID := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		org, err := e.App.Orgs.Get(t.Context(), e.Project.Project.ID, orgID)
		if err != nil {
			t.Fatal(err)
		}
		long := strings.Repeat("名", organization.MaxNameLength) + " tail"
		m, created, err := e.App.Orgs.ProvisionMember(t.Context(), e.App.DB, org, e.Project.Project.Env,
			organization.NewMember{Email: "jit@acme.test", Name: long, Status: organization.StatusActive})
		if err != nil || !created {
			t.Fatalf("provision: %v (created %v)", err, created)
		}
		if m.Name != strings.Repeat("名", organization.MaxNameLength) {
			t.Fatalf("name kept %d characters, want %d", len([]rune(m.Name)), organization.MaxNameLength)
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/passwords/migrate", map[string]any{"organization_id": orgID,
			"email_address": "imported@acme.test", "hash_type": "bcrypt", "name": long,
			"hash": "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"})
		apptest.Want(t, r, 400, "invalid_request")
		if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "name") {
			t.Fatalf("migrate refused for another reason: %s", r.Raw)
		}
	})
}
