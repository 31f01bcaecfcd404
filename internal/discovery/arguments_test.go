package discovery_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Listing discovered organizations names the caller once: an IST, a
// session token or a session JWT in the body, not several
// (too_many_session_arguments, as the API family answers).
func TestDiscoveryListTakesOneCaller(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		token, jwt, _ := e.Login(org, "ada@acme.test")
		ist := e.Discover("ada@acme.test")["intermediate_session_token"].(string)
		const path = "/v1/b2b/discovery/organizations"
		for _, body := range []map[string]any{
			{"intermediate_session_token": ist, "session_token": token},
			{"intermediate_session_token": ist, "session_jwt": jwt},
			{"session_token": token, "session_jwt": jwt},
		} {
			apptest.Want(t, e.Backend(http.MethodPost, path, body), 400, "too_many_session_arguments")
		}
		for _, body := range []map[string]any{{"intermediate_session_token": ist}, {"session_token": token}, {"session_jwt": jwt}} {
			apptest.Want(t, e.Backend(http.MethodPost, path, body), 200, "")
		}
	})
}

// Both exchanges name a missing organization_id as the bad field
// (invalid_request) before looking at the caller: the IST stays unspent,
// and a stale session gets the same answer, not a session check.
func TestExchangesRequireOrganizationID(t *testing.T) {
	for _, face := range []string{"backend", "sdk"} {
		sdk := face == "sdk"
		t.Run(face, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, e *apptest.Env) {
				org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
				e.CreateMember(org, "ada@acme.test")
				token, _ := e.LoginByEmailOTP(org, "ada@acme.test")
				ist := e.Discover("ada@acme.test")["intermediate_session_token"].(string)
				wantField := func(r apptest.Resp) {
					t.Helper()
					apptest.Want(t, r, 400, "invalid_request")
					if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "organization_id" {
						t.Errorf("error_details %v, want field organization_id: %s", r.Body["error_details"], r.Raw)
					}
				}
				for _, id := range []any{nil, "", "  "} {
					withID := func(body map[string]any) map[string]any {
						if id != nil {
							body["organization_id"] = id
						}
						return body
					}
					wantField(post(e, sdk, "b2b/discovery/intermediate_sessions/exchange",
						withID(map[string]any{"intermediate_session_token": ist}), ""))
					for _, tok := range []string{token, "stale"} {
						body := withID(map[string]any{})
						if !sdk {
							body["session_token"] = tok
						}
						wantField(post(e, sdk, "b2b/sessions/exchange", body, tok))
					}
				}
				apptest.Want(t, post(e, sdk, "b2b/discovery/intermediate_sessions/exchange",
					map[string]any{"intermediate_session_token": ist, "organization_id": org}, ""), 200, "")
			})
		})
	}
}
