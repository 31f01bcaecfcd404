package scim_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A PATCH path that is not a path (RFC 7644 3.10's attrPath, an optional
// value filter, at most one sub-attribute) is refused with invalidPath
// (3.12), for users and groups, and changes nothing; an attribute the
// server does not keep, in a well-formed path, is ignored as it is in a
// User body (identity providers send attributes they map, custom
// extensions included).
func TestMalformedPatchPathsAreInvalidPath(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test", "name": map[string]any{"givenName": "Ada"},
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": true}}})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		r = do(http.MethodPost, "/Groups", map[string]any{"displayName": "Staff"})
		wantSCIM(t, r, 201, "")
		gid := r.Body["id"].(string)
		for _, path := range []string{
			`emails[type eq "work"]x`,
			`emails[type eq "work"].`,
			`emails[type eq "work"].value.extra`,
			`name.givenName.extra`,
			`name.`,
			`name given`,
			`.name`,
			`emails[type.value eq "work"].value`,
		} {
			r := do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": path, "value": "x@acme.test"}))
			wantSCIM(t, r, 400, "invalidPath")
			r = do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "replace", "path": path, "value": "x"}))
			wantSCIM(t, r, 400, "invalidPath")
		}
		for _, path := range []string{"displayName.x", "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:displayName"} {
			wantSCIM(t, do(http.MethodPatch, "/Groups/"+gid, patch(map[string]any{"op": "replace", "path": path, "value": "x"})), 400, "invalidPath")
		}
		r = do(http.MethodGet, "/Users/"+uid, nil)
		if r.Body["name"].(map[string]any)["givenName"] != "Ada" || r.Body["emails"].([]any)[0].(map[string]any)["value"] != "ada@acme.test" {
			t.Fatalf("a refused PATCH changed the user: %s", r.Raw)
		}
		if r = do(http.MethodGet, "/Groups/"+gid, nil); r.Body["displayName"] != "Staff" {
			t.Fatalf("a refused PATCH changed the group: %s", r.Raw)
		}

		// Well-formed paths naming attributes not kept here are ignored.
		r = do(http.MethodPatch, "/Users/"+uid, patch(
			map[string]any{"op": "add", "path": "favoriteColor", "value": "teal"},
			map[string]any{"op": "add", "path": "urn:ietf:params:scim:schemas:extension:CustomExt:2.0:User:costCode", "value": "42"},
			map[string]any{"op": "replace", "path": `emails[type eq "work"].display`, "value": "Work"},
			map[string]any{"op": "replace", "path": "name.givenName", "value": "Augusta"}))
		wantSCIM(t, r, 200, "")
		if r.Body["name"].(map[string]any)["givenName"] != "Augusta" || r.Body["favoriteColor"] != nil {
			t.Fatalf("patched user: %s", r.Raw)
		}
	})
}
