package scim_test

import (
	"net/http"
	"net/url"
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
