package scim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// wantTwoPrimaries fails unless r refuses attr for holding two primary
// values: SCIM's invalidValue, with a detail naming the attribute.
func wantTwoPrimaries(t *testing.T, r apptest.Resp, attr string) {
	t.Helper()
	wantSCIM(t, r, http.StatusBadRequest, "invalidValue")
	if d, _ := r.Body["detail"].(string); !strings.HasPrefix(d, attr+" ") || !strings.Contains(d, "primary") {
		t.Fatalf("detail does not name %s and its primary values: %s", attr, r.Raw)
	}
}

// RFC 7643 2.4: "The primary attribute value 'true' MUST appear no more
// than once." A User whose multi-valued attribute marks two values primary
// was accepted, and the first silently won (the member's address came
// from the first primary email). A POST, a PUT and a PATCH whose result
// has two are refused, and nothing is written; a PATCH adding one primary
// value still demotes the old one, and a deprovisioning still goes
// through, keeping the stored list.
func TestTwoPrimaryValuesAreRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		two := func(a, b string) []any {
			return []any{map[string]any{"value": a, "type": "work", "primary": true},
				map[string]any{"value": b, "type": "home", "primary": "True"}}
		}
		counts := func() [2]int {
			return [2]int{e.Count(`SELECT COUNT(*) FROM members`), e.Count(`SELECT COUNT(*) FROM scim_registrations`)}
		}

		// Creation, in each kind of multi-valued attribute.
		before := counts()
		for _, c := range []struct {
			attr  string
			value any
		}{
			{"emails", two("ada@acme.test", "ada.home@acme.test")},
			{"phoneNumbers", two("+15555550100", "+15555550101")},
			{"roles", two("reader", "writer")},
			{"addresses", []any{map[string]any{"locality": "Here", "primary": true},
				map[string]any{"locality": "There", "primary": true}}},
		} {
			wantTwoPrimaries(t, do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test", c.attr: c.value}), c.attr)
		}
		if after := counts(); after != before {
			t.Fatalf("a refused creation wrote: members and registrations %v, were %v", after, before)
		}

		r := do(http.MethodPost, "/Users", map[string]any{"userName": "bea@acme.test",
			"emails": []any{map[string]any{"value": "bea@acme.test", "type": "work", "primary": true}}})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		stored := func() {
			t.Helper()
			r := do(http.MethodGet, "/Users/"+uid, nil)
			if p := primaries(t, r, "emails"); len(p) != 1 || p[0] != "bea@acme.test" || len(r.Body["emails"].([]any)) != 1 {
				t.Fatalf("stored emails changed by a refused push: %s", r.Raw)
			}
			if m := member(t, e, org, uid); m["email_address"] != "bea@acme.test" || m["status"] != "active" {
				t.Fatalf("member changed by a refused push: %v %v", m["email_address"], m["status"])
			}
		}

		// Replacement.
		wantTwoPrimaries(t, do(http.MethodPut, "/Users/"+uid, map[string]any{"userName": "bea@acme.test",
			"emails": two("bea.new@acme.test", "bea.home@acme.test")}), "emails")
		stored()

		// A PATCH that replaces the whole list, or adds two primaries.
		for _, op := range []map[string]any{
			{"op": "replace", "path": "emails", "value": two("bea.new@acme.test", "bea.home@acme.test")},
			{"op": "Replace", "value": map[string]any{"emails": two("bea.new@acme.test", "bea.home@acme.test")}},
			{"op": "add", "path": "emails", "value": two("bea.new@acme.test", "bea.home@acme.test")},
		} {
			wantTwoPrimaries(t, do(http.MethodPatch, "/Users/"+uid, patch(op)), "emails")
			stored()
		}

		// One new primary still demotes the old (demoteOthers).
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "add", "path": "emails",
			"value": []any{map[string]any{"value": "bea.new@acme.test", "type": "home", "primary": true}}}))
		wantSCIM(t, r, 200, "")
		if p := primaries(t, r, "emails"); len(p) != 1 || p[0] != "bea.new@acme.test" {
			t.Fatalf("primary emails after adding one: %s", r.Raw)
		}

		// A deprovisioning is not refused over it: the stored list stays.
		r = do(http.MethodPut, "/Users/"+uid, map[string]any{"userName": "bea@acme.test", "active": false,
			"emails": two("bea.other@acme.test", "bea.home@acme.test")})
		wantSCIM(t, r, 200, "")
		if p := primaries(t, r, "emails"); r.Body["active"] != false || len(p) != 1 || p[0] != "bea.new@acme.test" {
			t.Fatalf("deprovisioning with two primaries: %s", r.Raw)
		}
	})
}

// A registration stored with two primary values before they were refused
// is not locked out: a push that leaves that list as stored (a PATCH of
// another attribute, a PUT sending it again) goes through, and one that
// changes the list must leave one primary.
func TestStoredTwoPrimariesDoNotBlockOtherChanges(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "cy@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		// As an earlier version stored it.
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE scim_registrations SET attributes = $1 WHERE member_id = $2`,
			`{"userName":"cy@acme.test","emails":[{"value":"cy@acme.test","primary":true},{"value":"cy.home@acme.test","primary":true}]}`,
			uid); err != nil {
			t.Fatal(err)
		}
		r = do(http.MethodPatch, "/Users/"+uid, patch(map[string]any{"op": "replace", "path": "displayName", "value": "Cy"}))
		wantSCIM(t, r, 200, "")
		if r.Body["displayName"] != "Cy" || len(primaries(t, r, "emails")) != 2 {
			t.Fatalf("PATCH of another attribute: %s", r.Raw)
		}
		wantSCIM(t, do(http.MethodPut, "/Users/"+uid, map[string]any{"userName": "cy@acme.test", "displayName": "Cy",
			"emails": []any{map[string]any{"value": "cy@acme.test", "primary": true},
				map[string]any{"value": "cy.home@acme.test", "primary": true}}}), 200, "")
		wantTwoPrimaries(t, do(http.MethodPut, "/Users/"+uid, map[string]any{"userName": "cy@acme.test",
			"emails": []any{map[string]any{"value": "cy@acme.test", "primary": true},
				map[string]any{"value": "cy.work@acme.test", "primary": true}}}), "emails")
	})
}
