package scim_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A remove without a path is 400 noTarget (RFC 7644 3.5.2.2), for a Group
// as for a User, and changes nothing.
func TestPathlessRemoveIsNoTarget(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Eng", "members": []any{map[string]any{"value": uid}}})
		wantSCIM(t, r, 201, "")
		gid := r.Body["id"].(string)
		for _, path := range []string{"/Users/" + uid, "/Groups/" + gid} {
			for _, op := range []map[string]any{{"op": "remove"}, {"op": "Remove", "value": map[string]any{"members": []any{}}}} {
				wantSCIM(t, do(http.MethodPatch, path, patch(op)), 400, "noTarget")
			}
		}
		if r := do(http.MethodGet, "/Groups/"+gid, nil); len(r.Body["members"].([]any)) != 1 {
			t.Fatalf("a refused remove changed the group: %s", r.Raw)
		}
	})
}
