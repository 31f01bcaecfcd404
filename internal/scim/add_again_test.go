package scim_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// An add of a value the attribute already holds changes nothing (RFC 7644
// 3.5.2.1: no change SHOULD be made and success returned). Appended
// again, the same value piled up with every push that repeats it (Entra
// sends a user's app roles as an Add), until the list reached its bound
// of 50 and every later push keeping the user active was refused.
func TestPatchAddOfAHeldValueChangesNothing(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test",
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": true}},
			"roles":  []any{map[string]any{"value": "Admin", "type": "WindowsAzureActiveDirectoryRole", "primary": false}}})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		for i := range 60 {
			r = do(http.MethodPatch, "/Users/"+uid, patch(
				map[string]any{"op": "Add", "path": "roles", "value": []any{
					map[string]any{"value": "Admin", "type": "WindowsAzureActiveDirectoryRole", "primary": "False"}}},
				map[string]any{"op": "add", "path": "emails", "value": []any{
					map[string]any{"value": "ada@acme.test", "type": "work", "primary": true}}},
				map[string]any{"op": "replace", "path": "title", "value": "Engineer"}))
			if r.Status != 200 {
				t.Fatalf("push %d: %d %s", i+1, r.Status, r.Raw)
			}
		}
		if roles, emails := r.Body["roles"].([]any), r.Body["emails"].([]any); len(roles) != 1 || len(emails) != 1 {
			t.Fatalf("repeated adds grew the lists: %s", r.Raw)
		}
		// A value that differs is still added.
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "path": "roles",
			"value": []any{map[string]any{"value": "Reader", "type": "WindowsAzureActiveDirectoryRole"}}}))
		wantSCIM(t, r, 200, "")
		if roles := r.Body["roles"].([]any); len(roles) != 2 {
			t.Fatalf("a new role was not added: %s", r.Raw)
		}
	})
}

// An add naming one new value twice (two equal objects, primary spelled
// two ways) adds it once: the values of one add were checked against the
// attribute's held values only, not against each other, so both copies
// were kept, and two copies of one primary value were refused as two
// primary values. The value it makes primary still demotes the old one.
func TestPatchAddOfOneValueTwiceAddsItOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test",
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": true}}})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)

		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "path": "roles", "value": []any{
			map[string]any{"value": "Reader", "type": "WindowsAzureActiveDirectoryRole"},
			map[string]any{"value": "Reader", "type": "WindowsAzureActiveDirectoryRole", "primary": "False"}}}))
		wantSCIM(t, r, 200, "")
		if roles, _ := r.Body["roles"].([]any); len(roles) != 1 {
			t.Fatalf("one role added twice: %s", r.Raw)
		}

		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "path": "emails", "value": []any{
			map[string]any{"value": "ada.new@acme.test", "type": "home", "primary": true},
			map[string]any{"value": "ada.new@acme.test", "type": "home", "primary": "True"}}}))
		wantSCIM(t, r, 200, "")
		if emails, p := r.Body["emails"].([]any), primaries(t, r, "emails"); len(emails) != 2 || len(p) != 1 || p[0] != "ada.new@acme.test" {
			t.Fatalf("one primary email added twice: %s", r.Raw)
		}
	})
}

// An add of a held value that now says it is primary makes the held value
// primary (and demotes the old primary) rather than add a second copy of
// it: primary counted in telling values apart, so {value: b, primary:
// true} added to a list holding {value: b} kept both. The same for a
// display, with or without a path; a value of another type is another
// value and is added.
func TestPatchAddOfAHeldValueAsPrimaryKeepsOne(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test",
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": true},
				map[string]any{"value": "ada.b@acme.test", "type": "work"}},
			"roles": []any{map[string]any{"value": "Reader", "type": "WindowsAzureActiveDirectoryRole"}}})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)

		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "path": "emails", "value": []any{
			map[string]any{"value": "ada.b@acme.test", "type": "work", "primary": true}}}))
		wantSCIM(t, r, 200, "")
		if emails, p := r.Body["emails"].([]any), primaries(t, r, "emails"); len(emails) != 2 || len(p) != 1 || p[0] != "ada.b@acme.test" {
			t.Fatalf("a held email added as primary: %s", r.Raw)
		}

		// Without a path, and the old address back as primary: the same.
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "value": map[string]any{
			"emails": []any{map[string]any{"value": "ada@acme.test", "type": "work", "primary": "True"}},
			"roles": []any{map[string]any{"value": "Reader", "type": "WindowsAzureActiveDirectoryRole",
				"display": "Reader", "primary": true}}}}))
		wantSCIM(t, r, 200, "")
		emails, p := r.Body["emails"].([]any), primaries(t, r, "emails")
		if len(emails) != 2 || len(p) != 1 || p[0] != "ada@acme.test" {
			t.Fatalf("a held email added as primary without a path: %s", r.Raw)
		}
		if roles, p := r.Body["roles"].([]any), primaries(t, r, "roles"); len(roles) != 1 || len(p) != 1 || p[0] != "Reader" {
			t.Fatalf("a held role added with a display and as primary: %s", r.Raw)
		}

		// Another type is another value.
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "path": "emails", "value": []any{
			map[string]any{"value": "ada@acme.test", "type": "home"}}}))
		wantSCIM(t, r, 200, "")
		if emails := r.Body["emails"].([]any); len(emails) != 3 {
			t.Fatalf("the same address of another type was not added: %s", r.Raw)
		}
	})
}
