package apptest_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// The harness serves the real handler: an organization made through the
// backend face is read back, and an unknown route answers in the
// catalogue's shape.
func TestHarnessServesTheRealHandler(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		id := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+id, nil)
		apptest.Want(t, r, 200, "")
		apptest.Want(t, e.Get("/v1/nowhere"), 404, "route_not_found")
	})
}
