package scim_test

// Input handling: filter values the database would refuse, and the
// member name limit on provisioning.

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A filter's quoted value is JSON-decoded, so `\u0000` inside it becomes a
// NUL that reaches the database as a query parameter. The request's raw
// query is clean (WithCleanInput sees a backslash, not a NUL), so nothing
// refuses it before: PostgreSQL rejects the parameter and the identity
// provider gets a 500. It is a client error (invalidFilter) on every
// engine.
func TestFilterValueWithNULIsNotA500(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		for _, path := range []string{
			"/Users?filter=" + url.QueryEscape(`userName eq "a\u0000b"`),
			"/Users?filter=" + url.QueryEscape(`externalId eq "\u0000"`),
			"/Groups?filter=" + url.QueryEscape(`displayName eq "\u0000"`),
		} {
			wantSCIM(t, scimDo(e, http.MethodGet, id, path, token, nil), 400, "invalidFilter")
		}
	})
}

// A member's name is capped at 256 characters by UpdateMember (so by
// SCIM's own PATCH/PUT), but a provisioned user's name goes through
// CreateMember, which has no cap (nor has the backend create route that
// shares it): POST /Users stores any length the body limit allows, and
// every later update that resends the name is then refused.
func TestProvisionedNameIsBounded(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		long := strings.Repeat("n", 5000)
		r := scimDo(e, http.MethodPost, id, "/Users", token, map[string]any{"userName": "long@acme.test", "displayName": long})
		if r.Status == http.StatusCreated {
			m := member(t, e, org, r.Body["id"].(string))
			if n := len(m["name"].(string)); n > 256 {
				t.Fatalf("a provisioned member's name has %d characters; the member routes allow 256", n)
			}
		}
	})
}
