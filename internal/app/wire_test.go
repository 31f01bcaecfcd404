package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/project"
)

func TestWireBasics(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		pt := e.Project.PublicToken
		t.Run("json 404 and 405 with request ids", func(t *testing.T) {
			r := e.Do(http.MethodGet, "/nope", nil, nil, "", "")
			apptest.Want(t, r, 404, "route_not_found")
			if !strings.HasPrefix(r.Header.Get("X-Request-Id"), "request-id-") || r.Body["request_id"] != r.Header.Get("X-Request-Id") {
				t.Fatalf("request id missing or inconsistent: %v / %s", r.Body["request_id"], r.Header.Get("X-Request-Id"))
			}
			r = e.Do(http.MethodGet, "/sdk/v1/b2b/sessions/authenticate", nil, nil, pt, pt)
			apptest.Want(t, r, 405, "method_not_allowed")
			if !strings.Contains(r.Header.Get("Allow"), "POST") {
				t.Fatalf("Allow header = %q", r.Header.Get("Allow"))
			}
			apptest.Want(t, e.Backend(http.MethodPatch, "/v1/b2b/organizations", nil), 405, "method_not_allowed")
		})
		t.Run("bodies: too large, malformed, wrong types", func(t *testing.T) {
			big := `{"organization_slug":"` + strings.Repeat("a", 70<<10) + `"}`
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/search", big, ""), 413, "request_too_large")
			// Sent chunked, without a length to refuse up front, it is cut
			// off at the limit as it is read.
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/search", io.MultiReader(strings.NewReader(big)), ""), 413, "request_too_large")
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/search", `{"organization_slug":`, ""), 400, "invalid_request")
			r := e.SDK(http.MethodPost, "/b2b/organizations/search", `{"organization_slug": 7}`, "")
			apptest.Want(t, r, 400, "invalid_request")
			if d, _ := r.Body["error_details"].(map[string]any); d["field"] != "organization_slug" {
				t.Fatalf("error_details = %v", r.Body["error_details"])
			}
			apptest.Want(t, e.SDK(http.MethodPost, "/b2b/organizations/search", `{}`, ""), 400, "invalid_request")
		})
		t.Run("credentials", func(t *testing.T) {
			apptest.Want(t, e.Do(http.MethodPost, "/sdk/v1/b2b/organizations/search", `{}`, nil, "", ""), 401, "unauthorized_credentials")
			apptest.Want(t, e.Do(http.MethodPost, "/sdk/v1/b2b/organizations/search", `{}`, nil, "public-token-test-nope", "x"), 401, "public_token_not_found")
			apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/x", nil, nil, e.Project.Project.ID, "secret-test-wrong"), 401, "invalid_secret_authentication")
			// The public token is not a backend credential.
			apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/x", nil, nil, e.Project.Project.ID, pt), 401, "invalid_secret_authentication")
		})
		t.Run("wrong secrets are throttled per address, right ones always pass", func(t *testing.T) {
			other := e.NewProject("Throttled")
			for range project.SecretFailuresPerIP.Limit {
				e.Do(http.MethodGet, "/v1/b2b/organizations/x", nil, nil, other.Project.ID, "secret-test-guess")
			}
			apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/x", nil, nil, other.Project.ID, "secret-test-guess"), 429, "too_many_requests")
			// The correct secret from the same address still works: secrets
			// are too long to guess, and a misconfigured service sharing the
			// address must not take the real backend down.
			apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/x", nil, nil, other.Project.ID, other.Secret), 404, "organization_not_found")
			e.Clock.Advance(project.SecretFailuresPerIP.Window)
			apptest.Want(t, e.Do(http.MethodGet, "/v1/b2b/organizations/x", nil, nil, other.Project.ID, "secret-test-guess"), 401, "invalid_secret_authentication")
		})
		t.Run("cors with exact origins", func(t *testing.T) {
			pre := func(origin string) apptest.Resp {
				return e.Do(http.MethodOptions, "/sdk/v1/b2b/sessions/authenticate", nil, http.Header{"Origin": {origin},
					"Access-Control-Request-Method": {"POST"}, "Access-Control-Request-Headers": {"authorization, content-type, x-sdk-client"}}, "", "")
			}
			r := pre(apptest.Origin)
			if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != apptest.Origin || r.Header.Get("Access-Control-Allow-Credentials") != "true" {
				t.Fatalf("preflight for authorized origin: %d %v", r.Status, r.Header)
			}
			if !strings.Contains(strings.ToLower(r.Header.Get("Access-Control-Allow-Headers")), "x-sdk-client") {
				t.Fatalf("allow headers = %q", r.Header.Get("Access-Control-Allow-Headers"))
			}
			if r := pre("http://evil.test"); r.Header.Get("Access-Control-Allow-Origin") != "" {
				t.Fatalf("preflight for unknown origin allowed: %v", r.Header)
			}
			r = e.SDK(http.MethodPost, "/b2b/organizations/search", map[string]any{"organization_slug": "none"}, "")
			if r.Status != 200 || r.Header.Get("Access-Control-Allow-Origin") != apptest.Origin {
				t.Fatalf("real request from authorized origin: %d %v", r.Status, r.Header)
			}
			// Another project's origin may not act on this project.
			other := e.NewProject("Other")
			r = e.Do(http.MethodPost, "/sdk/v1/b2b/organizations/search", `{"organization_slug":"x"}`,
				http.Header{"Origin": {"http://evil.test"}}, other.PublicToken, other.PublicToken)
			apptest.Want(t, r, 403, "bad_domain_for_stytch_sdk")
		})
		t.Run("bootstrap has every field the SDK needs", func(t *testing.T) {
			r := e.Do(http.MethodGet, "/sdk/v1/projects/bootstrap/"+pt, nil, nil, pt, pt)
			d := r.Data()
			for _, k := range []string{"project_name", "disable_sdk_watermark", "cname_domain", "email_domains", "captcha_settings",
				"pkce_required_for_email_magic_links", "pkce_required_for_password_resets", "pkce_required_for_oauth",
				"pkce_required_for_sso", "slug_pattern", "create_organization_enabled", "password_config",
				"dfp_protected_auth_enabled", "rbac_policy", "vertical", "request_id", "status_code"} {
				if _, ok := d[k]; !ok {
					t.Errorf("bootstrap lacks %s", k)
				}
			}
			if d["project_name"] != "Customer App" || d["captcha_settings"].(map[string]any)["enabled"] != false {
				t.Fatalf("bootstrap = %v", d)
			}
			apptest.Want(t, e.Do(http.MethodGet, "/sdk/v1/projects/bootstrap/public-token-test-nope", nil, nil, "", ""), 401, "public_token_not_found")
		})
		t.Run("events are stored per project", func(t *testing.T) {
			batch := []map[string]any{{"telemetry": map[string]any{}, "event": map[string]any{"public_token": pt,
				"event_name": "render_b2b_login_screen", "details": map[string]any{"options": map[string]any{}}}}}
			r := e.Do(http.MethodPost, "/sdk/v1/events", batch, http.Header{"Origin": {apptest.Origin}}, "", "")
			if r.Status != 200 {
				t.Fatalf("events: %d %s", r.Status, r.Raw)
			}
			var n int
			if err := e.App.DB.Read().QueryRowContext(t.Context(), `SELECT COUNT(*) FROM events WHERE project_id = $1 AND event_name = $2`,
				e.Project.Project.ID, "render_b2b_login_screen").Scan(&n); err != nil || n != 1 {
				t.Fatalf("stored events = %d, %v", n, err)
			}
			r = e.Do(http.MethodPost, "/sdk/v1/events", batch, http.Header{"Origin": {"http://evil.test"}}, "", "")
			apptest.Want(t, r, 403, "bad_domain_for_stytch_sdk")
		})
		t.Run("widget is served", func(t *testing.T) {
			r := e.Do(http.MethodGet, "/widget/latchkey.js", nil, nil, "", "")
			if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/javascript") {
				t.Fatalf("widget: %d %v", r.Status, r.Header)
			}
			apptest.Want(t, e.Do(http.MethodGet, "/widget/missing.js", nil, nil, "", ""), 404, "route_not_found")
		})
	})
}
