package scim_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
)

// A user's groups are listed by name in code point order on both
// engines, whatever PostgreSQL's collation: here the column takes a
// linguistic one (ICU's English), as a database created with such a
// locale gives every column.
func TestUserGroupsOrderByCodePoint(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		db := e.App.Orgs.DB()
		if db.Dialect() == store.Postgres {
			if _, err := db.ExecContext(t.Context(), `ALTER TABLE scim_groups ALTER COLUMN display_name TYPE TEXT COLLATE "en-x-icu"`); err != nil {
				t.Fatal(err)
			}
		}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		names := []string{"b", "Ä", "_z", "a-c", "ab", "C"}
		for _, n := range names {
			wantSCIM(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": n,
				"members": []any{map[string]any{"value": uid}}}), 201, "")
		}
		r = do(http.MethodGet, "/Users/"+uid, nil)
		wantSCIM(t, r, 200, "")
		var got []string
		for _, g := range r.Body["groups"].([]any) {
			got = append(got, g.(map[string]any)["display"].(string))
		}
		slices.Sort(names) // Go compares strings by bytes: UTF-8's code point order
		if !slices.Equal(got, names) {
			t.Errorf("groups in order %q, want %q", got, names)
		}
	})
}
