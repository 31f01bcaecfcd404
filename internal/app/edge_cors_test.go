package app_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The edge's refusals on the SDK face (a body over the limit, a NUL or
// invalid UTF-8 in the query or the credentials), raised before the
// face's CORS handling, carry its CORS answer for an origin a project
// authorizes, so the SDK reads the catalogue error instead of reporting
// the server unreachable (api-reference §1.6); an origin no project
// authorizes gets none.
func TestSDKEdgeRefusalsCarryCORS(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		pt := e.Project.PublicToken
		big := `{"organization_slug":"` + strings.Repeat("a", 70<<10) + `"}`
		for _, tc := range []struct {
			name, path, body, user string
			status                 int
			errType                string
		}{
			{"body over the limit", "/sdk/v1/b2b/organizations/search", big, pt, 413, "request_too_large"},
			{"body over the limit, other spelling", "/sdk/v1b2b/organizations/search", big, pt, 413, "request_too_large"},
			{"NUL in the query", "/sdk/v1/b2b/organizations/search?x=%00", `{}`, pt, 400, "invalid_request"},
			{"invalid UTF-8 in the query", "/sdk/v1/b2b/organizations/search?x=%FF", `{}`, pt, 400, "invalid_request"},
			{"NUL in the credentials", "/sdk/v1/b2b/organizations/search", `{}`, pt + "\x00", 400, "invalid_request"},
			{"invalid UTF-8 in the credentials", "/sdk/v1/b2b/organizations/search", `{}`, "\xff" + pt, 400, "invalid_request"},
		} {
			for origin, allowed := range map[string]bool{apptest.Origin: true, "http://evil.test": false} {
				r := e.Do(http.MethodPost, tc.path, tc.body, http.Header{"Origin": {origin}}, tc.user, pt)
				apptest.Want(t, r, tc.status, tc.errType)
				acao, creds := r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Allow-Credentials")
				if allowed && (acao != origin || creds != "true") || !allowed && (acao != "" || creds != "") {
					t.Errorf("%s from %s: Allow-Origin %q, Allow-Credentials %q", tc.name, origin, acao, creds)
				}
				if !strings.Contains(r.Header.Get("Vary"), "Origin") {
					t.Errorf("%s from %s: Vary %q", tc.name, origin, r.Header.Get("Vary"))
				}
			}
		}
	})
}
