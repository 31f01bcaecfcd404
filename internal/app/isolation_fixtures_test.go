package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/store"
)

// canary is in every name the victim's data carries: no answer given to
// another tenant may hold it.
const canary = "Canary"

// victim is organization A of project A and the project-wide objects of
// project A: what the isolation sweep aims every foreign credential at.
type victim struct {
	project                  *project.Created
	org, admin, member       string
	adminSession, adminJWT   string
	memberEmail, passwordID  string
	saml, oidc               string
	scim, scimToken          string
	scimUser, scimGroup      string
	m2m, m2mSecret, m2mToken string
	app                      string
	keys                     []string // every id above: rows holding one are the victim's
	projectKeys              []string // project A's id: its project-wide rows
}

// intruder is a tenant that holds credentials of its own: an organization
// of project A (its admin's session, its own SCIM connection) or of project
// B (its secret, public token, session, SCIM token and M2M client).
type intruder struct {
	env                   *apptest.Env // the server as this tenant's project sees it
	org, admin            string
	session, jwt          string
	scim, scimToken       string
	m2m, m2mSecret, token string
	round                 int
}

// isolationPolicy gives project A a custom role so organizations can hold
// their own roles.
var isolationPolicy = rbac.Policy{
	Resources: []rbac.Resource{{ResourceID: "documents", Description: "Documents", Actions: []string{"read", "write"}}},
	Roles:     []rbac.Role{{RoleID: "editor", Description: "Edits", Permissions: []rbac.Permission{{ResourceID: "documents", Actions: []string{"*"}}}}},
}

func must(t *testing.T, r apptest.Resp, what string) apptest.Resp {
	t.Helper()
	if r.Status != 200 && r.Status != 201 {
		t.Fatalf("isolation fixture: %s: %d %s", what, r.Status, r.Raw)
	}
	return r
}

func obj(r apptest.Resp, key, field string) string {
	m, _ := r.Body[key].(map[string]any)
	s, _ := m[field].(string)
	return s
}

func scimCall(e *apptest.Env, method, conn, path, token string, body any) apptest.Resp {
	e.T.Helper()
	return e.Do(method, "/v1/b2b/scim/"+conn+path, body,
		http.Header{"Content-Type": {"application/scim+json"}, "Authorization": {"Bearer " + token}}, "", "")
}

func m2mToken(e *apptest.Env, p *project.Created, id, secret string) apptest.Resp {
	e.T.Helper()
	v := url.Values{"grant_type": {"client_credentials"}}
	return e.Do(http.MethodPost, "/v1/public/"+p.Project.ID+"/oauth2/token", v.Encode(),
		http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, id, secret)
}

// newVictim builds organization A of e's project with one of everything.
func newVictim(t *testing.T, e *apptest.Env) *victim {
	t.Helper()
	if _, err := e.App.RBAC.SetCustom(context.Background(), e.Project.Project.ID, isolationPolicy); err != nil {
		t.Fatalf("isolation fixture: policy: %v", err)
	}
	v := &victim{project: e.Project, memberEmail: "vmember@victim.test"}
	v.org = e.CreateOrg("victim", "ALL_ALLOWED", map[string]any{"organization_name": "Victim " + canary + " Corp"})
	v.admin = e.CreateAdmin(v.org, "vadmin@victim.test")
	v.adminSession, v.adminJWT, _ = e.Login(v.org, "vadmin@victim.test")
	v.member = e.CreateVerifiedMember(v.org, v.memberEmail)
	orgPath := "/v1/b2b/organizations/" + v.org
	must(t, e.Backend(http.MethodPut, orgPath+"/members/"+v.member, map[string]any{"name": "Member " + canary}), "member name")
	e.SetPassword(v.org, v.memberEmail, "victim canary horse battery 42!")
	v.passwordID = e.PasswordID(v.org, v.member)
	must(t, e.Backend(http.MethodPost, "/v1/b2b/totp", map[string]any{"organization_id": v.org, "member_id": v.member}), "totp")
	must(t, e.Backend(http.MethodPut, "/v1/b2b/rbac/organizations/"+v.org, map[string]any{"org_policy": map[string]any{"roles": []any{
		map[string]any{"role_id": "reviewer", "description": "Reviews " + canary, "permissions": []any{
			map[string]any{"resource_id": "documents", "actions": []string{"read"}}}}}}}), "org roles")
	v.saml = obj(must(t, e.Backend(http.MethodPost, "/v1/b2b/sso/saml/"+v.org, map[string]any{"display_name": "SAML " + canary}), "saml"), "connection", "connection_id")
	v.oidc = obj(must(t, e.Backend(http.MethodPost, "/v1/b2b/sso/oidc/"+v.org, map[string]any{"display_name": "OIDC " + canary}), "oidc"), "connection", "connection_id")
	r := must(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+v.org+"/connection", map[string]any{"display_name": "SCIM " + canary}), "scim")
	v.scim, v.scimToken = obj(r, "connection", "connection_id"), obj(r, "connection", "bearer_token")
	u := must(t, scimCall(e, http.MethodPost, v.scim, "/Users", v.scimToken, map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:User"}, "userName": "scim@victim.test",
		"name": map[string]any{"givenName": canary}, "emails": []any{map[string]any{"value": "scim@victim.test", "primary": true}}, "active": true}), "scim user")
	v.scimUser, _ = u.Body["id"].(string)
	g := must(t, scimCall(e, http.MethodPost, v.scim, "/Groups", v.scimToken, map[string]any{
		"schemas": []string{"urn:ietf:params:scim:schemas:core:2.0:Group"}, "displayName": "Group " + canary}), "scim group")
	v.scimGroup, _ = g.Body["id"].(string)
	r = must(t, e.Backend(http.MethodPost, "/v1/m2m/clients", map[string]any{"client_name": "M2M " + canary, "scopes": []string{"read:documents"}}), "m2m")
	v.m2m, v.m2mSecret = obj(r, "m2m_client", "client_id"), obj(r, "m2m_client", "client_secret")
	v.m2mToken, _ = must(t, m2mToken(e, e.Project, v.m2m, v.m2mSecret), "m2m token").Body["access_token"].(string)
	v.app = obj(must(t, e.Backend(http.MethodPost, "/v1/connected_apps/clients", map[string]any{"client_type": "first_party",
		"client_name": "App " + canary}), "connected app"), "connected_app", "client_id")
	v.keys = []string{v.org, v.admin, v.member, v.passwordID, v.saml, v.oidc, v.scim, v.scimUser, v.scimGroup, v.m2m, v.app}
	v.projectKeys = []string{e.Project.Project.ID}
	for _, k := range v.keys {
		if k == "" {
			t.Fatalf("isolation fixture: an id is missing: %q", v.keys)
		}
	}
	return v
}

// as returns e as seen by project p: the same server and database.
func as(e *apptest.Env, p *project.Created) *apptest.Env {
	o := e.Browser()
	o.Project = p
	return o
}

// ensure keeps the intruder's admin session usable: a fresh JWT for it, or,
// when a route it called ended it (a revoke), a new admin's session, and
// first its organization and own SCIM connection again when a route
// deleted them. The clock stands still, so step-up routes take the
// session as recent.
func (in *intruder) ensure(t *testing.T, name string, withM2M bool) {
	t.Helper()
	e := in.env
	if in.session != "" {
		if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": in.session}); r.Status == 200 {
			in.jwt, _ = r.Body["session_jwt"].(string)
			return
		}
	}
	in.round++
	if in.org == "" || e.Backend(http.MethodGet, "/v1/b2b/organizations/"+in.org, nil).Status != 200 {
		in.org = e.CreateOrg(fmt.Sprintf("%s-%d", name, in.round), "ALL_ALLOWED", nil)
		r := must(t, e.Backend(http.MethodPost, "/v1/b2b/scim/"+in.org+"/connection", map[string]any{"display_name": "Intruder"}), "intruder scim")
		in.scim, in.scimToken = obj(r, "connection", "connection_id"), obj(r, "connection", "bearer_token")
	}
	email := fmt.Sprintf("boss%d@%s.test", in.round, name)
	in.admin = e.CreateAdmin(in.org, email)
	in.session, in.jwt, _ = e.Login(in.org, email)
	if withM2M && in.m2m == "" {
		r := must(t, e.Backend(http.MethodPost, "/v1/m2m/clients", map[string]any{"client_name": "Intruder", "scopes": []string{"read"}}), "intruder m2m")
		in.m2m, in.m2mSecret = obj(r, "m2m_client", "client_id"), obj(r, "m2m_client", "client_secret")
		in.token, _ = must(t, m2mToken(e, e.Project, in.m2m, in.m2mSecret), "intruder m2m token").Body["access_token"].(string)
	}
}

// noiseTables change on any request, whoever makes it: logs, counters of
// requests per client and the change feed. They hold no tenant's data.
var noiseTables = map[string]bool{"audit_events": true, "events": true, "changes": true, "rate_limits": true,
	"dev_outbox": true, "mail_queue": true, "changefeed_triggers": true, "encryption_key_check": true,
	"schema_migrations": true, "migrations": true}

// projectTables hold project A's project-wide settings: any row of theirs
// naming project A is the victim's.
var projectTables = map[string]bool{"projects": true, "project_origins": true, "project_public_tokens": true,
	"project_redirect_urls": true, "project_secrets": true, "rbac_policies": true, "idp_settings": true,
	"session_migration_settings": true, "oauth_provider_configs": true, "signing_keys": true,
	"trusted_auth_token_profiles": true}

// snapshot is every row that is the victim's, by table: rows holding one
// of the victim's ids, and project A's project-wide rows (projectTables).
func snapshot(t *testing.T, db *store.DB, v *victim) map[string][]string {
	t.Helper()
	ctx := context.Background()
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if db.Dialect() == store.Postgres {
		q = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
	}
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("snapshot: tables: %v", err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		if !noiseTables[n] {
			tables = append(tables, n)
		}
	}
	rows.Close()
	out := map[string][]string{}
	for _, tb := range tables {
		rs, err := db.QueryContext(ctx, "SELECT * FROM "+tb)
		if err != nil {
			t.Fatalf("snapshot: %s: %v", tb, err)
		}
		cols, _ := rs.Columns()
		projectWide := projectTables[tb]
		for rs.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rs.Scan(ptrs...); err != nil {
				t.Fatalf("snapshot: %s: %v", tb, err)
			}
			parts := make([]string, len(cols))
			for i, c := range cols {
				val := vals[i]
				if b, ok := val.([]byte); ok {
					val = string(b)
				}
				parts[i] = fmt.Sprintf("%s=%v", c, val)
			}
			row := strings.Join(parts, " ")
			keys := v.keys
			if projectWide {
				keys = append(slices.Clone(keys), v.projectKeys...)
			}
			if slices.ContainsFunc(keys, func(k string) bool { return strings.Contains(row, k) }) {
				out[tb] = append(out[tb], row)
			}
		}
		rs.Close()
		sort.Strings(out[tb])
	}
	return out
}

// changed describes how after differs from before, or "".
func changed(before, after map[string][]string) string {
	var out []string
	for _, tb := range slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for k := range before {
			seen[k] = true
		}
		for k := range after {
			seen[k] = true
		}
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}) {
		b, a := before[tb], after[tb]
		if slices.Equal(a, b) {
			continue
		}
		for _, r := range b {
			if !slices.Contains(a, r) {
				out = append(out, "  - "+tb+": "+trunc(r, 400))
			}
		}
		for _, r := range a {
			if !slices.Contains(b, r) {
				out = append(out, "  + "+tb+": "+trunc(r, 400))
			}
		}
	}
	return strings.Join(out, "\n")
}
