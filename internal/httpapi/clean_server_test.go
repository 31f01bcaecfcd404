package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// Through the real server: a malformed escape beside a NUL used to skip
// the query check, and on PostgreSQL the NUL reached the member lookup
// (SQLSTATE 22021), answered as a 500 instead of invalid_request.
func TestQueryNULBesideABadEscapeIsInvalidRequest(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?member_id=%00&junk=%zz", nil)
		apptest.Want(t, r, 400, "invalid_request")
	})
}
