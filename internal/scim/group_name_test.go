package scim_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A group's displayName is not case-exact (RFC 7643 4.2, and the /Schemas
// answer): a second group differing only in case is a uniqueness
// conflict, and a displayName filter finds the group in any case.
func TestGroupNamesAreNotCaseExact(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Groups", map[string]any{"displayName": "Engineering"})
		wantSCIM(t, r, 201, "")
		gid := r.Body["id"]
		wantSCIM(t, do(http.MethodPost, "/Groups", map[string]any{"displayName": "engineering"}), 409, "uniqueness")
		r = do(http.MethodGet, "/Groups?filter="+url.QueryEscape(`displayName eq "ENGINEERING"`), nil)
		wantSCIM(t, r, 200, "")
		if res, _ := r.Body["Resources"].([]any); len(res) != 1 || res[0].(map[string]any)["id"] != gid ||
			res[0].(map[string]any)["displayName"] != "Engineering" {
			t.Fatalf("filter in another case: %s", r.Raw)
		}
		// A rename to another case of its own name is not a conflict.
		wantSCIM(t, do(http.MethodPatch, "/Groups/"+gid.(string), map[string]any{
			"schemas":    []string{"urn:ietf:params:scim:api:messages:2.0:PatchOp"},
			"Operations": []any{map[string]any{"op": "replace", "path": "displayName", "value": "ENGINEERING"}}}), 200, "")
	})
}

// A list of groups answers each group with its own members, as GET of
// the group does, and an empty group with an empty list.
func TestGroupListAnswersEachGroupsMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		var users []any
		for _, u := range []string{"a", "b", "c"} {
			r := do(http.MethodPost, "/Users", map[string]any{"userName": u + "@acme.test"})
			wantSCIM(t, r, 201, "")
			users = append(users, map[string]any{"value": r.Body["id"]})
		}
		var gids []string
		for i, ms := range [][]any{users, {}, {users[2], users[0]}} {
			r := do(http.MethodPost, "/Groups", map[string]any{"displayName": "G" + strconv.Itoa(i), "members": ms})
			wantSCIM(t, r, 201, "")
			gids = append(gids, r.Body["id"].(string))
		}
		r := do(http.MethodGet, "/Groups", nil)
		wantSCIM(t, r, 200, "")
		res := r.Body["Resources"].([]any)
		if len(res) != 3 {
			t.Fatalf("%d groups listed", len(res))
		}
		listed := map[string]any{}
		for _, g := range res {
			listed[g.(map[string]any)["id"].(string)] = g.(map[string]any)["members"]
		}
		for i, gid := range gids {
			one := do(http.MethodGet, "/Groups/"+gid, nil)
			l, _ := json.Marshal(listed[gid])
			got, _ := json.Marshal(one.Body["members"])
			if string(l) != string(got) || one.Body["members"] == nil {
				t.Fatalf("group %d: listed members %s, GET answers %s", i, l, got)
			}
			if n, want := len(one.Body["members"].([]any)), []int{3, 0, 2}[i]; n != want {
				t.Fatalf("group %d has %d members, want %d", i, n, want)
			}
		}
	})
}
