package scim_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Every error on the SCIM service's paths is in SCIM's shape, also those
// the edge answers before the service's handlers run: a body over the
// limit (with a Content-Length, refused before routing; chunked, cut off
// as it is read), a path or method no route serves, input the edge
// refuses. Bulk and the /Me alias, which the service does not offer, are
// 501. The backend face's connection routes share the path prefix and
// keep the catalogue's shape.
func TestSCIMPathsAnswerSCIMErrors(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		id, token, _ := connection(t, e, org, nil)
		do := func(method, path string, body any) apptest.Resp { return scimDo(e, method, id, path, token, body) }
		big := `{"userName":"ada@acme.test","displayName":"` + strings.Repeat("a", 70<<10) + `"}`

		wantSCIM(t, do(http.MethodPost, "/Users", big), 413, "")
		wantSCIM(t, do(http.MethodPost, "/Users", io.MultiReader(strings.NewReader(big))), 413, "")
		wantSCIM(t, do(http.MethodPut, "/Groups/scim-group-test-nope", big), 413, "")
		wantSCIM(t, scimDo(e, http.MethodPost, id, "/Users", "", big), 413, "") // before the bearer check, as before
		wantSCIM(t, do(http.MethodPost, "/Bulk", map[string]any{"schemas": []string{"urn:ietf:params:scim:api:messages:2.0:BulkRequest"}}), 501, "")
		wantSCIM(t, scimDo(e, http.MethodPost, id, "/Bulk", "", map[string]any{}), 401, "")
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			wantSCIM(t, do(m, "/Me", nil), 501, "")
		}
		for _, p := range []string{"", "/", "/Nope", "/Users/a/b", "/Me/password", "/users"} {
			wantSCIM(t, do(http.MethodGet, p, nil), 404, "")
		}
		// A path with dot segments names no route, so no shape either.
		apptest.Want(t, do(http.MethodGet, "/Users/../Groups", nil), 404, "route_not_found")
		r := do(http.MethodDelete, "/Users", nil)
		if wantSCIM(t, r, 405, ""); !strings.Contains(r.Header.Get("Allow"), "POST") {
			t.Fatalf("Allow = %q", r.Header.Get("Allow"))
		}
		wantSCIM(t, do(http.MethodGet, "/Users?filter=%FF", nil), 400, "invalidValue")
		// The service itself still works.
		wantSCIM(t, do(http.MethodPost, "/Users", map[string]any{"userName": "ada@acme.test"}), 201, "")

		// Connection management keeps the catalogue's errors.
		conn := "/v1/b2b/scim/" + org + "/connection"
		apptest.Want(t, e.Backend(http.MethodPut, conn+"/"+id, big), 413, "request_too_large")
		apptest.Want(t, e.Backend(http.MethodPost, conn, big), 413, "request_too_large")
		apptest.Want(t, e.Backend(http.MethodPatch, conn, nil), 405, "method_not_allowed")
		apptest.Want(t, e.Backend(http.MethodPost, conn+"/"+id+"/rotate/nope", nil), 404, "route_not_found")
	})
}
