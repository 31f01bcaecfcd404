package trustedauth_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// previousProvider is the OpenID provider a project moves away from: its
// userinfo endpoint answers for the bearer tokens it issued.
func previousProvider(t *testing.T, users map[string]map[string]any) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		const prefix = "Bearer "
		auth := r.Header.Get("Authorization")
		u, ok := users[auth[min(len(prefix), len(auth)):]]
		if len(auth) <= len(prefix) || auth[:len(prefix)] != prefix || !ok {
			w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
			http.Error(w, "invalid token", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(u)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestMigrateSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ana@acme.test")
		prev := previousProvider(t, map[string]map[string]any{
			"tok-ana":        {"sub": "1", "email": "Ana@acme.test", "email_verified": true},
			"tok-stranger":   {"sub": "2", "email": "zed@acme.test"},
			"tok-unverified": {"sub": "3", "email": "ana@acme.test", "email_verified": false},
			// Cognito's userinfo sends email_verified as a string.
			"tok-string-verified":   {"sub": "5", "email": "ana@acme.test", "email_verified": "true"},
			"tok-string-unverified": {"sub": "6", "email": "ana@acme.test", "email_verified": "false"},
			"tok-noemail":           {"sub": "4"},
		})
		migrate := func(token string) apptest.Resp {
			return e.Backend(http.MethodPost, "/v1/b2b/sessions/migrate", map[string]any{"session_token": token,
				"organization_id": org, "session_duration_minutes": 60})
		}
		// Not configured yet.
		apptest.Want(t, migrate("tok-ana"), 400, "migrate_from_external_missing_userinfo")
		if err := e.App.TrustedAuth.SetMigrationUserinfoURL(t.Context(), e.Project.Project.ID, prev.URL+"/userinfo"); err != nil {
			t.Fatal(err)
		}
		r := migrate("tok-ana")
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != memberID || r.Body["session_token"] == "" {
			t.Fatalf("migrate: %s", r.Raw)
		}
		f := factors(t, r.Body)
		if len(f) != 1 || f[0]["type"] != "imported" || f[0]["delivery_method"] != "imported_oidc" {
			t.Fatalf("factors: %v", f)
		}
		apptest.Want(t, migrate("tok-stranger"), 404, "migrate_from_external_email_does_not_exist")
		apptest.Want(t, migrate("tok-unverified"), 400, "migrate_from_external_unexpected_response")
		apptest.Want(t, migrate("tok-string-unverified"), 400, "migrate_from_external_unexpected_response")
		apptest.Want(t, migrate("tok-string-verified"), 200, "")
		apptest.Want(t, migrate("tok-noemail"), 400, "migrate_from_external_unexpected_response")
		apptest.Want(t, migrate("tok-forged"), 400, "migrate_from_external_unexpected_response")
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/migrate", map[string]any{"session_token": "tok-ana"}),
			400, "invalid_request")
		// Migration is a backend call only.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/migrate", map[string]any{"session_token": "tok-ana",
			"organization_id": org}, ""), 404, "route_not_found")

		// The previous provider gone: a clear upstream error.
		prev.Close()
		apptest.Want(t, migrate("tok-ana"), 502, "migrate_from_external_userinfo_unavailable")
		// Turned off again.
		if err := e.App.TrustedAuth.SetMigrationUserinfoURL(t.Context(), e.Project.Project.ID, ""); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, migrate("tok-ana"), 400, "migrate_from_external_missing_userinfo")
		if err := e.App.TrustedAuth.SetMigrationUserinfoURL(t.Context(), e.Project.Project.ID, "http://example.test/userinfo"); err == nil {
			t.Fatal("plain http to a remote host accepted")
		}
	})
}

// A migrated session is no recent authentication for step-up: a token the
// previous provider still accepts proves a session there, of any age, not
// that the member just authenticated, so whoever holds one must not be
// able to move the member's address with the session it buys.
func TestMigratedSessionDoesNotPassStepUp(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ana@acme.test")
		// A login here verifies the address, which a self-serve email
		// update needs before step-up decides.
		e.LoginByEmailOTP(org, "ana@acme.test")
		prev := previousProvider(t, map[string]map[string]any{
			"tok-ana": {"sub": "1", "email": "ana@acme.test", "email_verified": true},
		})
		if err := e.App.TrustedAuth.SetMigrationUserinfoURL(t.Context(), e.Project.Project.ID, prev.URL+"/userinfo"); err != nil {
			t.Fatal(err)
		}
		r := e.Backend(http.MethodPost, "/v1/b2b/sessions/migrate", map[string]any{"session_token": "tok-ana",
			"organization_id": org})
		apptest.Want(t, r, 200, "")
		token := r.Body["session_token"].(string)
		apptest.Want(t, e.StartEmailUpdate(token, "", map[string]any{"email_address": "eve@evil.test"}), 403, "session_too_old")
		// The session serves everything step-up does not guard.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, token), 200, "")
	})
}
