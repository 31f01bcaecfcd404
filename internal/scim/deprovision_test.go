package scim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A deprovisioning push goes through whatever else it carries that a
// push keeping the user active is refused for: an address that is no
// address (Entra's emails[type eq "work"].value, a PUT's primary email),
// a userName another user has, an externalId or userName over its bound.
// The member is deleted, their sessions end, and the answer is the User
// as stored: the refused values are not written (nor cut to fit), the
// stored ones stay.
func TestDeprovisioningGoesThroughValuesThatWouldBeRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "taken@acme.test"}), 201, "")
		long := strings.Repeat("x", 400)
		for _, tc := range []struct {
			name, method string
			body         func(user string, active bool) map[string]any
			scimType     string // the refusal of the same push without active: false
		}{
			{"entra work email not an address", http.MethodPatch, func(user string, active bool) map[string]any {
				return patch(map[string]any{"op": "Replace", "path": `emails[type eq "work"].value`, "value": "josé@acme.test"},
					map[string]any{"op": "Replace", "path": "active", "value": map[bool]string{true: "True", false: "False"}[active]})
			}, "invalidValue"},
			{"put address without a domain", http.MethodPut, func(user string, active bool) map[string]any {
				return map[string]any{"userName": user, "externalId": "ext-" + user, "active": active,
					"emails": []any{map[string]any{"value": "jose@localhost", "type": "work", "primary": true}}}
			}, "invalidValue"},
			{"userName taken", http.MethodPut, func(user string, active bool) map[string]any {
				return map[string]any{"userName": "TAKEN@acme.test", "externalId": "ext-" + user, "active": active,
					"emails": []any{map[string]any{"value": user, "type": "work", "primary": true}}}
			}, "uniqueness"},
			{"externalId too long", http.MethodPatch, func(user string, active bool) map[string]any {
				return patch(map[string]any{"op": "replace", "value": map[string]any{"externalId": long, "active": active}})
			}, "invalidValue"},
			{"userName too long", http.MethodPatch, func(user string, active bool) map[string]any {
				return patch(map[string]any{"op": "replace", "path": "userName", "value": long + "@acme.test"},
					map[string]any{"op": "replace", "path": "active", "value": active})
			}, "invalidValue"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				user := strings.ToLower(strings.ReplaceAll(tc.name, " ", "-")) + "@acme.test"
				r := do(http.MethodPost, "/Users", map[string]any{"userName": user, "externalId": "ext-" + user,
					"emails": []any{map[string]any{"value": user, "type": "work", "primary": true}}})
				wantSCIM(t, r, 201, "")
				uid := r.Body["id"].(string)
				session := e.SessionFor(org, user)

				// Keeping the user active, the push is refused as before.
				wantSCIM(t, do(tc.method, "/Users/"+uid, tc.body(user, true)), statusOf(tc.scimType), tc.scimType)

				r = do(tc.method, "/Users/"+uid, tc.body(user, false))
				wantSCIM(t, r, 200, "")
				emails, _ := r.Body["emails"].([]any)
				if r.Body["id"] != uid || r.Body["active"] != false || r.Body["userName"] != user || r.Body["externalId"] != "ext-"+user ||
					len(emails) != 1 || emails[0].(map[string]any)["value"] != user {
					t.Fatalf("answer is not the stored user, deactivated: %s", r.Raw)
				}
				if m := member(t, e, org, uid); m["status"] != "deleted" || m["email_address"] != user {
					t.Fatalf("member after the deprovisioning: status %v, address %v", m["status"], m["email_address"])
				}
				if r := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": session}); r.Status == 200 {
					t.Fatalf("a deprovisioned member's session still authenticates: %s", r.Raw)
				}
				if r := do(http.MethodGet, "/Users/"+uid, nil); r.Body["userName"] != user || r.Body["externalId"] != "ext-"+user {
					t.Fatalf("stored user: %s", r.Raw)
				}
			})
		}
	})
}

func statusOf(scimType string) int {
	if scimType == "uniqueness" {
		return http.StatusConflict
	}
	return http.StatusBadRequest
}

// A deprovisioning does not apply the new address it carries, nor record
// it as sent: when the identity provider sends it again (reactivating the
// user), the member moves to it, as the address rule says. Stored as sent,
// it would look unchanged, and the member would keep the old one.
func TestAddressDroppedByADeprovisioningIsTakenLater(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		for _, tc := range []struct{ user, next string }{
			{"ada@acme.test", ""},                  // the address is in emails
			{"bea@acme.test", "bea.new@acme.test"}, // it is the userName
		} {
			r := do(http.MethodPost, "/Users", map[string]any{"userName": tc.user})
			wantSCIM(t, r, 201, "")
			uid := r.Body["id"].(string)
			body := func(active bool) map[string]any {
				if tc.next != "" {
					return map[string]any{"userName": tc.next, "active": active}
				}
				return map[string]any{"userName": tc.user, "active": active,
					"emails": []any{map[string]any{"value": "ada.new@acme.test", "primary": true}}}
			}
			wantSCIM(t, do(http.MethodPut, "/Users/"+uid, body(false)), 200, "")
			if m := member(t, e, org, uid); m["status"] != "deleted" || m["email_address"] != tc.user {
				t.Fatalf("deprovisioned: %v %v", m["status"], m["email_address"])
			}
			wantSCIM(t, do(http.MethodPut, "/Users/"+uid, body(true)), 200, "")
			want := tc.next
			if want == "" {
				want = "ada.new@acme.test"
			}
			if m := member(t, e, org, uid); m["status"] != "active" || m["email_address"] != want {
				t.Fatalf("reactivated with the new address: %v %v, want %s", m["status"], m["email_address"], want)
			}
		}
	})
}
