package scim_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

const enterpriseURN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"

// managerOf is the manager of a User resource ("" when it has none), and
// fails unless scim_attributes shows the same.
func managerOf(t *testing.T, e *apptest.Env, org string, doc map[string]any) string {
	t.Helper()
	got := ""
	if x, _ := doc[enterpriseURN].(map[string]any); x != nil {
		if m, _ := x["manager"].(map[string]any); m != nil {
			got, _ = m["value"].(string)
		}
	}
	stored := ""
	if x, _ := scimAttributes(t, e, org, doc["id"].(string))["enterprise_extension"].(map[string]any); x != nil {
		if m, _ := x["manager"].(map[string]any); m != nil {
			stored, _ = m["value"].(string)
		}
	}
	if stored != got {
		t.Fatalf("scim_attributes manager %q, resource manager %q", stored, got)
	}
	return got
}

// Microsoft Entra sets a manager with a bare string value rather than
// {"value": ...}. It is taken as the manager's value, in PATCH, PUT and
// POST alike, and so does not sink the rest of the push: the audit's
// probe, one PATCH renaming, setting the manager and deprovisioning,
// applies all three.
func TestManagerAsAStringIsItsValue(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, map[string]any{"identity_provider": "microsoft-entra"})
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }

		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test", "displayName": "Ada"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		r = do(http.MethodPatch, "/Users/"+uid, patch(
			map[string]any{"op": "Replace", "path": "displayName", "value": "Ada Byron"},
			map[string]any{"op": "Add", "path": enterpriseURN + ":manager", "value": "boss-1"},
			map[string]any{"op": "Replace", "path": "active", "value": "False"}))
		wantSCIM(t, r, 200, "")
		if r.Body["displayName"] != "Ada Byron" || r.Body["active"] != false || managerOf(t, e, org, r.Body) != "boss-1" {
			t.Fatalf("patched user: %s", r.Raw)
		}
		if m := member(t, e, org, uid); m["status"] != "deleted" || m["name"] != "Ada Byron" {
			t.Fatalf("member after the probe: status %v, name %v", m["status"], m["name"])
		}

		// The object form still works, a path-less add keyed by the
		// attribute's full path takes the string too, and remove clears it.
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "Replace", "path": enterpriseURN + ":manager",
			"value": map[string]any{"value": "boss-2", "displayName": "Grace"}}))
		if wantSCIM(t, r, 200, ""); managerOf(t, e, org, r.Body) != "boss-2" {
			t.Fatalf("manager as an object: %s", r.Raw)
		}
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "value": map[string]any{enterpriseURN + ":manager": "boss-3"}}))
		if wantSCIM(t, r, 200, ""); managerOf(t, e, org, r.Body) != "boss-3" {
			t.Fatalf("path-less manager: %s", r.Raw)
		}
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "Remove", "path": enterpriseURN + ":manager"}))
		if wantSCIM(t, r, 200, ""); managerOf(t, e, org, r.Body) != "" {
			t.Fatalf("removed manager: %s", r.Raw)
		}
		// An empty string is no manager, not one with an empty value.
		do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "Add", "path": enterpriseURN + ":manager", "value": "boss-3"}))
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "Replace", "path": enterpriseURN + ":manager", "value": ""}))
		if x, _ := r.Body[enterpriseURN].(map[string]any); r.Status != 200 || x["manager"] != nil {
			t.Fatalf("manager set to the empty string: %s", r.Raw)
		}

		// PUT and POST bodies take the string form as well.
		r = do(http.MethodPut, "/Users/"+uid, map[string]any{"userName": "ada@acme.test", "active": true,
			enterpriseURN: map[string]any{"manager": "boss-4", "department": "R&D"}})
		if wantSCIM(t, r, 200, ""); managerOf(t, e, org, r.Body) != "boss-4" {
			t.Fatalf("PUT manager: %s", r.Raw)
		}
		r = do(http.MethodPost, "/Users", map[string]any{"userName": "grace@acme.test", enterpriseURN: map[string]any{"manager": "boss-5"}})
		if wantSCIM(t, r, 201, ""); managerOf(t, e, org, r.Body) != "boss-5" {
			t.Fatalf("POST manager: %s", r.Raw)
		}
		// Another type is still refused, in SCIM's terms.
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "alan@acme.test",
			enterpriseURN: map[string]any{"manager": 42}}), 400, "invalidValue")
	})
}
