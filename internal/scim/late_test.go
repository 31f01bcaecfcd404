package scim_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/organization"
)

// A deprovisioning (active: false) is never refused over what else the
// push carries: a linked member's new address (which SCIM may not apply)
// and a name over the member name limit (which is cut, as for a JIT
// signup). A leaver must not stay active because of either.
func TestDeprovisioningIsNeverRefusedOverTheRestOfThePush(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		boss := e.CreateMember(org, "boss@acme.test")
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "boss@acme.test"}), 201, "")
		long := strings.Repeat("n", organization.MaxNameLength+10)
		r := do(http.MethodPut, "/Users/"+boss, map[string]any{"userName": "boss@acme.test", "active": false,
			"displayName": long, "emails": []any{map[string]any{"value": "elsewhere@acme.test", "primary": true}}})
		wantSCIM(t, r, 200, "")
		m := member(t, e, org, boss)
		if m["status"] != "deleted" || m["email_address"] != "boss@acme.test" {
			t.Fatalf("deprovisioned member: status %v, address %v", m["status"], m["email_address"])
		}

		// A created user's long name is cut, not refused.
		r = do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test", "displayName": long})
		wantSCIM(t, r, 201, "")
		if n := member(t, e, org, r.Body["id"].(string))["name"].(string); len([]rune(n)) != organization.MaxNameLength {
			t.Fatalf("name kept %d characters, want %d", len([]rune(n)), organization.MaxNameLength)
		}
	})
}

// A SCIM creation racing a login's JIT signup of the same address links
// the member the signup created, as it would after it, rather than
// answering uniqueness.
func TestCreateDuringASignupOfTheAddressLinks(t *testing.T) {
	t.Parallel()
	e := apptest.New(t, apptest.Postgres(t), nil)
	org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
	id, token, _ := connection(t, e, org, nil)
	var r apptest.Resp
	e.DuringProvisioning(t, org, "ada@acme.test", func() {
		r = scimDo(e, http.MethodPost, id, "/Users", token, map[string]any{"userName": "ada@acme.test"})
	})
	wantSCIM(t, r, 201, "")
	if m := member(t, e, org, r.Body["id"].(string)); m["email_address"] != "ada@acme.test" || m["status"] != "active" {
		t.Fatalf("linked member: %v", m)
	}
}
