package scim_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// patchOf is a PATCH body of ops.
func patchOf(ops []any) map[string]any {
	return map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"}, "Operations": ops}
}

// wantBound fails unless r is the invalidValue refusal naming the bound.
func wantBound(t *testing.T, r apptest.Resp, bound string) {
	t.Helper()
	wantSCIM(t, r, http.StatusBadRequest, "invalidValue")
	if d, _ := r.Body["detail"].(string); !strings.Contains(d, "at most "+bound) {
		t.Fatalf("detail does not name the bound %s: %s", bound, r.Raw)
	}
}

// A User PATCH holds at most 100 operations, objects of at most 100 keys
// and lists of at most 1000 values (also as its operations grow one):
// each within answers, one more is invalidValue, before the transaction.
func TestUserPatchBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		path := "/Users/" + r.Body["id"].(string)

		ops := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = map[string]any{"op": "replace", "path": "displayName", "value": fmt.Sprintf("Ada %d", i)}
			}
			return out
		}
		r = do(http.MethodPatch, path, patchOf(ops(100)))
		wantSCIM(t, r, 200, "")
		if r.Body["displayName"] != "Ada 99" {
			t.Fatalf("100 operations: %s", r.Raw)
		}
		wantBound(t, do(http.MethodPatch, path, patchOf(ops(101))), "100 operations")

		keys := func(n int) map[string]any {
			obj := map[string]any{"displayName": "Keys"}
			for i := 1; i < n; i++ {
				obj[fmt.Sprintf("x%d", i)] = i // unknown attributes: ignored
			}
			return obj
		}
		r = do(http.MethodPatch, path, patchOf([]any{map[string]any{"op": "replace", "value": keys(100)}}))
		wantSCIM(t, r, 200, "")
		if r.Body["displayName"] != "Keys" {
			t.Fatalf("100 keys: %s", r.Raw)
		}
		wantBound(t, do(http.MethodPatch, path, patchOf([]any{map[string]any{"op": "replace", "value": keys(101)}})), "100 attributes")
		wantBound(t, do(http.MethodPatch, path, patchOf([]any{map[string]any{"op": "replace", "path": "name", "value": keys(101)}})),
			"100 attributes")

		list := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = i
			}
			return out
		}
		add := func(n int) map[string]any { return map[string]any{"op": "add", "path": "x", "value": list(n)} }
		wantSCIM(t, do(http.MethodPatch, path, patchOf([]any{add(1000)})), 200, "")
		wantBound(t, do(http.MethodPatch, path, patchOf([]any{add(1001)})), "1000 values")
		// Values the list holds already are not added again (RFC 7644
		// 3.5.2.1), so growing it takes new ones.
		wantSCIM(t, do(http.MethodPatch, path, patchOf([]any{add(600), add(600)})), 200, "")
		others := make([]any, 600)
		for i := range others {
			others[i] = 600 + i
		}
		more := map[string]any{"op": "add", "path": "x", "value": others}
		wantBound(t, do(http.MethodPatch, path, patchOf([]any{add(600), more})), "1000 values")
	})
}

// A Group request names at most 1000 members (duplicates counted): in
// POST and PUT members, and in all of a PATCH's operations together
// (Okta removes each member in an operation of its own). Within the bound
// it answers; one more is invalidValue.
func TestGroupMemberBounds(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		refs := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = map[string]any{"value": uid}
			}
			return out
		}
		junk := func(n int) []any { // short ids: the test server's body limit is 64 KiB
			out := make([]any, n)
			for i := range out {
				out[i] = map[string]any{"value": fmt.Sprint(i)}
			}
			return out
		}
		members := func(r apptest.Resp) int { ms, _ := r.Body["members"].([]any); return len(ms) }

		r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Eng", "members": refs(1000)})
		wantSCIM(t, r, 201, "")
		if members(r) != 1 {
			t.Fatalf("1000 references to one user: %s", r.Raw)
		}
		gpath := "/Groups/" + r.Body["id"].(string)
		wantBound(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": "Ops", "members": refs(1001)}), "1000 group members")
		wantSCIM(t, do(http.MethodPut, gpath, map[string]any{"displayName": "Eng", "members": refs(1000)}), 200, "")
		wantBound(t, do(http.MethodPut, gpath, map[string]any{"displayName": "Eng", "members": refs(1001)}), "1000 group members")

		removals := func(n int) []any {
			out := make([]any, n)
			for i := range out {
				out[i] = map[string]any{"op": "remove", "path": fmt.Sprintf(`members[value eq "m%d"]`, i)}
			}
			return out
		}
		r = do(http.MethodPatch, gpath, patchOf(removals(1000)))
		wantSCIM(t, r, 200, "")
		if members(r) != 1 {
			t.Fatalf("removal of 1000 non-members: %s", r.Raw)
		}
		wantBound(t, do(http.MethodPatch, gpath, patchOf(removals(1001))), "1000 group members")
		addAll := map[string]any{"op": "add", "path": "members", "value": junk(600)}
		wantBound(t, do(http.MethodPatch, gpath, patchOf([]any{addAll, addAll})), "1000 group members")
		wantBound(t, do(http.MethodPatch, gpath, patchOf([]any{map[string]any{"op": "add", "value": map[string]any{"members": junk(1001)}}})),
			"1000 group members")

		// Removal by list and by filter, in one PATCH, still removes.
		r = do(http.MethodPatch, gpath, patchOf([]any{
			map[string]any{"op": "remove", "path": `members[value eq "member-test-x"]`},
			map[string]any{"op": "remove", "path": "members", "value": refs(3)},
		}))
		wantSCIM(t, r, 200, "")
		if members(r) != 0 {
			t.Fatalf("removed: %s", r.Raw)
		}
	})
}
