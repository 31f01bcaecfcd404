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

// A body is one JSON value: what follows it (a truncated or concatenated
// write) makes the request invalidSyntax, and nothing of it is acted on;
// trailing whitespace is still fine.
func TestBodyIsOneJSONValue(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		wantSCIM(t, do(http.MethodPost, "/Users", `{"userName":"trail@acme.test"} this is {not json`), 400, "invalidSyntax")
		wantSCIM(t, do(http.MethodPost, "/Users", `{"userName":"trail@acme.test"}{"userName":"other@acme.test"}`), 400, "invalidSyntax")
		wantSCIM(t, do(http.MethodPost, "/Groups", `{"displayName":"G"} x`), 400, "invalidSyntax")
		if n := e.Count(`SELECT COUNT(*) FROM scim_registrations`); n != 0 {
			t.Fatalf("a refused body provisioned %d users", n)
		}
		r := do(http.MethodPost, "/Users", "{\"userName\":\"trail@acme.test\"}\r\n\t ")
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		off := `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"active","value":false}]}`
		wantSCIM(t, do(http.MethodPatch, "/Users/"+uid, off+`]]]} garbage`), 400, "invalidSyntax")
		wantSCIM(t, do(http.MethodPut, "/Users/"+uid, `{"userName":"trail@acme.test","active":false} 1`), 400, "invalidSyntax")
		if m := member(t, e, org, uid); m["status"] != "active" {
			t.Fatalf("a refused body deprovisioned the member: %v", m["status"])
		}
	})
}

// A value of the wrong type is named by its field and JSON kind, never by
// Go's type names.
func TestTypeErrorNamesTheField(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		r := do(http.MethodPost, "/Users", map[string]any{"userName": "typed@acme.test"})
		wantSCIM(t, r, 201, "")
		uid := r.Body["id"].(string)
		for _, tc := range []struct{ path, body, detail string }{
			{"/Users/" + uid, `{"Operations":"x"}`, "Operations must be a list."},
			{"/Users/" + uid, `{"Operations":[{"op":5}]}`, "Operations[0].op must be a string."},
			{"/Users", `[{"userName":"trail@acme.test"}]`, "The request body must be a JSON object."},
		} {
			method := http.MethodPatch
			if tc.path == "/Users" {
				method = http.MethodPost
			}
			r := do(method, tc.path, tc.body)
			wantSCIM(t, r, 400, "invalidSyntax")
			detail, _ := r.Body["detail"].(string)
			if !strings.Contains(detail, tc.detail) || strings.Contains(detail, "Go ") || strings.Contains(detail, "scim.") ||
				strings.Contains(detail, "interface") {
				t.Errorf("%s: detail %q, want it to say %q", tc.body, detail, tc.detail)
			}
		}
	})
}

// A body holding an unpaired UTF-16 surrogate escape is refused, as the
// API's routes refuse it: encoding/json would store U+FFFD, so the name
// kept would not be the name sent. A backslash before "u0000" is text, not
// a NUL, and a correct pair is one character.
func TestBodyWithALoneSurrogateIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(body string) apptest.Resp { return scimDo(e, http.MethodPost, id, "/Users", token, body) }
		wantSCIM(t, do(`{"userName":"lone@acme.test","displayName":"a\ud800b"}`), 400, "invalidSyntax")
		wantSCIM(t, do(`{"userName":"low@acme.test","displayName":"\udc00"}`), 400, "invalidSyntax")
		if n := e.Count(`SELECT COUNT(*) FROM scim_registrations`); n != 0 {
			t.Fatalf("a refused body provisioned %d users", n)
		}
		wantSCIM(t, do(`{"userName":"pair@acme.test","displayName":"smile \ud83d\ude00 \\u0000"}`), 201, "")
	})
}
