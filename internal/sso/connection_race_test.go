package sso_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// Two edits of one connection at once, each of other fields: a change
// writes every field back as it read them, so the second must read the
// connection after the first commits, or it undoes the first's edit. The
// first (a rename through the administrators' change, export_test.go) is
// held open while the second, an attribute-mapping update through the
// API, runs.
func TestConcurrentEditsOfOneConnectionKeepBothFields(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	s := newOIDCEnv(t, e)
	rename := func(q store.Querier) error {
		return e.App.SSO.RenameIn(t.Context(), q, e.Project.Project.ID, s.orgID, s.connID, "oidc", "Renamed")
	}
	var r apptest.Resp
	if _, err := storetest.Overlap(t, e.App.DB, rename, func() error {
		r = e.Backend(http.MethodPut, "/v1/b2b/sso/oidc/"+s.orgID+"/connections/"+s.connID,
			map[string]any{"attribute_mapping": map[string]any{"email": "mail"}})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	apptest.Want(t, r, 200, "")
	r = e.Backend(http.MethodGet, "/v1/b2b/sso/"+s.orgID, nil)
	apptest.Want(t, r, 200, "")
	conns := r.Body["oidc_connections"].([]any)
	if len(conns) != 1 {
		t.Fatalf("oidc_connections = %v, want one", conns)
	}
	c := conns[0].(map[string]any)
	mapping, _ := c["attribute_mapping"].(map[string]any)
	if c["display_name"] != "Renamed" || mapping["email"] != "mail" {
		t.Fatalf("connection = %v, want the rename and the attribute mapping both", c)
	}
}
