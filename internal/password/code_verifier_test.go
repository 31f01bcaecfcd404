package password_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The browser SDK sends code_verifier on both password logins whenever
// the device has a PKCE transaction open (an unfinished magic link or
// reset start), though a password login has no challenge to check it
// against: it is accepted, never refused as unsupported, and the login
// answers as it would without it.
func TestPasswordLoginAcceptsTheSDKsCodeVerifier(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)
		verifier := strings.Repeat("v", 43)
		r := e.SDK(http.MethodPost, "/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": "ada@acme.test",
			"password": apptest.StrongPassword, "session_duration_minutes": 60, "code_verifier": verifier}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["session_token"] == "" {
			t.Fatalf("no session: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/authenticate", map[string]any{"organization_id": org, "email_address": "ada@acme.test",
			"password": "Wrong-" + apptest.StrongPassword, "code_verifier": verifier}, ""), 401, "unauthorized_credentials")
		r = e.SDK(http.MethodPost, "/b2b/passwords/discovery/authenticate", map[string]any{"email_address": "ada@acme.test",
			"password": apptest.StrongPassword, "code_verifier": verifier}, "")
		apptest.Want(t, r, 200, "")
		if r.Data()["intermediate_session_token"] == "" {
			t.Fatalf("no intermediate session: %s", r.Raw)
		}
	})
}
