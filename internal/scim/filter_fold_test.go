package scim_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/scim"
)

// Attributes that are not caseExact compare folded by the server, in any
// script, so SQLite (whose lower() folds ASCII only) and PostgreSQL
// (whose lower() follows the database's locale) find the same users, as
// Okta's and Entra's lookups by name, displayName or an email's type
// expect; caseExact ones (id, externalId) stay exact.
func TestUserFiltersFoldEveryScript(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "jm@acme.test", "externalId": "EXT-JM",
			"displayName": "JOSÉ MÜLLER", "title": "CTO", "name": map[string]any{"givenName": "JOSÉ", "familyName": "MÜLLER"},
			"emails":    []any{map[string]any{"value": "jm@acme.test", "type": "büro", "primary": true}},
			"addresses": []any{map[string]any{"locality": "ZÜRICH", "type": "work"}},
			"urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": map[string]any{"department": "FORSCHUNG & ÉTUDES"}})
		wantSCIM(t, r, 201, "")
		jm := r.Body["id"].(string)
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "other@acme.test", "displayName": "Muller",
			"name": map[string]any{"familyName": "Muller"}}), 201, "")

		found := func(filter string) bool {
			t.Helper()
			names := listNames(t, do, "Users", "userName", "filter="+url.QueryEscape(filter))
			return slices.Contains(names, "jm@acme.test")
		}
		for filter, want := range map[string]bool{
			`name.familyName eq "müller"`: true,
			`displayName co "josé"`:       true,
			`emails[type eq "BÜRO"]`:      true,
			`emails.type eq "Büro"`:       true,
			`addresses[locality sw "zü"]`: true,
			`name.givenName ew "É"`:       true,
			`urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department co "études"`: true,
			`title eq "cto"`:                              true, // ASCII case, as before
			`emails[type eq "buro"]`:                      false,
			`name.familyName eq "muller"`:                 false,
			`emails[type eq "BÜRO" and primary eq false]`: false,
			`externalId eq "ext-jm"`:                      false, // caseExact
			`externalId eq "EXT-JM"`:                      true,
			`id eq "` + strings.ToUpper(jm) + `"`:         false, // caseExact
			`id eq "` + jm + `"`:                          true,
		} {
			if got := found(filter); got != want {
				t.Errorf("%s: found %v, want %v", filter, got, want)
			}
		}

		// A PATCH folds again.
		wantSCIM(t, do(http.MethodPatch, "/Users/"+jm, patch(map[string]any{"op": "replace", "path": "name.familyName", "value": "ØSTERGÅRD"})), 200, "")
		if !found(`name.familyName eq "østergård"`) || found(`name.familyName eq "müller"`) {
			t.Errorf("after PATCH: the folded copy is stale")
		}

		// Registrations written before the folded column are folded by
		// FoldAttributes, which start-up runs after the migrations.
		db := e.App.Orgs.DB()
		if _, err := db.ExecContext(t.Context(), `UPDATE scim_registrations SET attributes_folded = NULL`); err != nil {
			t.Fatal(err)
		}
		if found(`displayName co "josé"`) {
			t.Fatal("an unfolded registration was found")
		}
		n, err := scim.FoldAttributes(t.Context(), db)
		if err != nil || n != 2 {
			t.Fatalf("FoldAttributes = %d, %v", n, err)
		}
		if !found(`displayName co "josé"`) || !found(`name.familyName eq "østergård"`) {
			t.Errorf("after FoldAttributes: not found")
		}
		if n, err := scim.FoldAttributes(t.Context(), db); err != nil || n != 0 {
			t.Errorf("second FoldAttributes = %d, %v", n, err)
		}
	})
}
