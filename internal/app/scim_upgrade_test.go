package app_test

import (
	"errors"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/latchkey/latchkey/internal/app"
	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/clientsecret"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// sourcesUpTo is app.Migrations with module's files cut after version
// last: the schema a release before the later ones left.
func sourcesUpTo(t *testing.T, module, last string) []store.Source {
	t.Helper()
	var out []store.Source
	for _, s := range app.Migrations() {
		if s.Name == module {
			kept := fstest.MapFS{}
			entries, err := fs.ReadDir(s.FS, ".")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if e.Name() <= last+"~" {
					b, err := fs.ReadFile(s.FS, e.Name())
					if err != nil {
						t.Fatal(err)
					}
					kept[e.Name()] = &fstest.MapFile{Data: b}
				}
			}
			s.FS = kept
		}
		out = append(out, s)
	}
	return out
}

// A database whose SCIM groups predate the folded group name key
// (scim migration 0003) upgrades on both engines whatever its group
// names: names that differ only in case were allowed then (the name's
// index was case-exact), and the key is folded by the server, not by SQL
// (whose lower() folds ASCII only on SQLite and per locale on PostgreSQL).
// Of groups that now share a key, the oldest keeps it and the others get
// a distinct one, so both still exist and the identity provider can rename
// or delete them; from then on the key is unique.
func TestSCIMGroupNamesUpgrade(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := t.Context()
		if err := db.Migrate(ctx, sourcesUpTo(t, "scim", "0002")...); err != nil {
			t.Fatal(err)
		}
		exec := func(q string, args ...any) {
			t.Helper()
			if _, err := db.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		const project, token = "project-test-00000000-0000-4000-8000-000000000001", "upgrade-token-0123456789"
		exec(`INSERT INTO projects (project_id, name, env, created_at) VALUES ($1, 'Old', 'test', 1)`, project)
		pair := clientsecret.FromPlain(token)
		groups := map[string][]string{ // connection: its groups' names, oldest first
			"a": {"ÉQUIPE"},                                    // (a) keyed "Équipe" by SQLite's lower()
			"b": {"équipe", "ÉQUIPE"},                          // (b) one key under PostgreSQL's lower()
			"c": {"Engineering", "engineering", "ENGINEERING"}, // (c) one key on both engines
		}
		conn := func(c string) string { return "scim-connection-test-00000000-0000-4000-8000-00000000000" + c }
		gid := func(c string, i int) string {
			return "scim-group-test-" + c + "0000000-0000-4000-8000-00000000000" + string(rune('0'+i))
		}
		for c, names := range groups {
			org := "organization-test-00000000-0000-4000-8000-00000000000" + c
			exec(`INSERT INTO organizations (organization_id, project_id, organization_name, organization_slug, created_at, updated_at)
				VALUES ($1, $2, $3, $3, 1, 1)`, org, project, "org-"+c)
			exec(`INSERT INTO scim_connections (connection_id, project_id, organization_id, display_name, identity_provider,
				token_hash, token_last_four, token_expires_at, created_at, updated_at) VALUES ($1, $2, $3, 'IdP', 'okta', $4, $5,
				4102444800000, 1, 1)`, conn(c), project, org, pair.Hash, pair.LastFour)
			for i, name := range names {
				// The later group of (c) is older by id but newer by creation:
				// creation decides.
				exec(`INSERT INTO scim_groups (group_id, connection_id, organization_id, display_name, created_at, updated_at)
					VALUES ($1, $2, $3, $4, $5, $5)`, gid(c, 9-i), conn(c), org, name, 1000*(i+1))
			}
		}

		if err := app.MigrateDB(ctx, db); err != nil {
			t.Fatalf("upgrade: %v", err)
		}
		keys := map[string]string{}
		rows, err := db.Read().QueryContext(ctx, `SELECT group_id, display_name, display_name_key FROM scim_groups`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, name, key string
			if err := rows.Scan(&id, &name, &key); err != nil {
				t.Fatal(err)
			}
			keys[id] = key
		}
		rows.Close()
		if len(keys) != 6 {
			t.Fatalf("%d groups after the upgrade, want 6: %v", len(keys), keys)
		}
		for c, names := range groups {
			seen := map[string]bool{}
			for i, name := range names {
				k := keys[gid(c, 9-i)]
				if want := strings.ToLower(name); (i == 0) != (k == want) {
					t.Errorf("connection %s: group %q (%d oldest) has key %q", c, name, i, k)
				}
				if seen[k] || k == "" {
					t.Errorf("connection %s: key %q repeated or empty", c, k)
				}
				seen[k] = true
			}
		}
		if err := app.MigrateDB(ctx, db); err != nil {
			t.Fatalf("second start: %v", err)
		}

		// The key is unique now.
		_, err = db.ExecContext(ctx, `INSERT INTO scim_groups (group_id, connection_id, organization_id, display_name,
			display_name_key, created_at, updated_at) SELECT 'dup', connection_id, organization_id, 'Équipe', 'équipe', 1, 1
			FROM scim_connections WHERE connection_id = $1`, conn("a"))
		if !errors.Is(err, store.ErrConflict) {
			t.Fatalf("a second key of a connection: %v", err)
		}

		// The SCIM service finds the groups by any case of their names.
		e := apptest.New(t, db, nil)
		do := func(method, c, path string, body any) apptest.Resp {
			h := http.Header{"Content-Type": {"application/scim+json"}, "Authorization": {"Bearer " + token}}
			return e.Do(method, "/v1/b2b/scim/"+conn(c)+path, body, h, "", "")
		}
		ids := func(c, filter string) []string {
			t.Helper()
			r := do(http.MethodGet, c, "/Groups?filter="+url.QueryEscape(filter), nil)
			apptest.Want(t, r, 200, "")
			var out []string
			for _, g := range r.Body["Resources"].([]any) {
				out = append(out, g.(map[string]any)["id"].(string))
			}
			return out
		}
		if got := ids("a", `displayName eq "équipe"`); !slices.Equal(got, []string{gid("a", 9)}) {
			t.Errorf("(a) by équipe: %v", got)
		}
		apptest.Want(t, do(http.MethodPost, "a", "/Groups", map[string]any{"displayName": "équipe"}), 409, "")
		if got := ids("b", `displayName eq "ÉQUIPE"`); !slices.Equal(got, []string{gid("b", 9)}) {
			t.Errorf("(b) by ÉQUIPE: %v", got)
		}
		if got := ids("c", `displayName sw "engineering"`); len(got) != 3 {
			t.Errorf("(c) all three: %v", got)
		}
		// The identity provider can write a duplicate as it is named (Okta
		// repeats the name in its path-less replace), rename or delete it.
		apptest.Want(t, do(http.MethodPatch, "b", "/Groups/"+gid("b", 8), map[string]any{
			"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"},
			"Operations": []any{map[string]any{"op": "replace", "value": map[string]any{"id": gid("b", 8),
				"displayName": "ÉQUIPE"}}}}), 200, "")
		apptest.Want(t, do(http.MethodPut, "b", "/Groups/"+gid("b", 8), map[string]any{"displayName": "Équipe"}), 200, "")
		if got := ids("b", `displayName eq "équipe"`); !slices.Equal(got, []string{gid("b", 9)}) {
			t.Errorf("(b) after writing the duplicate: %v", got)
		}
		r := do(http.MethodPatch, "c", "/Groups/"+gid("c", 8), map[string]any{
			"schemas":    []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"},
			"Operations": []any{map[string]any{"op": "replace", "path": "displayName", "value": "Engineering EU"}}})
		apptest.Want(t, r, 200, "")
		apptest.Want(t, do(http.MethodDelete, "c", "/Groups/"+gid("c", 7), nil), 204, "")
		if got := ids("c", `displayName eq "engineering eu"`); !slices.Equal(got, []string{gid("c", 8)}) {
			t.Errorf("(c) renamed: %v", got)
		}
	})
}

// A fresh database gets the unique group name key too.
func TestSCIMGroupNameKeyUniqueOnFreshDatabase(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		r := e.Backend(http.MethodPost, "/v1/b2b/scim/"+org+"/connection", nil)
		apptest.Want(t, r, 200, "")
		conn := r.Body["connection"].(map[string]any)["connection_id"].(string)
		db := e.App.DB
		for i, id := range []string{"g1", "g2"} {
			_, err := db.ExecContext(t.Context(), `INSERT INTO scim_groups (group_id, connection_id, organization_id,
				display_name, display_name_key, created_at, updated_at) VALUES ($1, $2, $3, 'X', 'x', 1, 1)`, id, conn, org)
			if (i == 1) != errors.Is(err, store.ErrConflict) {
				t.Fatalf("insert %d: %v", i, err)
			}
		}
	})
}
