package scim_test

import (
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// A group member is named by id: one that is not a user of the token's
// connection is refused before anything is locked, as a group or user id
// is (TestGroupChangeLocksNoOtherConnectionsGroup, regForUpdate), so a
// token holder cannot hold up (or wait on) another organization's member.
// Here another organization's member row is held as its deletion holds it
// (a purge's DELETE, an organization deletion's cascade: FOR UPDATE, which
// the key share a membership's insert takes conflicts with), and adding
// that id to this connection's group, by PATCH, PUT or POST, must answer
// 400 without waiting for it.
func TestGroupMemberLocksNoOtherOrganizationsMember(t *testing.T) {
	t.Parallel()
	e, _, _, do := pgSCIM(t)
	other := e.CreateOrg("beta", "NOT_ALLOWED", nil)
	victim := e.CreateMember(other, "victim@beta.test")
	r := do(http.MethodPost, "/Groups", map[string]any{"displayName": "Staff"})
	wantSCIM(t, r, 201, "")
	gid := r.Body["id"].(string)
	refs := []any{map[string]any{"value": victim}}
	for name, call := range map[string]func() apptest.Resp{
		"PATCH": func() apptest.Resp {
			return do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "add", "path": "members", "value": refs}))
		},
		"PUT": func() apptest.Resp {
			return do(http.MethodPut, "/Groups/"+gid, map[string]any{"displayName": "Staff", "members": refs})
		},
		"POST": func() apptest.Resp {
			return do(http.MethodPost, "/Groups", map[string]any{"displayName": "New", "members": refs})
		},
	} {
		var answered atomic.Bool
		var got apptest.Resp
		var waited bool
		_, _ = storetest.Interleave(t, e.App.DB, func(q store.Querier) error {
			_, err := q.ExecContext(t.Context(), `SELECT 1 FROM members WHERE member_id = $1 FOR UPDATE`, victim)
			return err
		}, func() error {
			got = call()
			answered.Store(true)
			return nil
		}, func(store.Querier) error {
			waited = !answered.Load() // still waiting for the held row
			return nil
		})
		if waited {
			t.Fatalf("%s: adding another organization's member to a group waited for that member's row lock", name)
		}
		wantSCIM(t, got, 400, "invalidValue")
	}
}
