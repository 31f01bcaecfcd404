package password_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/password"
)

// A reset token belongs to the project that issued it (lookupReset's
// project scope). Presented to another project's reset routes, on either
// face, it is refused exactly as a token nobody issued is, whatever the
// new password: a weak one is judged only once the token is found, so
// its answer must not tell that the token exists elsewhere. Nor does it
// set anything there: the other project may hold the same address, and a
// discovery reset names no member, only the address, whose password it
// would set in the project it was presented to. The token still works in
// its own project afterwards.
func TestResetTokenIsUnknownToAnotherProject(t *testing.T) {
	const (
		othersOwn = "Quartz-Heron-Meadow-57" // the address's password in the other project
		intruder  = "Intruder-Secret-Fig-12"
	)
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)

		// The other project, with a member at the same address.
		other := *e
		other.Project = e.NewProject("Other")
		otherOrg := other.CreateOrg("acme", "ALL_ALLOWED", nil)
		other.CreateMember(otherOrg, "ada@acme.test")
		other.SetPassword(otherOrg, "ada@acme.test", othersOwn)

		post := http.MethodPost
		for _, kind := range []struct {
			name              string
			tokenType         string
			start             func() apptest.Resp // in the token's own project
			sdkPath, bendPath string              // the reset's routes, SDK and backend
		}{
			{"email", password.TokenTypeReset, func() apptest.Resp { return e.ResetStart(org, "ada@acme.test", nil) },
				"/b2b/passwords/email/reset", "/v1/b2b/passwords/email/reset"},
			{"discovery", password.TokenTypeDiscoveryReset, func() apptest.Resp {
				return e.SDK(post, "/b2b/passwords/discovery/reset/start", map[string]any{"email_address": "ada@acme.test"}, "")
			}, "/b2b/passwords/discovery/reset", "/v1/b2b/passwords/discovery/email/reset"},
		} {
			apptest.Want(t, kind.start(), 200, "")
			token := e.ResetLink("ada@acme.test", kind.tokenType)
			for _, face := range []struct {
				name  string
				reset func(body map[string]any) apptest.Resp
			}{
				{"sdk", func(body map[string]any) apptest.Resp { return other.SDK(post, kind.sdkPath, body, "") }},
				{"backend", func(body map[string]any) apptest.Resp { return other.Backend(post, kind.bendPath, body) }},
			} {
				for _, pw := range []string{apptest.WeakPassword, intruder} {
					unknown := face.reset(map[string]any{"password_reset_token": "never-issued-" + token[:8], "password": pw})
					apptest.Want(t, unknown, 401, "unable_to_auth_magic_link")
					r := face.reset(map[string]any{"password_reset_token": token, "password": pw})
					if r.Status != unknown.Status || r.ErrType() != unknown.ErrType() {
						t.Fatalf("%s token on the other project's %s face (password %q): %d %s, want %d %s as for an unknown token",
							kind.name, face.name, pw, r.Status, r.Raw, unknown.Status, unknown.ErrType())
					}
				}
			}
			apptest.Want(t, other.PasswordLogin(otherOrg, "ada@acme.test", intruder), 401, "unauthorized_credentials")
			apptest.Want(t, other.PasswordLogin(otherOrg, "ada@acme.test", othersOwn), 200, "")

			if r := e.SDK(post, kind.sdkPath, map[string]any{"password_reset_token": token,
				"password": "Owner-Secret-Fig-13-" + kind.name}, ""); r.Status != 200 {
				t.Fatalf("%s token in its own project after the other's attempts: %s", kind.name, r.Raw)
			}
		}
	})
}
