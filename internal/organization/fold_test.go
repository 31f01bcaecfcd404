package organization_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/rbac"
)

// Organization name search folds case in any script alike on both
// engines (SQLite's LOWER() folds ASCII only).
func TestNameSearchFoldsEveryScript(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		e.CreateOrg("oel", "ALL_ALLOWED", map[string]any{"organization_name": "Ölwerk GmbH"})
		e.CreateOrg("ecole", "ALL_ALLOWED", map[string]any{"organization_name": "école Straße"})
		e.CreateOrg("greek", "ALL_ALLOWED", map[string]any{"organization_name": "ΟΔΥΣΣΕΥΣ Travel"})
		e.CreateOrg("plain", "ALL_ALLOWED", map[string]any{"organization_name": "Plain_100% Co"})
		search := func(q string) []string {
			return slugsOf(e, apptest.Query("AND", apptest.Filter("organization_name_fuzzy", q)))
		}
		for q, want := range map[string][]string{
			"Ölwerk": {"oel"}, "ölwerk": {"oel"}, "ÖLWERK": {"oel"}, "lWERK gm": {"oel"},
			"école": {"ecole"}, "ÉCOLE": {"ecole"}, "STRAßE": {"ecole"}, "straẞe": {"ecole"},
			"οδυσσευσ": {"greek"}, "Οδυσσευς": {"greek"}, "ΣΣΕ": {"greek"},
			"n_100%": {"plain"}, "n_1000": nil, "ecole": nil, "olwerk": nil,
		} {
			if got := search(q); !cmp.Equal(got, want) {
				t.Errorf("organization_name_fuzzy %q = %v, want %v", q, got, want)
			}
		}
		// A rename is folded again.
		apptest.Want(t, e.Backend(http.MethodPut, "/v1/b2b/organizations/"+e.CreateOrg("renamed", "ALL_ALLOWED", nil),
			map[string]any{"organization_name": "Ærøskøbing"}), 200, "")
		if got := search("ÆRØ"); !cmp.Equal(got, []string{"renamed"}) {
			t.Errorf("after rename: %v", got)
		}

		// Rows from before the folded column are folded by FoldNames,
		// which start-up runs after the migrations.
		db := e.App.Orgs.DB()
		if _, err := db.ExecContext(t.Context(), `UPDATE organizations SET organization_name_folded = NULL`); err != nil {
			t.Fatal(err)
		}
		if got := search("ölwerk"); got != nil {
			t.Fatalf("unfolded rows found: %v", got)
		}
		n, err := organization.FoldNames(t.Context(), db)
		if err != nil || n < 5 {
			t.Fatalf("FoldNames = %d, %v", n, err)
		}
		if got := search("ÖLWERK"); !cmp.Equal(got, []string{"oel"}) {
			t.Errorf("after FoldNames: %v", got)
		}
		if n, err := organization.FoldNames(t.Context(), db); err != nil || n != 0 {
			t.Errorf("second FoldNames = %d, %v", n, err)
		}
	})
}

// Role ids are case-sensitive: member_roles matches exactly on both
// engines (SQLite's LIKE ignores ASCII case).
func TestMemberRolesFilterIsExact(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		if _, err := e.App.RBAC.SetCustom(t.Context(), e.Project.Project.ID, rbac.Policy{Roles: []rbac.Role{
			{RoleID: "editor"}, {RoleID: "Editor"}}}); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("rc", "ALL_ALLOWED", nil)
		for email, roles := range map[string][]string{"low@rc.test": {"editor"}, "up@rc.test": {"Editor"},
			"none@rc.test": nil} {
			apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/organizations/"+org+"/members", map[string]any{"email_address": email, "roles": roles}), 200, "")
		}
		for role, want := range map[string][]string{"Editor": {"up@rc.test"}, "editor": {"low@rc.test"}, "EDITOR": nil} {
			got, r := e.EmailsOf(map[string]any{"organization_ids": []string{org}, "query": map[string]any{"operator": "AND",
				"operands": []any{apptest.Filter("member_roles", []string{role})}}})
			apptest.Want(t, r, 200, "")
			if !cmp.Equal(got, want) {
				t.Errorf("member_roles [%s] = %v, want %v", role, got, want)
			}
		}
	})
}
