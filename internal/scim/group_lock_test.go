package scim_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A group change names the group by id: one that is not a group of the
// token's connection is refused before anything is locked, so a token
// holder cannot hold up (or wait on) another organization's group. Here
// another organization's group row is held by a writer of its own, and
// a PATCH of that id with this connection's token must answer 404 without
// waiting for it.
func TestGroupChangeLocksNoOtherConnectionsGroup(t *testing.T) {
	t.Parallel()
	e, _, _, do := pgSCIM(t)
	other := e.CreateOrg("beta", "NOT_ALLOWED", nil)
	oid, otoken, _ := connection(t, e, other, nil)
	r := scimDo(e, http.MethodPost, oid, "/Groups", otoken, map[string]any{"displayName": "Staff"})
	wantSCIM(t, r, 201, "")
	gid := r.Body["id"].(string)
	ctx := t.Context()
	var answered atomic.Bool
	var got apptest.Resp
	var waited bool
	_, _ = storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `SELECT 1 FROM scim_groups WHERE group_id = $1 FOR UPDATE`, gid)
		return err
	}, func() error {
		got = do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "replace", "path": "displayName", "value": "Mine"}))
		answered.Store(true)
		return nil
	}, func(store.Querier) error {
		waited = !answered.Load() // still waiting for the held row
		return nil
	})
	if waited {
		t.Fatal("a PATCH of another connection's group waited for that group's row lock")
	}
	wantSCIM(t, got, 404, "")
}
