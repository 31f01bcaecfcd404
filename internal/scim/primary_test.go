package scim_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// primaries are the values of a User's multi-valued attribute marked
// primary.
func primaries(t *testing.T, r apptest.Resp, attr string) []string {
	t.Helper()
	var out []string
	list, _ := r.Body[attr].([]any)
	for _, v := range list {
		if m, _ := v.(map[string]any); m["primary"] == true {
			out = append(out, m["value"].(string))
		}
	}
	return out
}

// A PATCH that makes a value primary demotes the attribute's other values
// (RFC 7644 3.5.2: the server SHALL set primary to false for them; RFC
// 7643 2.4: primary is true for one value at most). Left primary, the old
// email stayed the one the member's address is taken from, so the
// identity provider's new primary address was silently not applied.
func TestPatchMakingAValuePrimaryDemotesTheOthers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		for i, c := range []struct {
			name string
			op   map[string]any
		}{
			{"add to the list", map[string]any{"op": "add", "path": "emails",
				"value": []any{map[string]any{"value": "ada.new@acme.test", "type": "home", "primary": true}}}},
			{"path-less add", map[string]any{"op": "Add", "value": map[string]any{
				"emails": []any{map[string]any{"value": "ada.new@acme.test", "type": "home", "primary": "True"}}}}},
			{"flag of a value picked by a filter", map[string]any{"op": "Replace",
				"path": `emails[type eq "home"].primary`, "value": "True"}},
			{"value picked by a filter", map[string]any{"op": "replace", "path": `emails[type eq "home"]`,
				"value": map[string]any{"value": "ada.new@acme.test", "primary": true}}},
			{"new value added by a filter", map[string]any{"op": "add", "path": `emails[type eq "other"]`,
				"value": map[string]any{"value": "ada.new@acme.test", "primary": true}}},
		} {
			user := "ada" + string(rune('a'+i)) + "@acme.test"
			next := "new" + string(rune('a'+i)) + "@acme.test"
			op := replaceIn(c.op, "ada.new@acme.test", next).(map[string]any)
			emails := []any{map[string]any{"value": user, "type": "work", "primary": true}}
			if c.name == "flag of a value picked by a filter" {
				emails = append(emails, map[string]any{"value": next, "type": "home"})
			}
			r := do(http.MethodPost, "/Users", map[string]any{"userName": user, "emails": emails})
			wantSCIM(t, r, 201, "")
			uid := r.Body["id"].(string)
			r = do(http.MethodPatch, "/Users/"+uid, patch(op))
			wantSCIM(t, r, 200, "")
			if p := primaries(t, r, "emails"); len(p) != 1 || p[0] != next {
				t.Fatalf("%s: primary emails %v: %s", c.name, p, r.Raw)
			}
			if got := member(t, e, org, uid)["email_address"]; got != next {
				t.Fatalf("%s: the member's address is %v, not the new primary email", c.name, got)
			}
		}

		// Other multi-valued attributes follow the same rule.
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "bea@acme.test",
			"roles": []any{map[string]any{"value": "reader", "primary": true}}})
		wantSCIM(t, r, 201, "")
		r = do(http.MethodPatch, "/Users/"+r.Body["id"].(string), patch(map[string]any{"op": "add", "path": "roles",
			"value": []any{map[string]any{"value": "writer", "primary": true}}}))
		wantSCIM(t, r, 200, "")
		if p := primaries(t, r, "roles"); len(p) != 1 || p[0] != "writer" {
			t.Fatalf("primary roles %v: %s", p, r.Raw)
		}
	})
}

// replaceIn is v with every string old replaced by new, at any depth.
func replaceIn(v any, old, new string) any {
	switch x := v.(type) {
	case string:
		if x == old {
			return new
		}
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = replaceIn(e, old, new)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = replaceIn(e, old, new)
		}
		return out
	}
	return v
}
